// Turns grouped results into the page's data: best configurations with resources, convergence steps, histogram
// bins, per-parameter quartiles, capped scatter columns, failures, and each kernel across devices and shapes.
#include "report_json.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "cutune/error.hpp"
#include "cutune/resources.hpp"
#include "cutune/result_fields.hpp"
#include "report_clock.hpp"

namespace cutune::detail {
namespace {

constexpr std::size_t kFastestRows = 10;
constexpr std::size_t kHistogramBins = 30;
constexpr std::size_t kFailureMessages = 40;
constexpr std::size_t kMessageChars = 4000;
constexpr std::size_t kPortabilityGroups = 24;

// Plotted figures keep 5 significant digits: the page stays small, and no plot resolves more.
PageJson figure(double x) {
  if (!std::isfinite(x)) return nullptr;
  if (x == 0.0) return 0.0;
  const double scale = std::pow(10.0, 4 - std::floor(std::log10(std::fabs(x))));
  return std::round(x * scale) / scale;
}

// Table figures keep every digit the database has.
PageJson exact(double x) { return std::isfinite(x) ? PageJson(x) : PageJson(nullptr); }

// Ok or Unverified (--verify none), with a time: a result whose time counts.
bool is_ok(const Measurement* m) { return usable(m->result.status) && std::isfinite(m->result.median_ms); }

bool has_resources(const Result& r) { return r.threads_per_block > 0 && r.blocks_per_sm > 0 && r.blocks > 0; }

PageJson result_row(const Measurement& m, const DeviceIdentity& device) {
  const Result& r = m.result;
  const DerivedResources d = derived_resources(r, device);
  PageJson row{{"config", r.config},
               {"samples", r.samples_ms.size()},
               {"fraction_of_peak", exact(d.fraction_of_peak)},
               {"waves", exact(d.waves)},
               {"occupancy", exact(d.occupancy)},
               {"unverified", r.status == Status::Unverified},
               {"measured_at", m.measured_at}};
  for (const ResultField& f : kResultFields) {
    row[std::string(f.name)] = is_integer(f) ? PageJson(integer_value(r, f)) : exact(field_value(r, f));
  }
  return row;
}

// Built by appending: GCC 12 warns falsely (-Wrestrict) on chains that start with a literal.
std::string group_id(std::size_t index) {
  std::string id = "g";
  id += std::to_string(index);
  return id;
}

}  // namespace

std::string run_label(const RunRecord& run, std::size_t number) {
  std::string command = run.command;
  if (command.size() > 80) command = command.substr(0, 77) + "...";
  std::string label = "run ";
  for (const std::string& part : {std::to_string(number), std::string(" ("), run.started_at.substr(0, 16),
                                  std::string(", "), run.host, std::string("): "), command}) {
    label += part;
  }
  return label;
}

namespace {

// Per run, the evaluations at which the best time improved (and the last one): a step curve of best found.
PageJson convergence(const ReportGroup& group) {
  PageJson runs = PageJson::array();
  std::size_t number = 0;
  for (const RunSeries& s : group.runs) {
    ++number;
    PageJson points = PageJson::array();
    double best = INFINITY;
    std::size_t evaluation = 0;
    for (const Measurement* m : s.measurements) {
      ++evaluation;
      if (is_ok(m) && m->result.median_ms < best) {
        best = m->result.median_ms;
        points.push_back({evaluation, figure(best)});
      }
    }
    if (points.empty()) continue;  // nothing correct: no curve to draw
    if (points.back()[0] != evaluation) points.push_back({evaluation, figure(best)});
    runs.push_back({{"label", run_label(*s.run, number)}, {"evaluations", evaluation}, {"points", points}});
  }
  return runs;
}

// Bins of equal width in log10(time): times of tuned kernels span decades.
PageJson histogram(const std::vector<double>& times) {
  PageJson bins = PageJson::array();
  if (times.empty()) return bins;
  const auto [lo_it, hi_it] = std::minmax_element(times.begin(), times.end());
  const double lo = std::log10(*lo_it), hi = std::log10(*hi_it);
  const std::size_t count = hi > lo ? kHistogramBins : 1;
  const double width = hi > lo ? (hi - lo) / static_cast<double>(count) : 1.0;
  std::vector<std::size_t> n(count, 0);
  for (const double t : times) {
    const auto b = static_cast<std::size_t>((std::log10(t) - lo) / width);
    ++n[std::min(b, count - 1)];
  }
  for (std::size_t b = 0; b < count; ++b) {
    const double from = hi > lo ? lo + width * static_cast<double>(b) : lo - 0.05;
    const double to = hi > lo ? from + width : lo + 0.05;
    bins.push_back({{"lo", figure(std::pow(10.0, from))}, {"hi", figure(std::pow(10.0, to))}, {"n", n[b]}});
  }
  return bins;
}

double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (at - static_cast<double>(below));
}

bool is_number(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// For each parameter and value: how many configurations, how many ran, and the quartiles of their times; the
// minimum says what the value allows at best, the spread how much the other parameters still matter.
PageJson by_parameter(const ReportGroup& group) {
  std::map<std::string, std::map<std::string, std::pair<std::vector<double>, std::size_t>>> values;
  for (const Measurement* m : group.current) {
    for (const auto& [name, value] : config_items(m->result.config)) {
      auto& slot = values[name][value];
      ++slot.second;
      if (is_ok(m)) slot.first.push_back(m->result.median_ms);
    }
  }
  PageJson out = PageJson::array();
  for (const std::string& name : group.parameters) {
    auto& per_value = values[name];
    std::vector<std::string> order;
    bool numeric = true;
    for (const auto& [value, slot] : per_value) {
      order.push_back(value);
      numeric = numeric && is_number(value);
    }
    if (numeric) {
      std::sort(order.begin(), order.end(),
                [](const std::string& a, const std::string& b) { return std::stod(a) < std::stod(b); });
    }
    PageJson rows = PageJson::array();
    for (const std::string& value : order) {
      auto& [times, n] = per_value[value];
      PageJson row{{"value", value}, {"n", n}, {"ok", times.size()}};
      if (!times.empty()) {
        std::sort(times.begin(), times.end());
        row["min"] = figure(times.front());
        row["q1"] = figure(quantile(times, 0.25));
        row["median"] = figure(quantile(times, 0.5));
        row["q3"] = figure(quantile(times, 0.75));
      }
      rows.push_back(std::move(row));
    }
    out.push_back({{"name", name}, {"values", rows}});
  }
  return out;
}

// Time against occupancy and waves for the configurations whose resources were measured: every one up to
// kScatterPoints, else the fastest tenth of that and an even sample of the rest (the page says how many it shows).
PageJson resources(const ReportGroup& group) {
  std::vector<const Measurement*> with;
  for (const Measurement* m : group.current)
    if (is_ok(m) && has_resources(m->result)) with.push_back(m);  // fastest first, as `current` is ordered
  if (with.empty()) return nullptr;
  std::vector<const Measurement*> shown;
  if (with.size() <= kScatterPoints) {
    shown = with;
  } else {
    const std::size_t head = kScatterPoints / 10;
    shown.assign(with.begin(), with.begin() + static_cast<std::ptrdiff_t>(head));
    const double stride = static_cast<double>(with.size() - head) / static_cast<double>(kScatterPoints - head);
    for (std::size_t i = 0; i < kScatterPoints - head; ++i) {
      shown.push_back(with[head + static_cast<std::size_t>(static_cast<double>(i) * stride)]);
    }
  }
  PageJson time = PageJson::array(), occupancy_column = PageJson::array(), waves_column = PageJson::array(),
           registers = PageJson::array(), config = PageJson::array();
  for (const Measurement* m : shown) {
    const DerivedResources d = derived_resources(m->result, group.device);
    time.push_back(figure(m->result.median_ms));
    occupancy_column.push_back(figure(d.occupancy));
    waves_column.push_back(figure(d.waves));
    registers.push_back(m->result.registers);
    config.push_back(m->result.config);
  }
  return {{"total", with.size()},
          {"shown", shown.size()},
          {"columns", {{"time", time}, {"occupancy", occupancy_column}, {"waves", waves_column},
                       {"registers", registers}, {"config", config}}}};
}

// Failures by status, and their distinct messages (the first line decides what is the same message) with counts.
PageJson failures(const ReportGroup& group) {
  std::map<std::string, std::size_t> by_status;
  struct Message {
    std::string status, config, text;
    std::size_t n = 0;
  };
  std::map<std::pair<std::string, std::string>, Message> messages;
  for (const Measurement* m : group.current) {
    if (usable(m->result.status)) continue;
    const std::string status(to_string(m->result.status));
    ++by_status[status];
    const std::string& text = m->result.message;
    Message& entry = messages[{status, text.substr(0, text.find('\n'))}];
    if (entry.n++ == 0) entry = {status, m->result.config, text, 1};
  }
  std::vector<const Message*> order;
  for (const auto& [key, message] : messages) order.push_back(&message);
  std::stable_sort(order.begin(), order.end(), [](const Message* a, const Message* b) { return a->n > b->n; });
  PageJson statuses = PageJson::array(), shown = PageJson::array();
  for (const auto& [status, n] : by_status) statuses.push_back({{"status", status}, {"n", n}});
  for (std::size_t i = 0; i < order.size() && i < kFailureMessages; ++i) {
    const Message& m = *order[i];
    const bool cut = m.text.size() > kMessageChars;
    shown.push_back({{"status", m.status}, {"n", m.n}, {"config", m.config},
                     {"message", cut ? m.text.substr(0, kMessageChars) : m.text}, {"truncated", cut}});
  }
  return {{"by_status", statuses}, {"messages", shown}, {"distinct_messages", order.size()}};
}

PageJson group_json(const ReportGroup& group, std::size_t id) {
  std::vector<double> times;
  std::size_t ok = 0, unverified = 0, interrupted = 0;
  for (const Measurement* m : group.current) {
    interrupted += m->result.status == Status::Interrupted;  // killed from outside: neither ran nor failed
    if (!is_ok(m)) continue;
    ++(m->result.status == Status::Unverified ? unverified : ok);
    if (m->result.median_ms > 0) times.push_back(m->result.median_ms);
  }
  PageJson fastest = PageJson::array();
  for (std::size_t i = 0; i < group.current.size() && i < kFastestRows && is_ok(group.current[i]); ++i) {
    fastest.push_back(result_row(*group.current[i], group.device));
  }
  const DeviceIdentity& d = group.device;
  return {{"id", group_id(id)},
          {"kernel", group.kernel.name},
          {"hash", group.kernel.hash},
          {"shape", group.shape},
          {"flush", to_string(group.flush)},
          {"device", {{"name", d.name}, {"arch", d.arch()}, {"sm_count", d.sm_count}, {"uuid", d.uuid},
                      {"driver_version", d.driver_version}, {"nvrtc_version", d.nvrtc_version}}},
          {"counts", {{"configurations", group.current.size()}, {"ok", ok}, {"unverified", unverified},
                      {"failed", group.current.size() - ok - unverified - interrupted}, {"interrupted", interrupted},
                      {"runs", group.runs.size()}, {"measurements", group.measurements}}},
          {"parameters", group.parameters},
          {"fastest", fastest},
          {"convergence", convergence(group)},
          {"histogram", histogram(times)},
          {"by_parameter", by_parameter(group)},
          {"resources", resources(group)},
          {"failures", failures(group)},
          {"clock", group_clock(group)}};
}

// Each kernel with several groups of one L2 convention: its best per device and shape, and how each best
// configuration does in the other groups (its time there over the best time there), where it was measured. Groups
// of different conventions are never set side by side.
PageJson across(const ReportData& data) {
  std::map<std::pair<std::string, L2Flush>, std::vector<std::size_t>> by_kernel;
  for (std::size_t g = 0; g < data.groups.size(); ++g) {
    if (!data.groups[g].current.empty() && is_ok(data.groups[g].current.front())) {
      by_kernel[{data.groups[g].kernel.name, data.groups[g].flush}].push_back(g);
    }
  }
  PageJson out = PageJson::array();
  for (const auto& [key, groups] : by_kernel) {
    const auto& [kernel, flush] = key;
    if (groups.size() < 2) continue;
    PageJson bests = PageJson::array(), cells = PageJson::array();
    for (const std::size_t g : groups) {
      const ReportGroup& group = data.groups[g];
      const Result& best = group.current.front()->result;
      bests.push_back({{"id", group_id(g)}, {"device", group.device.name}, {"shape", group.shape},
                       {"hash", group.kernel.hash}, {"best_ms", exact(best.median_ms)}, {"config", best.config},
                       {"fraction_of_peak", exact(derived_resources(best, group.device).fraction_of_peak)}});
    }
    if (groups.size() <= kPortabilityGroups) {
      for (const std::size_t to : groups) {
        std::map<std::string, double> times;
        for (const Measurement* m : data.groups[to].current)
          if (is_ok(m)) times.emplace(m->result.config, m->result.median_ms);
        const double best_there = data.groups[to].current.front()->result.median_ms;
        for (const std::size_t from : groups) {
          const auto it = times.find(data.groups[from].current.front()->result.config);
          if (it == times.end()) continue;
          cells.push_back({{"from", group_id(from)}, {"to", group_id(to)},
                           {"ratio", figure(it->second / best_there)}});
        }
      }
    }
    out.push_back({{"kernel", kernel}, {"flush", to_string(flush)}, {"bests", bests}, {"portability", cells}});
  }
  return out;
}

}  // namespace

PageJson report_json(const ReportData& data, const ReportOptions& options) {
  PageJson groups = PageJson::array();
  for (std::size_t g = 0; g < data.groups.size(); ++g) groups.push_back(group_json(data.groups[g], g));
  std::string title = options.title;
  if (title.empty()) (title = "cutune report of ") += data.database.filename().string();
  return {{"kind", "database"},
          {"title", title},
          {"database", data.database.string()},
          {"cutune_version", CUTUNE_VERSION},
          {"filters", {{"kernel", options.kernel}, {"shape", options.shape}, {"gpu", options.gpu}}},
          {"groups", groups},
          {"across", across(data)},
          {"clock", total_clock(data)}};
}

PageJson replay_json(const std::vector<ReplayResult>& results, const ReplayReportInfo& info) {
  if (results.empty()) throw InputError("a replay report needs at least one strategy's results");
  PageJson strategies = PageJson::array();
  for (const ReplayResult& r : results) {
    PageJson budgets = PageJson::array();
    for (const BudgetResult& b : r.budgets) {
      budgets.push_back({{"budget", b.budget},
                         {"median", b.median_relative_best ? figure(*b.median_relative_best) : PageJson(nullptr)},
                         {"random", b.random_median_relative_best ? figure(*b.random_median_relative_best)
                                                                   : PageJson(nullptr)}});
    }
    strategies.push_back({{"strategy", r.strategy},
                          {"space_size", r.space_size},
                          {"failed", r.failed},
                          {"optimum_ms", exact(r.optimum_ms)},
                          {"seeds", r.seeds},
                          {"budgets", budgets},
                          {"evals_to_5pct", exact(r.median_evals_to_5pct)},
                          {"evals_to_1pct", exact(r.median_evals_to_1pct)},
                          {"random_evals_to_5pct", exact(r.random_evals_to_5pct)},
                          {"random_evals_to_1pct", exact(r.random_evals_to_1pct)}});
  }
  return {{"kind", "replay"},
          {"title", info.title.empty() ? std::string("cutune replay") : info.title},
          {"source", info.source},
          {"cutune_version", CUTUNE_VERSION},
          {"strategies", strategies}};
}

}  // namespace cutune::detail
