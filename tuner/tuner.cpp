// Runs one tuning job: the strategy's proposals are compiled on every core while the GPU measures the
// proposals compiled before them, and each result is committed as it arrives.
#include "cutune/tuner.hpp"

#include <chrono>
#include <deque>
#include <future>
#include <map>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/strategy.hpp"
#include "log.hpp"

namespace cutune {
namespace {

struct Pending {
  std::size_t index;
  std::future<CompileOutput> compiled;
};

}  // namespace

Tuner::Tuner(const Device& device, Database& database, TuneOptions options)
    : device_(device), database_(database), options_(std::move(options)) {}

ShapeReport Tuner::tune(const KernelSpec& spec, const Shape& shape) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  ShapeReport report;
  report.shape = shape;
  const Space space = Space::enumerate(spec, shape, device_.limits());
  report.space_size = space.size();
  const KernelIdentity kernel{spec.name, spec.hash};
  const std::string shape_key = shape.str();

  std::map<std::string, Result> stored;
  for (auto& r : database_.results(device_.identity(), kernel, shape_key)) stored.emplace(r.config, std::move(r));
  const std::int64_t run = database_.begin_run(device_.identity(), kernel, options_.command);
  detail::logger()->info("tuning {} {} on {}: {} valid configurations ({} removed by constraints, {} by device limits), {} stored",
                 spec.name, shape_key, device_.identity().name, space.size(), space.removed_by_constraints(),
                 space.removed_by_device(), stored.size());

  std::optional<Workbench> bench;
  std::optional<Result> best;
  Progress progress;
  progress.total = space.size();
  auto account = [&](std::size_t index, const Result& r, Strategy& strategy, bool resumed) {
    strategy.tell(index, r.status == Status::Ok ? std::optional<double>(r.median_ms) : std::nullopt);
    ++progress.done;
    if (resumed) ++report.resumed, ++progress.resumed; else ++report.evaluated;
    if (r.status != Status::Ok) ++report.failed;
    if (r.status == Status::Ok && (!best || r.median_ms < best->median_ms)) best = r;
    if (options_.on_progress) {
      progress.elapsed_s = elapsed();
      progress.last = &r;
      progress.best = best ? &*best : nullptr;
      options_.on_progress(progress);
    }
  };

  auto strategy = make_strategy(options_.strategy, space, options_.seed);
  CompilePool pool(options_.compile_threads);
  // Enough compiles queued to keep every core busy while the GPU works, without running far ahead of the strategy.
  const std::size_t lookahead = 2 * static_cast<std::size_t>(pool.threads());
  const std::string arch = device_.identity().arch();
  std::deque<Pending> pending;
  bool exhausted = false;
  while (true) {
    while (!exhausted && pending.size() < lookahead) {
      const auto asked = strategy->ask(lookahead - pending.size());
      if (asked.empty()) {
        exhausted = true;
        break;
      }
      for (std::size_t index : asked) {
        const Config& config = space.configs()[index];
        if (auto it = stored.find(spec.format(config)); it != stored.end()) {
          account(index, it->second, *strategy, true);
          continue;
        }
        pending.push_back({index, pool.submit([&spec, &config, arch] { return compile_config(spec, config, arch); })});
      }
    }
    if (pending.empty()) break;
    Pending next = std::move(pending.front());
    pending.pop_front();
    const CompileOutput compiled = next.compiled.get();
    report.compile_seconds += compiled.ms / 1000.0;
    if (!bench) bench.emplace(device_, spec, shape, options_.measure);
    const Result result = bench->evaluate(space.configs()[next.index], compiled);
    database_.record(run, shape_key, result);
    detail::logger()->debug("{} {}: {} {:.4f} ms", spec.name, result.config, to_string(result.status), result.median_ms);
    account(next.index, result, *strategy, false);
    if (!bench->usable()) {
      throw CudaError("configuration " + result.config + " faulted (" + result.message +
                      ") and left the CUDA context unusable; its status is stored, run the same command again to resume");
    }
  }

  report.best = best;
  if (spec.metric.kind == Metric::Kind::Bytes) {
    if (!bench) bench.emplace(device_, spec, shape, options_.measure);
    // A copy moves each byte twice (read + write), as the metric counts a kernel's reads and writes.
    report.copy_gbs = bench->copy_bandwidth(static_cast<std::int64_t>(spec.metric_amount(shape) / 2));
  }
  report.seconds = elapsed();
  return report;
}

}  // namespace cutune
