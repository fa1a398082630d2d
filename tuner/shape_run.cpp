// One shape's tuning, step by step: space, stored results, strategy, resume, measure, re-time, store the run.
#include "tuner/shape_run.hpp"

#include <algorithm>
#include <cmath>

#include "cutune/lazy_space.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"
#include "cutune/launch_inputs.hpp"
#include "cutune/library.hpp"
#include "cutune/start_positions.hpp"
#include "driver/cublaslt.hpp"
#include "driver/cublaslt_space.hpp"
#include "measure/workbench.hpp"
#include "base/log.hpp"
#include "tuner/dispatch.hpp"
#include "tuner/sibling_prior.hpp"
#include "tuner/tuner_resources.hpp"

namespace cutune::detail {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The space's configurations by their text.
std::unordered_map<std::string, std::size_t> index_by_text(const Space& space, const KernelSpec& spec) {
  std::unordered_map<std::string, std::size_t> index_of;
  index_of.reserve(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) index_of.emplace(spec.format(space.configs()[i]), i);
  return index_of;
}


// The stored configurations whose process was killed from outside (Interrupted), in configuration order, then `then`:
// a resume measures those first, so that a budget smaller than the space still reaches them.
std::vector<std::size_t> interrupted_first(const std::map<std::string, Result>& stored,
                                           const std::unordered_map<std::string, std::size_t>& index_of,
                                           const std::vector<std::size_t>& then) {
  std::vector<std::size_t> first;
  for (const auto& [config, r] : stored) {
    const auto it = index_of.find(config);
    if (r.status == Status::Interrupted && it != index_of.end()) first.push_back(it->second);
  }
  first.insert(first.end(), then.begin(), then.end());  // start_first() asks a repeat once
  return first;
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

}  // namespace

// The order of Database::best (median, then configuration text), so that the tuner's winner is the stored best
// also when medians tie (short kernels: event timings come in steps of about half a microsecond).
// Verified results outrank unverified ones, as they do there.
bool faster(const Result& a, const Result& b) {
  if ((a.status == Status::Ok) != (b.status == Status::Ok)) return a.status == Status::Ok;
  return a.median_ms < b.median_ms || (a.median_ms == b.median_ms && a.config < b.config);
}

std::optional<double> outcome(const Result& r) {
  return usable(r.status) ? std::optional<double>(r.median_ms) : std::nullopt;
}

ShapeRun::ShapeRun(TunerResources& tuner, const KernelSpec& spec, const Shape& shape, std::optional<std::size_t> budget,
                   std::size_t compile_ahead)
    : tuner_(tuner), options_(tuner.options()), budget_limit_(budget.value_or(options_.budget)),
      compile_ahead_(compile_ahead),
      database_(tuner.database()), spec_(spec), shape_(shape),
      start_(Clock::now()), clock_(Phase::Startup, start_), space_(checked_space()), kernel_{spec.name, spec.hash},
      shape_key_(shape.str()), arch_(tuner.identity().arch()), flush_(spec.l2_flush(options_.measure.flush)),
      verify_(spec.verify_mode(options_.measure.verify)) {
  report_.shape = shape;
  report_.space_size = space_.size();
  report_.flush = flush_;
}

// A region that does not fit is the user's error, not every configuration's: it is said before the space is made.
Space ShapeRun::checked_space() {
  check_verification(spec_, shape_, spec_.verify_mode(options_.measure.verify));
  Space whole = tuner_.tuning_space_of(spec_, shape_);
  if (spec_.library) {
    // A cuBLASLt family: what cuBLASLt does not run at this shape (ranks past the heuristic's last answer; for a
    // configuration family its capabilities on this device and cublasLtMatmulAlgoCheck) is removed here, as device
    // limits are; a configuration from outside the space (the sample's growth, a stored one) that it refuses is a
    // launch error of its own, found by the measurement.
    std::string why;
    if (const auto runs = library_filter(spec_, shape_, why)) {
      whole = whole.where_runs(runs);
    } else {
      logger()->warn("{} {}: what cuBLASLt runs is unknown, every combination is measured: {}", spec_.name, shape_.str(), why);
    }
  }
  if (whole.sample_of() > 0) growth_.emplace(spec_, shape_, tuner_.limits(), whole, options_.shard);
  return whole.shard(options_.shard);
}

ShapeReport ShapeRun::run() {
  const Clock::time_point spaced = Clock::now();
  read_stored();
  cache_ = tuner_.cache();
  const Clock::time_point stored = Clock::now();
  plan();
  const Clock::time_point planned = Clock::now();
  start_strategy();
  const Clock::time_point started = Clock::now();
  // What is stored counts against the budget, and the strategy hears all of it before it proposes anything, so that
  // a resumed run measures only what is missing and a model-based search continues from what it knows.
  budget_.count_stored(resume());
  logger()->debug("{} {}: space {:.3f} s, stored results {:.3f} s, plan {:.3f} s, strategy {:.3f} s, resume {:.3f} s",
                  spec_.name, shape_key_, seconds_since(start_) - seconds_since(spaced),
                  seconds_since(spaced) - seconds_since(stored), seconds_since(stored) - seconds_since(planned),
                  seconds_since(planned) - seconds_since(started), seconds_since(started));
  if (budget_.to_measure() == 0) {
    report_.best = best_;
    finish_clock();
    keep_search();
    return std::move(report_);
  }
  tune_on_gpus();
  finish_clock();
  database_.finish_run(db_run_id_, report_.phases);
  keep_search();
  return std::move(report_);
}

void ShapeRun::read_stored() {
  {
    const PhaseScope storing(&clock_, Phase::Store);
    for (auto& r : database_.results(tuner_.identity(), kernel_, shape_key_, flush_)) stored_.emplace(r.config, std::move(r));
  }
  if (space_.sample_of() > 0) {
    logger()->info("tuning {} {} on {}: a uniform sample of {} of about {} valid configurations ({} combinations), {} "
                   "stored under L2 flush {}",
                   spec_.name, shape_key_, tuner_.identity().name, space_.size(), count_text(space_.sample_of()),
                   space_.cartesian_size(), stored_.size(), to_string(flush_));
    return;
  }
  logger()->info(
      "tuning {} {} on {}: {} valid configurations ({} removed by constraints, {} by device limits, {} by target {}), "
      "{} stored under L2 flush {}",
      spec_.name, shape_key_, tuner_.identity().name, space_.size(), space_.removed_by_constraints(),
      space_.removed_by_device(), space_.removed_by_target(), arch_, stored_.size(), to_string(flush_));
}

// The shape's configurations by their text (a sample with what it lacks added), its budget and its GPUs.
void ShapeRun::plan() {
  if (!growth_) strategy_ = tuner_.take_search(spec_, shape_, space_.size());  // a sample's space changes as it grows
  index_of_ = strategy_ ? std::move(strategy_->index_of()) : index_by_text(space_, spec_);
  if (!strategy_ && spec_.library && spec_.library->algo) {
    std::string why;
    library_start_ = heuristic_start(spec_, shape_, kHeuristicStart, why);
    if (!why.empty()) logger()->warn("{} {}: no start from cuBLASLt's heuristic: {}", spec_.name, shape_key_, why);
  }
  if (growth_) add_outside_sample();
  budget_ = Budget(budget_limit_, space_.size());
  progress_.total = budget_.limit();
  report_.limit = budget_.limit();
  for (int ordinal : tuner_.ordinals()) report_.devices.push_back({ordinal, "GPU " + std::to_string(ordinal), 0, 0.0, {}});
  for (const auto& remote : options_.remote_lanes) report_.devices.push_back({-1, remote.name, 0, 0.0, {}});
}

// What other GPUs measured of this kernel version and shape, for the configurations of the space as it is now.
Prior ShapeRun::read_prior() {
  const PhaseScope storing(&clock_, Phase::Store);
  return options_.prior ? sibling_prior(database_, tuner_.identity(), kernel_, shape_key_, flush_, index_of_) : Prior{};
}

// The strategy over the space as it is now, given the prior and what the launch geometry says of each configuration
// (units of work, waves over this GPU's SMs, how full they keep it): the default strategy draws its initial design
// from the launches that keep it busiest.
std::unique_ptr<Strategy> ShapeRun::fresh_strategy(const Prior& prior) {
  const PhaseScope searching(&clock_, Phase::Search);
  const Clock::time_point start = Clock::now();
  const SearchInputs inputs = launch_inputs(spec_, space_.configs(), shape_, tuner_.limits());
  const double inputs_s = seconds_since(start);
  std::unique_ptr<Strategy> strategy = make_strategy(options_.strategy, space_, options_.seed, prior, inputs);
  logger()->debug("{} {}: launch inputs {:.3f} s, the strategy made in {:.3f} s", spec_.name, shape_key_, inputs_s,
                  seconds_since(start) - inputs_s);
  return strategy;
}

// The search an earlier call at the shape left goes on; else a fresh one starts with the configurations to measure
// first.
void ShapeRun::start_strategy() {
  if (!strategy_) {
    const Prior prior = read_prior();
    for (const auto& sibling : prior.siblings) {
      logger()->info("prior: {} stored results of this kernel version and shape on {}", sibling.times.size(), sibling.name);
    }
    clock_.enter(Phase::Search);
    strategy_ = std::make_unique<KeptSearch>(
        start_first(fresh_strategy(prior),
                    interrupted_first(stored_, index_of_,
                                      with_prior_first(start_positions(spec_, start_configs(), index_of_), prior))),
        space_.size());
  }
  clock_.enter(Phase::Search);
  // What the cubin cache holds. Among candidates it rates about as well, the strategy takes those: a repeated run then
  // compiles little, and a later shape reuses what earlier ones compiled (a configuration's binary does not depend on
  // the shape, unless it is shape-specialized). The measure loop compiles ahead only what it does not hold.
  if (cache_ != nullptr) {
    compiled_ = [cache = cache_, keys = std::make_shared<CubinKeys>(spec_, spec_.kernel), &space = space_, arch = arch_,
                 &shape = shape_](std::size_t i) {
      return cache->contains(keys->config_key(space.configs()[i], arch, &shape));
    };
    strategy_->prefer_ready(compiled_);
  }
}

// The search goes back to the tuner for a later call at the shape, with the configurations' positions.
void ShapeRun::keep_search() {
  if (growth_ || !strategy_) return;
  strategy_->prefer_ready({});  // what it holds refers to this call's space
  strategy_->index_of() = std::move(index_of_);
  tuner_.keep_search(spec_, shape_, std::move(strategy_));
}

// Tells the strategy every stored outcome of a configuration in the space that it has not heard (a search kept from
// an earlier call heard that call's), in configuration order (a resumed search is deterministic), and counts each; returns how many there were. Stored configurations outside the space (another
// --where, other device limits) are left out: the strategy could not propose them. So are interrupted ones (killed
// from outside, which says nothing of them): the strategy may propose them again, and the budget has them to spend.
std::size_t ShapeRun::resume() {
  std::size_t known = 0;
  for (const auto& [config, r] : stored_) {
    const auto it = index_of_.find(config);
    if (it == index_of_.end() || r.status == Status::Interrupted) continue;
    if (!strategy_->knows(it->second)) strategy_->observe(it->second, outcome(r));  // a kept search heard the rest
    account(r, true);
    ++known;
  }
  return known;
}

void ShapeRun::tune_on_gpus() {
  clock_.enter(Phase::Store);
  DeviceIdentity identity = tuner_.identity();
  if (spec_.library) identity.library_version = cublaslt_version();  // the library's results depend on its version
  db_run_id_ = database_.begin_run(identity, kernel_, options_.command, flush_);
  clock_.enter(Phase::Startup);
  stop_.join(budget_rule(budget_)).join(time_rule(options_.time_budget_s, start_));
  // A usable stored result shows that the reference agrees with some configuration: no early stop then.
  stop_.join(verification_rule(best_ ? 0 : options_.verify_stop_after, spec_, verify_)).join(interrupt_rule());
  try {
    Dispatcher& dispatcher = tuner_.dispatcher(cache_);  // the workers start while the first compiles run
    measure_and_retime(dispatcher);
  } catch (...) {
    tuner_.drop_dispatcher();  // jobs may still be in flight: a later shape starts with a fresh one
    throw;
  }
}

void ShapeRun::measure_and_retime(Dispatcher& dispatcher) {
  dispatcher_ = &dispatcher;
  stop_.join(no_lane_rule(dispatcher));
  dispatcher.take_spans();  // an earlier shape's, should it have ended early
  auto task = std::make_shared<ShapeTask>(ShapeTask{tuner_.next_shape_id(), &spec_, shape_, flush_});
  {
    std::vector<std::future<CompileOutput>> setup_jobs = start_setup(tuner_.compile_pool());
    clock_.enter(Phase::Other);
    search_rounds(dispatcher, task, setup_jobs);
  }
  report_.idle_seconds = dispatcher.idle_seconds();
  retime_finalists(task);
  report_.best = best_;
  if (spec_.metric.kind == Metric::Kind::Bytes) measure_copy_bandwidth(dispatcher, task);
  note_lanes_left(dispatcher);
  clock_.add(dispatcher.take_spans());
}

// The support and reference kernels go first, into the cache: the workers then find them there instead of compiling
// them themselves while the GPUs wait.
std::vector<std::future<CompileOutput>> ShapeRun::start_setup(CompilePool& pool) {
  std::vector<std::future<CompileOutput>> jobs;
  if (cache_ != nullptr && verify_ != VerifyMode::None) {
    jobs.push_back(pool.submit([this] { return compile_reference_for(cache_, spec_, verify_, arch_, shape_); }));
  }
  for (std::size_t part = 0; cache_ != nullptr && part < kSupportParts; ++part) {
    jobs.push_back(pool.submit([this, part] {
      cache_support_kernels(arch_, cache_, part);
      return CompileOutput{};
    }));
  }
  return jobs;
}

double ShapeRun::best_ms() const { return best_ ? best_->median_ms : 0.0; }

bool ShapeRun::compiled(std::size_t index) const { return compiled_(index); }

void ShapeRun::arrived(const Arrival& a) {
  Dispatcher& dispatcher = *dispatcher_;
  Result r = a.result;
  const bool compiled_there = dispatcher.lane(a.lane).compiles_itself() && !(a.job.compiled && a.job.compiled->ok);
  r.framework_ms = framework_ms(r, a.measure_s, compiled_there);
  {
    // The strategy hears the outcome first, so that the time it takes counts in the stored result.
    const PhaseScope searching(&clock_, Phase::Search);
    const auto told = Clock::now();
    strategy_->tell(a.job.index, outcome(r));
    r.search_ms = a.job.search_ms + 1000.0 * seconds_since(told);
  }
  {
    const PhaseScope storing(&clock_, Phase::Store);
    database_.record(db_run_id_, shape_key_, r);
  }
  logger()->debug("{} {} on {}: {} {:.4f} ms ({} runs)", spec_.name, r.config, dispatcher.lane(a.lane).name(),
                  to_string(r.status), r.median_ms, r.samples_ms.size());
  note_lanes_left(dispatcher);
  ++report_.devices[a.lane].measured;
  report_.devices[a.lane].measure_seconds += a.measure_s;
  report_.measure_seconds += a.measure_s;
  add_gpu_time(r, report_);
  account(r, false);
  if (const StopRule* decided = stop_.hear(r)) report_.verify_stop = decided->why();
}

void ShapeRun::account(const Result& r, bool resumed) {
  ++progress_.done;
  if (resumed) ++report_.resumed, ++progress_.resumed; else ++report_.evaluated;
  if (r.status == Status::Interrupted) {
    ++report_.interrupted;
  } else if (!usable(r.status)) {
    ++report_.failed;
  }
  if (usable(r.status) && (!best_ || faster(r, *best_))) best_ = r;
  results_[r.config] = r;
  if (options_.on_progress) {
    const PhaseScope reporting(&clock_, Phase::Other);
    progress_.elapsed_s = seconds_since(start_);
    progress_.last = &r;
    progress_.best = best_ ? &*best_ : nullptr;
    progress_.devices = report_.devices;
    options_.on_progress(progress_);
  }
}

// Re-times the finalists with more runs on the first GPU, so that the winner is not decided by a short or lucky
// measurement and the finalists' times compare on one device; goes on while a configuration that was not re-timed
// has a median below the re-timed best, so that the winner is also the fastest configuration stored.
void ShapeRun::retime_finalists(const std::shared_ptr<const ShapeTask>& task) {
  if (report_.evaluated == 0 || options_.final_candidates <= 0) return;
  std::vector<Result> ranked;
  for (const auto& [config, r] : results_)
    if (usable(r.status)) ranked.push_back(r);
  std::sort(ranked.begin(), ranked.end(), faster);
  best_.reset();
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    if (i >= static_cast<std::size_t>(options_.final_candidates) && best_ && !faster(ranked[i], *best_)) break;
    if (const StopRule* interrupt = stop_.check(StopEffect::Interrupt)) interrupt->end();
    retime(ranked[i], task);
  }
}

