// Runs one tuning job: the strategy's proposals are compiled on every core while the GPU measures the
// proposals compiled before them; each result is committed as it arrives; the finalists are re-timed.
#include "cutune/tuner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <map>
#include <unordered_map>

#include "cutune/compiler.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/strategy.hpp"
#include "measure/evaluator.hpp"
#include "measure/workbench.hpp"
#include "specs/log.hpp"

namespace cutune {
namespace {

using Clock = std::chrono::steady_clock;


double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The order of Database::best (median, then configuration text), so that the tuner's winner is the stored best
// also when medians tie (short kernels: event timings come in steps of about half a microsecond).
bool faster(const Result& a, const Result& b) {
  return a.median_ms < b.median_ms || (a.median_ms == b.median_ms && a.config < b.config);
}

struct Pending {
  std::size_t index;
  std::future<CompileOutput> compiled;
};

// The first compile that is done, so the GPU never waits for one while another is ready; the oldest otherwise.
Pending take_ready(std::deque<Pending>& pending) {
  auto ready = std::find_if(pending.begin(), pending.end(), [](const Pending& p) {
    return p.compiled.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  });
  if (ready == pending.end()) ready = pending.begin();
  Pending out = std::move(*ready);
  pending.erase(ready);
  return out;
}

// Tells the strategy every stored outcome of a configuration in the space, in configuration order (a resumed
// search is deterministic), and hands each to `account`; returns how many there were. Stored configurations outside
// the space (another --where, other device limits) are left out: the strategy could not propose them.
std::size_t observe_stored(const Space& space, const KernelSpec& spec, const std::map<std::string, Result>& stored,
                           Strategy& strategy, const std::function<void(const Result&)>& account) {
  if (stored.empty()) return 0;
  std::unordered_map<std::string, std::size_t> index_of;
  index_of.reserve(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) index_of.emplace(spec.format(space.configs()[i]), i);
  std::size_t known = 0;
  for (const auto& [config, r] : stored) {
    const auto it = index_of.find(config);
    if (it == index_of.end()) continue;
    strategy.observe(it->second, r.status == Status::Ok ? std::optional<double>(r.median_ms) : std::nullopt);
    account(r);
    ++known;
  }
  return known;
}

}  // namespace

Tuner::Tuner(const Device& device, Database& database, TuneOptions options)
    : identity_(device.identity()), limits_(device.limits()), ordinal_(device.ordinal()), device_(&device),
      database_(database), options_(std::move(options)) {}

Tuner::Tuner(DeviceIdentity identity, DeviceLimits limits, int ordinal, Database& database, TuneOptions options)
    : identity_(std::move(identity)), limits_(limits), ordinal_(ordinal), database_(database),
      options_(std::move(options)) {
  if (!options_.isolate) throw InputError("a tuner without a Device object measures in worker processes only");
}

ShapeReport Tuner::tune(const KernelSpec& spec, const Shape& shape) {
  const auto start = Clock::now();
  ShapeReport report;
  report.shape = shape;
  const Space space = Space::enumerate(spec, shape, limits_);
  report.space_size = space.size();
  const KernelIdentity kernel{spec.name, spec.hash};
  const std::string shape_key = shape.str();
  const std::string arch = identity_.arch();

  std::map<std::string, Result> stored;
  for (auto& r : database_.results(identity_, kernel, shape_key)) stored.emplace(r.config, std::move(r));
  detail::logger()->info(
      "tuning {} {} on {}: {} valid configurations ({} removed by constraints, {} by device limits, {} by target {}), "
      "{} stored",
      spec.name, shape_key, identity_.name, space.size(), space.removed_by_constraints(), space.removed_by_device(),
      space.removed_by_target(), arch, stored.size());

  std::optional<CubinCache> cache;
  if (options_.use_cache) {
    cache.emplace(options_.cache_dir.empty() ? CubinCache::default_directory() : std::filesystem::path(options_.cache_dir));
  }
  CubinCache* cache_ptr = cache ? &*cache : nullptr;

  std::optional<Result> best;
  std::map<std::string, Result> results;  // this shape's results, stored and new: the finalists come from here
  Progress progress;
  const std::size_t limit = options_.budget > 0 ? std::min(options_.budget, space.size()) : space.size();
  progress.total = limit;
  report.limit = limit;
  auto strategy = make_strategy(options_.strategy, space, options_.seed);
  auto outcome = [](const Result& r) { return r.status == Status::Ok ? std::optional<double>(r.median_ms) : std::nullopt; };
  auto account = [&](const Result& r, bool resumed) {
    ++progress.done;
    if (resumed) ++report.resumed, ++progress.resumed; else ++report.evaluated;
    if (r.status != Status::Ok) ++report.failed;
    if (r.status == Status::Ok && (!best || faster(r, *best))) best = r;
    results[r.config] = r;
    if (options_.on_progress) {
      progress.elapsed_s = seconds_since(start);
      progress.last = &r;
      progress.best = best ? &*best : nullptr;
      options_.on_progress(progress);
    }
  };

  // What is stored counts against the budget, and the strategy hears all of it before it proposes anything, so that
  // a resumed run measures only what is missing and a model-based search continues from what it knows.
  const std::size_t known = observe_stored(space, spec, stored, *strategy, [&](const Result& r) { account(r, true); });
  const std::size_t to_measure = limit > known ? limit - known : 0;
  if (to_measure == 0) {
    report.best = best;
    report.seconds = seconds_since(start);
    return report;
  }
  const std::int64_t run = database_.begin_run(identity_, kernel, options_.command);

  CompilePool pool(options_.compile_threads);
  // The support and reference kernels go first, into the cache, while the worker starts: it then finds them there
  // instead of compiling them itself while the GPU waits.
  std::vector<std::future<CompileOutput>> setup_jobs;
  if (cache_ptr != nullptr) {
    setup_jobs.push_back(pool.submit([&] { return compile_reference_cached(cache_ptr, spec, arch); }));
    setup_jobs.push_back(pool.submit([&] {
      detail::cache_support_kernels(arch, cache_ptr);
      return CompileOutput{};
    }));
  }
  // Enough compiles queued to keep every core busy while the GPU works, without running far ahead of the strategy.
  const std::size_t lookahead = 2 * static_cast<std::size_t>(pool.threads());
  std::deque<Pending> pending;
  std::unique_ptr<detail::Evaluator> bench;
  auto start_evaluator = [&] {
    if (options_.isolate) {
      detail::WorkerSettings settings;
      settings.executable = detail::find_worker_executable();
      if (settings.executable.empty()) {
        throw Error("cutune-worker was not found beside this program; set CUTUNE_WORKER to its path, or measure in "
                    "this process (--no-isolate)");
      }
      settings.device = ordinal_;
      settings.measure = options_.measure;
      settings.cache_dir = cache ? cache->directory().string() : std::string();
      settings.timeout_floor_s = options_.timeout_floor_s;
      bench = detail::make_worker_evaluator(settings);
    } else {
      bench = detail::make_in_process_evaluator(*device_, options_.measure, cache_ptr);
    }
    bench->start();
    for (auto& job : setup_jobs) job.get();
    setup_jobs.clear();
    bench->prepare(spec, shape);
  };
  bool exhausted = false;
  std::size_t asked_total = 0;
  auto out_of_budget = [&] {
    return asked_total >= to_measure || (options_.time_budget_s > 0 && seconds_since(start) >= options_.time_budget_s);
  };
  while (true) {
    while (!exhausted && pending.size() < lookahead) {
      if (out_of_budget()) {
        exhausted = true;
        break;
      }
      const auto asked = strategy->ask(std::min(lookahead - pending.size(), to_measure - asked_total));
      if (asked.empty()) {
        exhausted = true;
        break;
      }
      for (std::size_t index : asked) {
        ++asked_total;
        const Config& config = space.configs()[index];
        pending.push_back(
            {index, pool.submit([&spec, &config, &arch, cache_ptr] { return compile_config_cached(cache_ptr, spec, config, arch); })});
      }
    }
    if (pending.empty()) break;
    if (!bench) start_evaluator();  // set up while the first compiles run: buffers, support kernels, the reference
    if (stop_requested()) throw Interrupted("interrupted");
    const auto wait_start = Clock::now();
    Pending next = take_ready(pending);
    const CompileOutput compiled = next.compiled.get();
    report.idle_seconds += seconds_since(wait_start);
    report.compile_seconds += compiled.ms / 1000.0;
    report.cache_hits += compiled.from_cache;
    const auto measure_start = Clock::now();
    const Result result = bench->evaluate(space.configs()[next.index], compiled, best ? best->median_ms : 0.0);
    report.measure_seconds += seconds_since(measure_start);
    database_.record(run, shape_key, result);
    detail::logger()->debug("{} {}: {} {:.4f} ms ({} runs)", spec.name, result.config, to_string(result.status),
                            result.median_ms, result.samples_ms.size());
    strategy->tell(next.index, outcome(result));
    account(result, false);
  }

  // Re-time the finalists with more runs, so that the winner is not decided by a short or lucky measurement; go on
  // while a configuration that was not re-timed has a median below the re-timed best, so that the winner is
  // also the fastest configuration stored.
  if (report.evaluated > 0 && options_.final_candidates > 0 && bench) {
    std::vector<Result> ranked;
    for (const auto& [config, r] : results)
      if (r.status == Status::Ok) ranked.push_back(r);
    std::sort(ranked.begin(), ranked.end(), faster);
    best.reset();
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      if (i >= static_cast<std::size_t>(options_.final_candidates) && best && !faster(ranked[i], *best)) break;
      if (stop_requested()) throw Interrupted("interrupted");
      const Config config = spec.parse_config(ranked[i].config);
      const auto measure_start = Clock::now();
      Result again = bench->retime(config, compile_config_cached(cache_ptr, spec, config, arch), options_.final_repeats);
      report.measure_seconds += seconds_since(measure_start);
      database_.record(run, shape_key, again);
      ++report.retimed;
      if (again.status == Status::Ok && (!best || faster(again, *best))) best = again;
    }
  }

  report.best = best;
  if (spec.metric.kind == Metric::Kind::Bytes) {
    if (!bench) start_evaluator();
    // A copy moves each byte twice (read + write), as the metric counts a kernel's reads and writes.
    report.copy_gbs = bench->copy_bandwidth(static_cast<std::int64_t>(spec.metric_amount(shape) / 2));
  }
  report.seconds = seconds_since(start);
  return report;
}

}  // namespace cutune
