// Groups a database's runs for the report: filters, the current measurement of each configuration, runs in order.
#include "report_data.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "cutune/error.hpp"

namespace cutune::detail {
namespace {

// Runs of different L2 conventions never share a group: their times are not comparable.
using GroupKey = std::tuple<std::string, int, int, int, std::string, std::string, std::string, L2Flush>;

GroupKey key_of(const RunRecord& run, const std::string& shape) {
  const DeviceIdentity& d = run.device;
  return {run.kernel.name, d.cc_major, d.cc_minor, d.sm_count, d.name, run.kernel.hash, shape, run.flush};
}

// Shapes sort by their dimensions as numbers ("512x512" before "4096x4096"), then as text.
bool shape_before(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

std::string listing(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool ok_with_time(const Measurement* m) { return usable(m->result.status) && std::isfinite(m->result.median_ms); }

// Fastest Ok first, then fastest Unverified (ties by configuration, as Database::best orders them), then failures by
// configuration.
bool report_order(const Measurement* a, const Measurement* b) {
  const bool a_ok = ok_with_time(a), b_ok = ok_with_time(b);
  if (a_ok != b_ok) return a_ok;
  const bool a_verified = a->result.status == Status::Ok, b_verified = b->result.status == Status::Ok;
  if (a_ok && a_verified != b_verified) return a_verified;
  if (a_ok && a->result.median_ms != b->result.median_ms) return a->result.median_ms < b->result.median_ms;
  return a->result.config < b->result.config;
}

// Which runs pass the filters, failing with a message that names what the database holds instead.
std::vector<const RunRecord*> filtered_runs(const std::vector<RunRecord>& runs, const ReportOptions& options,
                                            const std::string& db_name) {
  std::vector<const RunRecord*> out;
  for (const auto& run : runs)
    if (!run.measurements.empty()) out.push_back(&run);
  if (out.empty()) throw InputError("database " + db_name + " holds no results");

  std::set<std::string> seen;
  const auto narrow = [&](const std::string& wanted, const std::string& what, auto field_matches, auto field_names) {
    if (wanted.empty()) return;
    seen.clear();
    std::vector<const RunRecord*> kept;
    for (const RunRecord* run : out) {
      field_names(*run, seen);
      if (field_matches(*run)) kept.push_back(run);
    }
    if (kept.empty()) {
      throw InputError("database " + db_name + " holds no results " + what + " '" + wanted + "' (it holds " +
                       listing(seen) + ")");
    }
    out = std::move(kept);
  };
  narrow(options.kernel, "of kernel", [&](const RunRecord& r) { return r.kernel.name == options.kernel; },
         [](const RunRecord& r, std::set<std::string>& s) { s.insert(r.kernel.name); });
  narrow(options.gpu, "on GPU", [&](const RunRecord& r) { return r.device.name == normalized_device_name(options.gpu); },
         [](const RunRecord& r, std::set<std::string>& s) { s.insert(r.device.name); });
  narrow(options.shape, "at shape",
         [&](const RunRecord& r) {
           return std::any_of(r.measurements.begin(), r.measurements.end(),
                              [&](const Measurement& m) { return m.shape == options.shape; });
         },
         [](const RunRecord& r, std::set<std::string>& s) {
           for (const auto& m : r.measurements) s.insert(m.shape);
         });
  return out;
}

}  // namespace

ReportData collect_report_data(Database& db, const ReportOptions& options) {
  ReportData data;
  data.database = db.path();
  data.runs = db.runs();
  std::string db_name = db.path().string();  // quoted by appending: GCC 12 warns falsely on "'" + s + "'"
  db_name.insert(db_name.begin(), '\'');
  db_name += '\'';
  const std::vector<const RunRecord*> runs = filtered_runs(data.runs, options, db_name);

  std::map<GroupKey, std::size_t> index;
  // Per group and configuration, the latest measurement (by time, then run uid: the rule of refresh_current).
  std::vector<std::map<std::string, std::pair<const Measurement*, const RunRecord*>>> latest;
  for (const RunRecord* run : runs) {  // runs() orders by start time
    std::map<std::size_t, RunSeries> series;
    for (const auto& m : run->measurements) {
      if (!options.shape.empty() && m.shape != options.shape) continue;
      const GroupKey key = key_of(*run, m.shape);
      auto [it, added] = index.emplace(key, data.groups.size());
      if (added) {
        ReportGroup group;
        group.kernel = run->kernel;
        group.shape = m.shape;
        group.flush = run->flush;
        data.groups.push_back(std::move(group));
        latest.emplace_back();
      }
      ReportGroup& group = data.groups[it->second];
      group.device = run->device;  // the latest run's provenance
      ++group.measurements;
      RunSeries& s = series[it->second];
      s.run = run;
      s.measurements.push_back(&m);
      auto& slot = latest[it->second][m.result.config];
      if (slot.first == nullptr || m.measured_at > slot.first->measured_at ||
          (m.measured_at == slot.first->measured_at && run->uid > slot.second->uid)) {
        slot = {&m, run};
      }
    }
    for (auto& [g, s] : series) data.groups[g].runs.push_back(std::move(s));
  }

  for (std::size_t g = 0; g < data.groups.size(); ++g) {
    ReportGroup& group = data.groups[g];
    for (const auto& [config, entry] : latest[g]) group.current.push_back(entry.first);
    std::sort(group.current.begin(), group.current.end(), report_order);
    std::set<std::string> known;
    for (const Measurement* m : group.current) {
      for (const auto& [name, value] : config_items(m->result.config)) {
        if (known.insert(name).second) group.parameters.push_back(name);
      }
    }
  }
  std::sort(data.groups.begin(), data.groups.end(), [](const ReportGroup& a, const ReportGroup& b) {
    if (a.kernel.name != b.kernel.name) return a.kernel.name < b.kernel.name;
    if (a.shape != b.shape) return shape_before(a.shape, b.shape);
    if (a.device.name != b.device.name) return a.device.name < b.device.name;
    if (a.kernel.hash != b.kernel.hash) return a.kernel.hash < b.kernel.hash;
    return a.flush < b.flush;
  });
  return data;
}

}  // namespace cutune::detail