void ShapeRun::retime(const Result& finalist, const std::shared_ptr<const ShapeTask>& task) {
  Job job;
  job.kind = Job::Kind::Retime;
  job.task = task;
  job.config = spec_.parse_config(finalist.config);
  {
    const PhaseScope compiling(&clock_, Phase::CompileWait);  // no GPU measures meanwhile
    job.compiled = compile_config_cached(cache_, spec_, job.config, arch_, &shape_);
  }
  job.repeats = options_.final_repeats;
  LaneOutcome done;
  {
    const PhaseScope waiting(&clock_, Phase::Waiting);
    done = dispatcher_->run_first(std::move(job));
  }
  Result& r = *done.result;
  if (r.status == Status::Interrupted) {
    // Its worker was killed from outside twice: the finalist keeps the result of its first measurement.
    logger()->warn("{}: not re-timed: {}", r.config, r.message);
    if (!best_ || faster(finalist, *best_)) best_ = finalist;
    return;
  }
  r.framework_ms = framework_ms(r, done.measure_s, dispatcher_->lane(done.lane).compiles_itself());
  r.search_ms = 0.0;  // an evaluation of its own (it replaces this run's first one), which no strategy proposed
  report_.measure_seconds += done.measure_s;
  add_gpu_time(r, report_);
  {
    const PhaseScope storing(&clock_, Phase::Store);
    database_.record(db_run_id_, task->shape.str(), r);
  }
  ++report_.retimed;
  if (usable(r.status) && (!best_ || faster(r, *best_))) best_ = r;
}

