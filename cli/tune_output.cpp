// What `tune` prints for a tuning run: the progress line while it tunes and the tables at the end (not logging).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "commands.hpp"

namespace cutune::cli {
namespace {

// Results measured without comparing their outputs (--verify none) say so wherever they are shown.
std::string unverified_mark(const Result& r) {
  return r.status == Status::Unverified ? " (unverified)" : "";
}

std::string describe_best(const KernelSpec& spec, const Result* best) {
  if (best == nullptr) return "none correct yet";
  if (!spec.metric.has_rate()) return fmt::format("{:.4f} ms{}", best->median_ms, unverified_mark(*best));
  return fmt::format("{:.4f} ms, {:.0f} {}{}", best->median_ms, best->metric, spec.metric.unit(),
                     unverified_mark(*best));
}

// "  GPU 0 3.1/s, GPU 1 2.9/s": each GPU's configurations per second so far; empty for a run on one GPU.
std::string per_device_rates(const Progress& p) {
  if (p.devices.size() < 2) return {};
  std::string out = " ";
  for (const auto& d : p.devices) {
    out += fmt::format(" {} {:.1f}/s", d.name, p.elapsed_s > 0 ? static_cast<double>(d.measured) / p.elapsed_s : 0.0);
    if (!d.left.empty()) out += " (left)";
  }
  return out;
}

// "start-up 0.51 (15%), waiting for compiles 1.20 (35%), ...": where a wall time went, phase by phase, seconds.
std::string phase_breakdown(const PhaseTimes& t) {
  std::string out;
  for (const auto& [name, seconds] : t.phases()) {
    out += fmt::format("{}{} {:.2f} ({:.0f}%)", out.empty() ? "" : ", ", name, seconds,
                       t.wall_s > 0 ? 100.0 * seconds / t.wall_s : 0.0);
  }
  return out;
}

std::string ms_or_unknown(double ms) { return std::isfinite(ms) ? fmt::format("{:.2f} ms", ms) : "unknown"; }

// The shape's first lines: what was measured, found stored, failed and interrupted.
void print_shape_counts(const KernelSpec& spec, const DeviceIdentity& device, const ShapeReport& r) {
  fmt::print("\n{} {} on {} ({}, {} SMs): {} valid configurations, {} measured now, {} from the database, {} failed{}, "
             "{:.1f} s\n",
             spec.name, r.shape.str(), device.name, device.arch(), device.sm_count, r.space_size, r.evaluated,
             r.resumed, r.failed, r.interrupted > 0 ? fmt::format(", {} interrupted", r.interrupted) : "", r.seconds);
  if (r.interrupted > 0) {
    // Not the configurations' fault: an operator or the OOM killer ended their processes, twice each.
    fmt::print("  interrupted {} configuration(s): the worker or compiler process was killed from outside; run the "
               "same command again to measure them\n", r.interrupted);
  }
  if (r.evaluated == 0 && r.resumed > 0 && r.resumed >= r.limit) {
    fmt::print("  nothing to measure: {} configurations of this shape already stored under L2 flush {}, the {} ({}) "
               "reached\n", r.resumed, to_string(r.flush), r.limit < r.space_size ? "budget" : "whole space", r.limit);
  }
}

}  // namespace

std::string result_times(const Result& r) {
  return fmt::format("compile {}, verify {}, benchmark {}, framework {}, search {}", ms_or_unknown(r.compile_ms),
                     ms_or_unknown(r.verify_ms), ms_or_unknown(r.benchmark_ms), ms_or_unknown(r.framework_ms),
                     ms_or_unknown(r.search_ms));
}

void print_progress(const KernelSpec& spec, const Shape& shape, const Progress& p) {
  static const bool terminal = isatty(fileno(stderr)) != 0;
  const double rate = p.elapsed_s > 0 ? static_cast<double>(p.done - p.resumed) / p.elapsed_s : 0.0;
  const double eta = rate > 0 ? static_cast<double>(p.total - p.done) / rate : 0.0;
  const std::string line = fmt::format("{} {}: {}/{} ({} resumed)  {:.1f}/s{}  ETA {:.0f} s  best {}", spec.name,
                                       shape.str(), p.done, p.total, p.resumed, rate, per_device_rates(p), eta,
                                       describe_best(spec, p.best));
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
  print_shape_counts(spec, device, r);
  fmt::print("  wall time   {:.2f} s: {}\n", r.seconds, phase_breakdown(r.phases));
  if (r.evaluated > 0) {
    const bool several = r.devices.size() > 1;
    fmt::print("  compiles    {:.1f} s of NVRTC summed over threads ({} of {} from the cubin cache{}); {} waited for "
               "compiles {:.2f} s{}\n",
               r.phases.compile_cpu_s, r.cache_hits, r.evaluated,
               r.compiled_ahead > 0 ? fmt::format(", {} more compiled ahead of the search", r.compiled_ahead) : "",
               several ? "the GPUs" : "the GPU", r.idle_seconds, several ? " summed over GPUs" : "");
    fmt::print("  measuring   {:.2f} s{}: verify {:.2f} s, benchmark {:.2f} s, loading and hand-over {:.2f} s; {} "
               "finalists re-timed\n",
               r.measure_seconds, several ? " summed over GPUs" : " on the GPU", r.verify_seconds, r.benchmark_seconds,
               std::max(0.0, r.measure_seconds - r.verify_seconds - r.benchmark_seconds), r.retimed);
  }
  if (r.devices.size() > 1 && r.evaluated > 0) {
    std::string shares;
    for (const auto& d : r.devices) {
      shares += fmt::format("{}{}: {} measured ({:.1f}/s)", shares.empty() ? "" : ", ", d.name, d.measured,
                            r.seconds > 0 ? static_cast<double>(d.measured) / r.seconds : 0.0);
      if (!d.left.empty()) shares += fmt::format(" then left the run ({})", d.left);
    }
    // The first GPU still in the run re-timed the finalists.
    const auto retimer = std::find_if(r.devices.begin(), r.devices.end(), [](const DeviceShare& d) { return d.left.empty(); });
    fmt::print("  per GPU     {}{}\n", shares,
               retimer != r.devices.end() && r.retimed > 0 ? fmt::format("; finalists re-timed on {}", retimer->name) : "");
  }
  if (!r.verify_stop.empty()) {
    std::size_t start = 0;
    for (std::size_t end; (end = r.verify_stop.find('\n', start)) != std::string::npos; start = end + 1) {
      fmt::print("  {}\n", r.verify_stop.substr(start, end - start));
    }
    fmt::print("  {}\n", r.verify_stop.substr(start));
  }
  if (!r.best) {
    fmt::print("  no configuration ran correctly\n");
    return;
  }
  const Result& b = *r.best;
  fmt::print("  best        {}{}\n", b.config,
             b.status == Status::Unverified ? "  (unverified: its outputs were not compared, --verify none)" : "");
  fmt::print("  time        {:.4f} ms (median of {}, interquartile spread {:.1f}%, L2 flush {})\n", b.median_ms,
             b.samples_ms.size(), 100.0 * b.spread, to_string(r.flush));
  if (r.copy_gbs > 0) {
    // A host pipeline's bound is its link's: the longer of the whole-array copies in and out (measure.hpp).
    fmt::print("  throughput  {:.0f} {} = {:.1f}% of {} ({:.0f} GB/s, same run)\n", b.metric, spec.metric.unit(),
               100.0 * b.metric / r.copy_gbs, spec.pipeline ? "the transfer-only bound" : "device copy", r.copy_gbs);
  } else if (spec.metric.has_rate()) {
    fmt::print("  throughput  {:.1f} {}\n", b.metric, spec.metric.unit());
  }
}

void print_summary(const KernelSpec& spec, const std::vector<ShapeReport>& reports) {
  const bool bytes = spec.metric.kind == Metric::Kind::Bytes;
  // On several GPUs, a column per GPU counts the configurations it measured.
  const auto& gpus = reports.empty() ? std::vector<DeviceShare>{} : reports.front().devices;
  std::size_t width = 7;  // "rank 1 GPU 0" columns are wider than "GPU 0" ones
  for (const auto& d : gpus) width = std::max(width, d.name.size());
  std::string gpu_header;
  if (gpus.size() > 1)
    for (const auto& d : gpus) gpu_header += fmt::format(" {:>{}}", d.name, width);
  auto gpu_counts = [&gpus, width](const ShapeReport& r) {
    std::string out;
    if (gpus.size() > 1)
      for (const auto& d : r.devices) out += fmt::format(" {:>{}}", d.measured, width);
    return out;
  };
  fmt::print("\n{:<14} {:<48} {:>10} {:>10}{}{}\n", "shape", "best configuration", "time ms",
             spec.metric.has_rate() ? spec.metric.unit() : "",
             bytes ? fmt::format(" {:>8}", spec.pipeline ? "vs bound" : "vs copy") : "", gpu_header);
  for (const auto& r : reports) {
    const std::string counts = gpu_counts(r);
    const std::string blank_copy = bytes && !counts.empty() ? fmt::format(" {:>8}", "") : "";
    if (!r.best) {
      if (counts.empty()) {
        fmt::print("{:<14} {:<48}\n", r.shape.str(), "(none correct)");
      } else {
        fmt::print("{:<14} {:<48} {:>10} {:>10}{}{}\n", r.shape.str(), "(none correct)", "", "", blank_copy, counts);
      }
      continue;
    }
    fmt::print("{:<14} {:<48} {:>10.4f} {:>10}{}{}\n", r.shape.str(), r.best->config + unverified_mark(*r.best),
               r.best->median_ms, spec.metric.has_rate() ? fmt::format("{:.0f}", r.best->metric) : "",
               bytes && r.copy_gbs > 0 ? fmt::format(" {:>7.1f}%", 100.0 * r.best->metric / r.copy_gbs) : blank_copy,
               counts);
  }
}

void print_run_time(const std::vector<ShapeReport>& reports, double wall_s, double before_s) {
  PhaseTimes run;
  double verify_s = 0.0, benchmark_s = 0.0;
  for (const auto& r : reports) {
    run += r.phases;
    verify_s += r.verify_seconds;
    benchmark_s += r.benchmark_seconds;
  }
  // Before the first shape: the database, the GPUs, the kernel; between and after the shapes: this output.
  run.startup_s += before_s;
  run.other_s += std::max(0.0, wall_s - before_s - run.wall_s);
  run.wall_s = wall_s;
  fmt::print("\nrun time    {:.2f} s for {} shape{}: {}\n", wall_s, reports.size(), reports.size() == 1 ? "" : "s",
             phase_breakdown(run));
  fmt::print("            {:.1f} s of NVRTC summed over threads; verify {:.2f} s and benchmark {:.2f} s summed over "
             "results\n", run.compile_cpu_s, verify_s, benchmark_s);
}

}  // namespace cutune::cli
