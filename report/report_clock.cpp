// Where tuning time went, for the page: each run's phases (they add up to its wall time) and the report's total.
#include "report_clock.hpp"

#include <cmath>
#include <set>

namespace cutune::detail {
namespace {

// Seconds the GPUs spent verifying and timing `measurements` (summed over GPUs; unknown times count as none).
struct GpuSeconds {
  double verify = 0.0;
  double benchmark = 0.0;
  void add(const Result& r) {
    if (std::isfinite(r.verify_ms)) verify += r.verify_ms / 1000.0;
    if (std::isfinite(r.benchmark_ms)) benchmark += r.benchmark_ms / 1000.0;
  }
};

PageJson clock_json(const PhaseTimes& t, const GpuSeconds& gpu) {
  PageJson phases = PageJson::array();
  for (const auto& [name, seconds] : t.phases()) phases.push_back({{"name", name}, {"s", seconds}});
  return {{"wall_s", t.wall_s},
          {"phases", phases},
          {"compile_cpu_s", t.compile_cpu_s},
          {"verify_s", gpu.verify},
          {"benchmark_s", gpu.benchmark}};
}

}  // namespace

PageJson group_clock(const ReportGroup& group) {
  PageJson runs = PageJson::array();
  std::size_t number = 0;
  for (const RunSeries& s : group.runs) {
    ++number;
    if (!s.run->times) continue;
    GpuSeconds gpu;
    for (const Measurement* m : s.measurements) gpu.add(m->result);
    PageJson run = clock_json(*s.run->times, gpu);
    run["label"] = run_label(*s.run, number);
    runs.push_back(std::move(run));
  }
  return runs;
}

PageJson total_clock(const ReportData& data) {
  PhaseTimes total;
  GpuSeconds gpu;
  std::set<const RunRecord*> counted;
  for (const ReportGroup& group : data.groups) {
    for (const RunSeries& s : group.runs) {
      if (!s.run->times) continue;
      if (counted.insert(s.run).second) total += *s.run->times;
      for (const Measurement* m : s.measurements) gpu.add(m->result);
    }
  }
  if (counted.empty()) return nullptr;
  PageJson out = clock_json(total, gpu);
  out["runs"] = counted.size();
  return out;
}

}  // namespace cutune::detail