void ShapeRun::measure_copy_bandwidth(Dispatcher& dispatcher, const std::shared_ptr<const ShapeTask>& task) {
  Job copy;
  copy.kind = Job::Kind::CopyBandwidth;
  copy.task = task;
  // A copy moves each byte twice (read + write), as the metric counts a kernel's reads and writes.
  copy.bytes = static_cast<std::int64_t>(spec_.metric_amount(shape_) / 2);
  const PhaseScope waiting(&clock_, Phase::Waiting);
  report_.copy_gbs = dispatcher.run_first(std::move(copy)).gbs;
}

// Copies why GPUs left the run into the report, for the progress line and the per-GPU summary.
void ShapeRun::note_lanes_left(const Dispatcher& dispatcher) {
  for (std::size_t i = 0; i < dispatcher.size(); ++i) report_.devices[i].left = dispatcher.left(i);
}

// Reads the shape's clock into its report: the phases add up to the wall time.
void ShapeRun::finish_clock() {
  const double compile_cpu_s = report_.phases.compile_cpu_s;
  report_.phases = clock_.read();
  report_.phases.compile_cpu_s = compile_cpu_s;
  report_.seconds = report_.phases.wall_s;
  const PhaseTimes& p = report_.phases;
  logger()->debug("{} {}: {} measured in {:.3f} s: start-up {:.3f}, waiting for compiles {:.3f}, measuring {:.3f}, "
                  "searching {:.3f}, storing {:.3f}, other {:.3f}",
                  spec_.name, shape_key_, report_.evaluated, p.wall_s, p.startup_s, p.compile_wait_s, p.measure_s,
                  p.search_s, p.store_s, p.other_s);
}

}  // namespace cutune::detail
