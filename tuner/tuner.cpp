// Runs one tuning job: the strategy's proposals are compiled on every core while the GPUs measure the
// proposals compiled before them; each result is committed as it arrives; the finalists are re-timed.
#include "cutune/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>

#include "cutune/compiler.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/strategy.hpp"
#include "measure/compiler_processes.hpp"
#include "measure/evaluator.hpp"
#include "measure/workbench.hpp"
#include "specs/log.hpp"
#include "tuner/dispatch.hpp"
#include "tuner/measure_loop.hpp"
#include "tuner/phase_clock.hpp"
#include "tuner/sibling_prior.hpp"
#include "tuner/verify_stop.hpp"

namespace cutune {
namespace {

using Clock = std::chrono::steady_clock;


double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The order of Database::best (median, then configuration text), so that the tuner's winner is the stored best
// also when medians tie (short kernels: event timings come in steps of about half a microsecond).
// Verified results outrank unverified ones, as they do there.
bool faster(const Result& a, const Result& b) {
  if ((a.status == Status::Ok) != (b.status == Status::Ok)) return a.status == Status::Ok;
  return a.median_ms < b.median_ms || (a.median_ms == b.median_ms && a.config < b.config);
}

using IndexOf = std::unordered_map<std::string, std::size_t>;

// The space's configurations by their text.
IndexOf index_by_text(const Space& space, const KernelSpec& spec) {
  IndexOf index_of;
  index_of.reserve(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) index_of.emplace(spec.format(space.configs()[i]), i);
  return index_of;
}

// The configurations to evaluate first: the spec's "start", then the run's own, those in this shape's space.
std::vector<std::size_t> start_indices(const KernelSpec& spec, const std::vector<std::string>& extra,
                                       const IndexOf& index_of) {
  std::vector<std::string> texts;
  for (const Config& c : spec.start) texts.push_back(spec.format(c));
  for (const std::string& t : extra) texts.push_back(spec.format(spec.parse_config(t)));  // InputError if malformed
  std::vector<std::size_t> first;
  for (const std::string& t : texts) {
    const auto it = index_of.find(t);
    if (it != index_of.end()) first.push_back(it->second);
  }
  return first;
}

// Tells the strategy every stored outcome of a configuration in the space, in configuration order (a resumed
// search is deterministic), and hands each to `account`; returns how many there were. Stored configurations outside
// the space (another --where, other device limits) are left out: the strategy could not propose them.
std::size_t observe_stored(const IndexOf& index_of, const std::map<std::string, Result>& stored, Strategy& strategy,
                           const std::function<void(const Result&)>& account) {
  std::size_t known = 0;
  for (const auto& [config, r] : stored) {
    const auto it = index_of.find(config);
    if (it == index_of.end()) continue;
    strategy.observe(it->second, usable(r.status) ? std::optional<double>(r.median_ms) : std::nullopt);
    account(r);
    ++known;
  }
  return known;
}

// Copies why GPUs left the run into the report, for the progress line and the per-GPU summary.
void note_lanes_left(const detail::Dispatcher& lanes, ShapeReport& report) {
  for (std::size_t i = 0; i < lanes.size(); ++i) report.devices[i].left = lanes.left(i);
}

// What a lane's job took besides verifying, timing (and compiling, on a lane that compiles itself): loading the
// module, setting up the launch, the hand-over to the worker and back.
double framework_ms(const Result& r, double job_s, bool compiled_there) {
  double rest = 1000.0 * job_s - r.verify_ms - r.benchmark_ms - (compiled_there ? r.compile_ms : 0.0);
  return std::isfinite(rest) ? std::max(0.0, rest) : 0.0;
}

// Adds a measured result's verification and timing to the shape's sums.
void add_gpu_time(const Result& r, ShapeReport& report) {
  if (std::isfinite(r.verify_ms)) report.verify_seconds += r.verify_ms / 1000.0;
  if (std::isfinite(r.benchmark_ms)) report.benchmark_seconds += r.benchmark_ms / 1000.0;
}

// Reads the shape's clock into its report: the phases add up to the wall time.
void finish_clock(detail::PhaseClock& clock, ShapeReport& report) {
  const double compile_cpu_s = report.phases.compile_cpu_s;
  report.phases = clock.read();
  report.phases.compile_cpu_s = compile_cpu_s;
  report.seconds = report.phases.wall_s;
}

}  // namespace

Tuner::Tuner(const Device& device, Database& database, TuneOptions options)
    : identity_(device.identity()), limits_(device.limits()), ordinals_{device.ordinal()}, device_(&device),
      database_(database), options_(std::move(options)) {}

Tuner::Tuner(DeviceIdentity identity, DeviceLimits limits, int ordinal, Database& database, TuneOptions options)
    : Tuner(std::move(identity), limits, std::vector<int>{ordinal}, database, std::move(options)) {}

Tuner::Tuner(DeviceIdentity identity, DeviceLimits limits, std::vector<int> ordinals, Database& database,
             TuneOptions options)
    : identity_(std::move(identity)), limits_(limits), ordinals_(std::move(ordinals)), database_(database),
      options_(std::move(options)) {
  if (!options_.isolate) throw InputError("a tuner without a Device object measures in worker processes only");
  if (ordinals_.empty()) throw InputError("a tuner needs at least one GPU");
  if (std::set<int>(ordinals_.begin(), ordinals_.end()).size() != ordinals_.size()) {
    throw InputError("a GPU appears twice in the tuner's list of GPUs");
  }
}

Tuner::~Tuner() = default;

CompilePool& Tuner::compile_pool() {
  if (!pool_) pool_ = std::make_unique<CompilePool>(options_.compile_threads, compile_runners());
  return *pool_;
}

detail::Dispatcher& Tuner::lanes(CubinCache* cache) {
  if (lanes_) return *lanes_;
  std::vector<detail::Dispatcher::LaneFactory> factories;
  if (!options_.isolate) {
    const Device& device = *device_;
    const MeasureOptions measure = options_.measure;
    factories.push_back([&device, measure, cache](std::size_t id, detail::Outbox& outbox) {
      return detail::make_local_lane(id, device.ordinal(),
                                     [&device, measure, cache] { return detail::make_in_process_evaluator(device, measure, cache); },
                                     outbox);
    });
  } else {
    detail::WorkerSettings settings;
    settings.executable = detail::find_worker_executable();
    if (settings.executable.empty()) {
      throw Error("cutune-worker was not found beside this program; set CUTUNE_WORKER to its path, or measure in "
                  "this process (--no-isolate)");
    }
    settings.measure = options_.measure;
    settings.cache_dir = cache != nullptr ? cache->directory().string() : std::string();
    settings.timeout_floor_s = options_.timeout_floor_s;
    for (int ordinal : ordinals_) {
      settings.device = ordinal;
      factories.push_back([settings](std::size_t id, detail::Outbox& outbox) {
        return detail::make_local_lane(id, settings.device, [settings] { return detail::make_worker_evaluator(settings); },
                                       outbox);
      });
    }
  }
  for (const auto& remote : options_.remote_lanes) factories.push_back(remote.make);
  lanes_ = std::make_unique<detail::Dispatcher>(factories);
  return *lanes_;
}

ShapeReport Tuner::tune(const KernelSpec& spec, const Shape& shape) {
  const auto start = Clock::now();
  detail::PhaseClock clock(detail::Phase::Startup, start);
  using detail::Phase;
  using detail::PhaseScope;
  ShapeReport report;
  report.shape = shape;
  // A region that does not fit is the user's error, not every configuration's.
  check_verification(spec, shape, spec.verify_mode(options_.measure.verify));
  const Space space = [&] {
    const auto upcoming = upcoming_.find({&spec, shape.str()});
    if (upcoming == upcoming_.end()) return Space::enumerate(spec, shape, limits_);
    auto future = std::move(upcoming->second);
    upcoming_.erase(upcoming);
    return future.get();
  }().shard(options_.shard);
  report.space_size = space.size();
  const KernelIdentity kernel{spec.name, spec.hash};
  const std::string shape_key = shape.str();
  const std::string arch = identity_.arch();
  // Times of another L2 convention mean something else: resume and the budget see only this one's.
  const L2Flush flush = spec.l2_flush(options_.measure.flush);
  report.flush = flush;

  std::map<std::string, Result> stored;
  {
    const PhaseScope storing(&clock, Phase::Store);
    for (auto& r : database_.results(identity_, kernel, shape_key, flush)) stored.emplace(r.config, std::move(r));
  }
  detail::logger()->info(
      "tuning {} {} on {}: {} valid configurations ({} removed by constraints, {} by device limits, {} by target {}), "
      "{} stored under L2 flush {}",
      spec.name, shape_key, identity_.name, space.size(), space.removed_by_constraints(), space.removed_by_device(),
      space.removed_by_target(), arch, stored.size(), to_string(flush));

  CubinCache* cache_ptr = cache();

  std::optional<Result> best;
  std::map<std::string, Result> results;  // this shape's results, stored and new: the finalists come from here
  Progress progress;
  const std::size_t limit = options_.budget > 0 ? std::min(options_.budget, space.size()) : space.size();
  progress.total = limit;
  report.limit = limit;
  for (int ordinal : ordinals_) report.devices.push_back({ordinal, "GPU " + std::to_string(ordinal), 0, 0.0, {}});
  for (const auto& remote : options_.remote_lanes) report.devices.push_back({-1, remote.name, 0, 0.0, {}});
  const IndexOf index_of = index_by_text(space, spec);
  clock.enter(Phase::Store);  // the prior is read from the database
  const Prior prior = options_.prior ? detail::sibling_prior(database_, identity_, kernel, shape_key, flush, index_of) : Prior{};
  for (const auto& sibling : prior.siblings) {
    detail::logger()->info("prior: {} stored results of this kernel version and shape on {}", sibling.times.size(), sibling.name);
  }
  clock.enter(Phase::Search);
  auto strategy = start_first(make_strategy(options_.strategy, space, options_.seed, prior),
                              with_prior_first(start_indices(spec, options_.start, index_of), prior));
  // What the cubin cache holds. Among candidates it rates about as well, the strategy takes those: a repeated run then
  // compiles little, and a later shape reuses what earlier ones compiled (a configuration's binary does not depend on
  // the shape). The measure loop compiles ahead only what it does not hold.
  std::function<bool(std::size_t)> compiled;
  if (cache_ptr != nullptr) {
    compiled = [cache_ptr, keys = std::make_shared<CubinKeys>(spec, spec.kernel), &space, arch](std::size_t i) {
      return cache_ptr->contains(keys->config_key(space.configs()[i], arch));
    };
    strategy->prefer_ready(compiled);
  }
  auto outcome = [](const Result& r) { return usable(r.status) ? std::optional<double>(r.median_ms) : std::nullopt; };
  auto account = [&](const Result& r, bool resumed) {
    ++progress.done;
    if (resumed) ++report.resumed, ++progress.resumed; else ++report.evaluated;
    if (!usable(r.status)) ++report.failed;
    if (usable(r.status) && (!best || faster(r, *best))) best = r;
    results[r.config] = r;
    if (options_.on_progress) {
      const PhaseScope reporting(&clock, Phase::Other);
      progress.elapsed_s = seconds_since(start);
      progress.last = &r;
      progress.best = best ? &*best : nullptr;
      progress.devices = report.devices;
      options_.on_progress(progress);
    }
  };

  // What is stored counts against the budget, and the strategy hears all of it before it proposes anything, so that
  // a resumed run measures only what is missing and a model-based search continues from what it knows.
  const std::size_t known = observe_stored(index_of, stored, *strategy, [&](const Result& r) { account(r, true); });
  const std::size_t to_measure = limit > known ? limit - known : 0;
  if (to_measure == 0) {
    report.best = best;
    finish_clock(clock, report);
    return report;
  }
  clock.enter(Phase::Store);
  const std::int64_t run = database_.begin_run(identity_, kernel, options_.command, flush);
  clock.enter(Phase::Startup);
  // A usable stored result shows that the reference agrees with some configuration: no early stop then.
  detail::DisagreementWatch watch(best ? 0 : options_.verify_stop_after);
  const VerifyMode verify = spec.verify_mode(options_.measure.verify);

  try {
    detail::Dispatcher& dispatcher = lanes(cache_ptr);  // the workers start while the first compiles run
    dispatcher.take_spans();  // an earlier shape's, should it have ended early
    auto task = std::make_shared<detail::ShapeTask>(detail::ShapeTask{++shapes_, &spec, shape});
    {
      CompilePool& pool = compile_pool();
      // The support and reference kernels go first, into the cache: the workers then find them there instead of
      // compiling them themselves while the GPUs wait.
      std::vector<std::future<CompileOutput>> setup_jobs;
      if (cache_ptr != nullptr && verify != VerifyMode::None) {
        setup_jobs.push_back(pool.submit([&] { return detail::compile_reference_for(cache_ptr, spec, verify, arch); }));
      }
      for (std::size_t part = 0; cache_ptr != nullptr && part < detail::kSupportParts; ++part) {
        setup_jobs.push_back(pool.submit([&, part] {
          detail::cache_support_kernels(arch, cache_ptr, part);
          return CompileOutput{};
        }));
      }
      auto store = [&](const detail::Arrival& a) {
        Result r = a.result;
        const bool compiled_there = dispatcher.lane(a.lane).compiles_itself() && !(a.job.compiled && a.job.compiled->ok);
        r.framework_ms = framework_ms(r, a.measure_s, compiled_there);
        {
          // The strategy hears the outcome first, so that the time it takes counts in the stored result.
          const PhaseScope searching(&clock, Phase::Search);
          const auto told = Clock::now();
          strategy->tell(a.job.index, outcome(r));
          r.search_ms = a.job.search_ms + 1000.0 * seconds_since(told);
        }
        {
          const PhaseScope storing(&clock, Phase::Store);
          database_.record(run, shape_key, r);
        }
        detail::logger()->debug("{} {} on {}: {} {:.4f} ms ({} runs)", spec.name, r.config,
                                dispatcher.lane(a.lane).name(), to_string(r.status), r.median_ms, r.samples_ms.size());
        note_lanes_left(dispatcher, report);
        ++report.devices[a.lane].measured;
        report.devices[a.lane].measure_seconds += a.measure_s;
        report.measure_seconds += a.measure_s;
        add_gpu_time(r, report);
        account(r, false);
        if (watch.hear(r)) report.verify_stop = watch.message(detail::reference_choice(spec, verify).name);
      };
      detail::MeasureLoop loop{dispatcher, *strategy, pool, cache_ptr, arch, task, space, to_measure,
                               [&] { return options_.time_budget_s > 0 && seconds_since(start) >= options_.time_budget_s; },
                               [&] { return best ? best->median_ms : 0.0; }, store,
                               [&] { return watch.stopped(); }, &clock, compiled};
      clock.enter(Phase::Other);
      detail::measure_proposals(loop, setup_jobs, report);
    }
    report.idle_seconds = dispatcher.idle_seconds();
    retime_finalists(spec, task, results, run, report, best, clock);
    report.best = best;
    if (spec.metric.kind == Metric::Kind::Bytes) {
      detail::Job copy;
      copy.kind = detail::Job::Kind::CopyBandwidth;
      copy.task = task;
      // A copy moves each byte twice (read + write), as the metric counts a kernel's reads and writes.
      copy.bytes = static_cast<std::int64_t>(spec.metric_amount(shape) / 2);
      const PhaseScope waiting(&clock, Phase::Waiting);
      report.copy_gbs = dispatcher.run_first(std::move(copy)).gbs;
    }
    note_lanes_left(dispatcher, report);
    clock.add(dispatcher.take_spans());
  } catch (...) {
    pool_.reset();   // compiles may still run, and post to the lanes' outbox
    lanes_.reset();  // jobs may still be in flight: a later shape starts with fresh lanes
    throw;
  }
  finish_clock(clock, report);
  database_.finish_run(run, report.phases);
  return report;
}

const detail::NvrtcRunnerFactory& Tuner::compile_runners() {
  if (compile_runners_chosen_) return compile_runners_;
  compile_runners_chosen_ = true;
  const unsigned usable = usable_cpus(), machine = std::thread::hardware_concurrency();
  if (options_.compile_threads == 0 && usable < machine) {
    detail::logger()->warn(
        "compiling on {} thread{}: this process may run on {} of the machine's {} CPUs (its affinity: an MPI launcher "
        "binds each rank to a core or socket by default); `mpirun --bind-to none`, or a larger cpuset, lets compiles "
        "use more",
        usable, usable == 1 ? "" : "s", usable, machine);
  }
  if (options_.compile_processes) compile_runners_ = detail::compiler_processes_if_found();
  return compile_runners_;
}

CubinCache* Tuner::cache() {
  if (options_.use_cache && !cache_) {
    cache_ = std::make_unique<CubinCache>(options_.cache_dir.empty() ? CubinCache::default_directory()
                                                                     : std::filesystem::path(options_.cache_dir));
  }
  return cache_.get();
}

void Tuner::expect(const KernelSpec& spec, const std::vector<Shape>& shapes) {
  // The workers start now too (a process and a CUDA context each, about half a second), while the first shape
  // enumerates its space and reads the database. What fails here fails again, in its place, in tune().
  try {
    if (!shapes.empty()) lanes(cache());
  } catch (const std::exception&) {
    pool_.reset();
    lanes_.reset();
  }
  for (const Shape& shape : shapes) {
    auto& slot = upcoming_[{&spec, shape.str()}];
    if (!slot.valid()) {
      slot = std::async(std::launch::async, [&spec, shape, limits = limits_] {
        return Space::enumerate(spec, shape, limits);
      });
    }
  }
}

// Re-times the finalists with more runs on the first GPU, so that the winner is not decided by a short or lucky
// measurement and the finalists' times compare on one device; goes on while a configuration that was not re-timed
// has a median below the re-timed best, so that the winner is also the fastest configuration stored.
void Tuner::retime_finalists(const KernelSpec& spec, const std::shared_ptr<const detail::ShapeTask>& task,
                             const std::map<std::string, Result>& results, std::int64_t run, ShapeReport& report,
                             std::optional<Result>& best, detail::PhaseClock& clock) {
  using detail::Phase;
  using detail::PhaseScope;
  if (report.evaluated == 0 || options_.final_candidates <= 0) return;
  std::vector<Result> ranked;
  for (const auto& [config, r] : results)
    if (usable(r.status)) ranked.push_back(r);
  std::sort(ranked.begin(), ranked.end(), faster);
  best.reset();
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    if (i >= static_cast<std::size_t>(options_.final_candidates) && best && !faster(ranked[i], *best)) break;
    if (stop_requested()) throw Interrupted("interrupted");
    detail::Job job;
    job.kind = detail::Job::Kind::Retime;
    job.task = task;
    job.config = spec.parse_config(ranked[i].config);
    {
      const PhaseScope compiling(&clock, Phase::CompileWait);  // no GPU measures meanwhile
      job.compiled = compile_config_cached(cache_.get(), spec, job.config, identity_.arch());
    }
    job.repeats = options_.final_repeats;
    detail::LaneOutcome done;
    {
      const PhaseScope waiting(&clock, Phase::Waiting);
      done = lanes_->run_first(std::move(job));
    }
    Result& r = *done.result;
    r.framework_ms = framework_ms(r, done.measure_s, lanes_->lane(done.lane).compiles_itself());
    r.search_ms = 0.0;  // an evaluation of its own (it replaces this run's first one), which no strategy proposed
    report.measure_seconds += done.measure_s;
    add_gpu_time(r, report);
    {
      const PhaseScope storing(&clock, Phase::Store);
      database_.record(run, task->shape.str(), r);
    }
    ++report.retimed;
    if (usable(r.status) && (!best || faster(r, *best))) best = r;
  }
}

}  // namespace cutune
