// What `tune` shows a user: the progress line while tuning and the tables at the end (not logging).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "commands.hpp"

namespace cutune::cli {
namespace {

std::string describe_best(const KernelSpec& spec, const Result* best) {
  if (best == nullptr) return "none correct yet";
  return fmt::format("{:.4f} ms, {:.0f} {}", best->median_ms, best->metric, spec.metric.unit());
}

}  // namespace

void print_progress(const KernelSpec& spec, const Shape& shape, const Progress& p) {
  static const bool terminal = isatty(fileno(stderr)) != 0;
  const double rate = p.elapsed_s > 0 ? static_cast<double>(p.done - p.resumed) / p.elapsed_s : 0.0;
  const double eta = rate > 0 ? static_cast<double>(p.total - p.done) / rate : 0.0;
  const std::string line = fmt::format("{} {}: {}/{} ({} resumed)  {:.1f}/s  ETA {:.0f} s  best {}", spec.name,
                                       shape.str(), p.done, p.total, p.resumed, rate, eta, describe_best(spec, p.best));
  if (terminal) {
    fmt::print(stderr, "\r\033[K{}", line);
    if (p.done == p.total) fmt::print(stderr, "\n");
  } else {
    // One line per tenth of the work keeps logs short.
    const std::size_t step = std::max<std::size_t>(1, p.total / 10);
    if (p.done % step == 0 || p.done == p.total) fmt::print(stderr, "{}\n", line);
  }
  std::fflush(stderr);
}

void print_shape_report(const KernelSpec& spec, const DeviceIdentity& device, const ShapeReport& r) {
  fmt::print("\n{} {} on {} ({}, {} SMs): {} valid configurations, {} measured now, {} from the database, {} failed, {:.1f} s\n",
             spec.name, r.shape.str(), device.name, device.arch(), device.sm_count, r.space_size, r.evaluated,
             r.resumed, r.failed, r.seconds);
  if (r.evaluated == 0 && r.resumed > 0 && r.resumed >= r.limit) {
    fmt::print("  nothing to measure: {} configurations of this shape already stored, the {} ({}) reached\n",
               r.resumed, r.limit < r.space_size ? "budget" : "whole space", r.limit);
  }
  if (r.evaluated > 0) {
    fmt::print("  time spent  compile {:.1f} s summed over threads ({} of {} from the cubin cache), measure {:.2f} s, "
               "GPU waiting for compiles {:.2f} s; {} finalists re-timed\n",
               r.compile_seconds, r.cache_hits, r.evaluated, r.measure_seconds, r.idle_seconds, r.retimed);
  }
  if (!r.best) {
    fmt::print("  no configuration ran correctly\n");
    return;
  }
  const Result& b = *r.best;
  fmt::print("  best        {}\n", b.config);
  fmt::print("  time        {:.4f} ms (median of {}, interquartile spread {:.1f}%)\n", b.median_ms, b.samples_ms.size(),
             100.0 * b.spread);
  if (r.copy_gbs > 0) {
    // A host pipeline's bound is its link's: the longer of the whole-array copies in and out (measure.hpp).
    fmt::print("  throughput  {:.0f} {} = {:.1f}% of {} ({:.0f} GB/s, same run)\n", b.metric, spec.metric.unit(),
               100.0 * b.metric / r.copy_gbs, spec.pipeline ? "the transfer-only bound" : "device copy", r.copy_gbs);
  } else {
    fmt::print("  throughput  {:.1f} {}\n", b.metric, spec.metric.unit());
  }
}

void print_summary(const KernelSpec& spec, const std::vector<ShapeReport>& reports) {
  const bool bytes = spec.metric.kind == Metric::Kind::Bytes;
  fmt::print("\n{:<14} {:<48} {:>10} {:>10}{}\n", "shape", "best configuration", "time ms", spec.metric.unit(),
             bytes ? fmt::format(" {:>8}", spec.pipeline ? "vs bound" : "vs copy") : "");
  for (const auto& r : reports) {
    if (!r.best) {
      fmt::print("{:<14} {:<48}\n", r.shape.str(), "(none correct)");
      continue;
    }
    fmt::print("{:<14} {:<48} {:>10.4f} {:>10.0f}{}\n", r.shape.str(), r.best->config, r.best->median_ms, r.best->metric,
               bytes && r.copy_gbs > 0 ? fmt::format(" {:>7.1f}%", 100.0 * r.best->metric / r.copy_gbs) : "");
  }
}

}  // namespace cutune::cli
