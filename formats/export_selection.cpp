// Picking what an export writes (ExportSelection), and naming the kernel, device, shape and L2 groups runs hold.
#include <algorithm>
#include <map>
#include <tuple>

#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "formats.hpp"

namespace cutune {
namespace detail {

std::map<RunGroup, std::size_t> run_groups(const std::vector<RunRecord>& runs) {
  std::map<RunGroup, std::size_t> groups;
  for (const auto& run : runs) {
    for (const auto& m : run.measurements) {
      ++groups[RunGroup{run.kernel.name, run.kernel.hash, normalized_device_name(run.device.name), m.shape, run.flush}];
    }
  }
  return groups;
}

}  // namespace detail

bool detail::RunGroup::operator<(const RunGroup& o) const {
  return std::tie(kernel, version, device, shape, flush) < std::tie(o.kernel, o.version, o.device, o.shape, o.flush);
}

std::string ExportSelection::describe() const {
  std::string out;
  const auto add = [&out](std::string_view name, std::string_view value) {
    if (value.empty()) return;
    out += (out.empty() ? "" : ", ") + std::string(name) + " " + std::string(value);
  };
  add("kernel", kernel);
  add("device", device);
  add("shape", shape);
  if (flush) add("flush", to_string(*flush));
  return out.empty() ? "everything" : out;
}

std::string describe_groups(const std::vector<RunRecord>& runs, std::size_t limit) {
  const auto groups = detail::run_groups(runs);
  if (groups.empty()) return "no measurements";
  std::string out;
  std::size_t listed = 0;
  for (const auto& [g, count] : groups) {
    if (listed++ == limit) {
      out += "; and " + std::to_string(groups.size() - limit) + " more";
      break;
    }
    out += (out.empty() ? "" : "; ") + g.kernel + " (version " + g.version + ") on " + g.device + " at " + g.shape +
           ", flush " + std::string(to_string(g.flush)) + ": " + std::to_string(count) + " measurement" +
           (count == 1 ? "" : "s");
  }
  return out;
}

std::vector<RunRecord> select_runs(std::vector<RunRecord> runs, const ExportSelection& selection) {
  if (selection.empty()) return runs;
  const std::string device = normalized_device_name(selection.device);
  const auto other_shape = [&selection](const Measurement& m) {
    return !selection.shape.empty() && m.shape != selection.shape;
  };
  std::vector<RunRecord> picked;
  for (auto& run : runs) {
    if (!selection.kernel.empty() && run.kernel.name != selection.kernel && run.kernel.hash != selection.kernel) continue;
    if (!device.empty() && normalized_device_name(run.device.name) != device) continue;
    if (selection.flush && run.flush != *selection.flush) continue;
    // Runs are moved only when something of theirs is kept, so that an empty result can still list them all.
    if (std::all_of(run.measurements.begin(), run.measurements.end(), other_shape)) continue;
    std::erase_if(run.measurements, other_shape);
    picked.push_back(std::move(run));
  }
  if (picked.empty()) {
    throw InputError("nothing matches " + selection.describe() + "; the database holds " + describe_groups(runs));
  }
  return picked;
}

}  // namespace cutune
