// A round of a shape's search keeps every lane busy: the strategy proposes, the pool compiles, idle lanes measure.
#include "tuner/measure_loop.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <optional>
#include <unordered_set>
#include <utility>

#include "cutune/cubin_cache.hpp"
#include "base/log.hpp"
#include "measure/workbench.hpp"

namespace cutune::detail {
namespace {

// Long enough not to spin, short enough that a stop request or a time budget is noticed at once.
constexpr std::chrono::milliseconds kWait{100};

// Compiles one configuration on the pool; the job posts its kernel to the outbox itself, so that the main thread
// wakes for a finished compile as it does for a lane's result. A compile ahead of the strategy may outlive the shape:
// it holds its own spec (`own`) and configuration.
void submit_compile(const RoundInputs& m, std::size_t index, double search_ms,
                    std::shared_ptr<const KernelSpec> own = nullptr) {
  const bool speculative = own != nullptr;
  const VerifyMode verify = (own ? *own : *m.task->spec).verify_mode(m.options.measure.verify);
  std::function<CompileOutput()> job = [own, &spec = own ? *own : *m.task->spec, config = m.space.configs()[index],
                                        arch = m.arch, cache = m.cache, &outbox = m.dispatcher.outbox(), index, search_ms,
                                        shape = m.task->id, speculative, extents = m.task->shape, verify] {
    Compiled c;
    c.index = index;
    c.search_ms = search_ms;
    c.shape = shape;
    c.speculative = speculative;
    try {
      c.output = compile_config_cached(cache, spec, config, arch, &extents);
      // A reference that follows this configuration's parameters goes into the cache too, compiled here in parallel
      // rather than by the worker while its GPU waits.
      if (cache != nullptr && c.output.ok && !spec.reference_follow.empty() && verify != VerifyMode::None) {
        (void)compile_reference_for(cache, spec, verify, arch, extents, &config);
      }
    } catch (...) {
      c.error = std::current_exception();
    }
    outbox.post(std::move(c));
    return CompileOutput{};
  };
  // What the strategy asked for goes first: a compile ahead of it waits for a spare thread.
  if (speculative) {
    m.pool.submit_spare(std::move(job));
  } else {
    m.pool.submit(std::move(job));
  }
}

// The best median among what is known and what just arrived: the next job's early-stop reference.
double best_with(double best_ms, const std::vector<Arrival>& arrived) {
  for (const auto& a : arrived)
    if (usable(a.result.status) && (best_ms <= 0.0 || a.result.median_ms < best_ms)) best_ms = a.result.median_ms;
  return best_ms;
}

// Asks the strategy for up to `n` configurations on the clock's Search phase; each one's share of that time, ms.
std::pair<std::vector<std::size_t>, double> ask(const RoundInputs& m, std::size_t n) {
  const PhaseScope searching(m.clock, Phase::Search);
  const auto start = std::chrono::steady_clock::now();
  auto indices = m.strategy.ask(n);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double share = indices.empty() ? 0.0 : ms / static_cast<double>(indices.size());
  return {std::move(indices), share};
}

// A job that evaluates the configuration `index`; the caller adds its binary when the pool compiled it.
Job evaluate_job(const RoundInputs& m, std::size_t index, double search_ms) {
  Job job;
  job.task = m.task;
  job.index = index;
  job.config = m.space.configs()[index];
  job.search_ms = search_ms;
  return job;
}

// One round's pipeline: what is asked, compiling, ready for a lane and arrived, and the steps that move
// configurations from one to the next.
class RoundPipeline {
 public:
  RoundPipeline(const RoundInputs& m, std::vector<std::future<CompileOutput>>& setup, ShapeReport& report)
      : m_(m), dispatcher_(m.dispatcher), setup_(setup), report_(report), threads_(m.pool.threads()),
        lookahead_(compiles_here() > 0 ? 2 * threads_ + dispatcher_.size() : 0),
        reserve_(std::min(dispatcher_.size() + 1, threads_ / 4)) {}

  void run() {
    for (;;) {
      give_up_if_stopped();
      top_up();
      if (drained()) break;
      end_if(StopEffect::Interrupt);
      finish_setup();
      hand_out();
      changed_ = changed_ || !arrived_.empty();
      hear();
      top_up();
      if (setup_done_) speculate();
      collect();
      end_if(StopEffect::NoLane);
    }
    for (const auto& a : arrived_) m_.events.arrived(a);
  }

 private:
  // Enough compiles under way to keep every core busy and give every lane its next job, without running far ahead of
  // the strategy (which learns from each result). Lanes that can compile for themselves (remote ranks) count too:
  // they take what the pool compiled (its binary travels with the job) and compile for themselves only when nothing
  // is ready, so that their GPUs do not wait on one compile at a time while this rank's cores have compiled ones.
  std::size_t compiles_here() const {
    std::size_t local = 0;
    for (std::size_t i = 0; i < dispatcher_.size(); ++i) local += !dispatcher_.lane(i).compiles_itself();
    return local;
  }

  // Proposals the strategy may make now. An adaptive strategy says how many of its proposals may wait for outcomes at
  // once (Strategy::ahead()); the threads that leaves idle compile what it is likely to propose next (speculate()).
  std::size_t room() const {
    const std::size_t waiting = compiling_ + ready_.size() + dispatcher_.in_flight() + arrived_.size();
    const std::size_t ahead = std::max(m_.strategy.ahead(), dispatcher_.size());
    return std::min(lookahead_ > compiling_ + ready_.size() ? lookahead_ - compiling_ - ready_.size() : 0,
                    ahead > waiting ? ahead - waiting : 0);
  }

  bool asking_over() const { return m_.stop.check(StopEffect::Asking) != nullptr; }

  void top_up() {
    ask_beyond();
    while (!exhausted_ && room() > 0) {
      if (asking_over()) {
        exhausted_ = true;
        break;
      }
      const auto [indices, search_ms] = ask(m_, std::min(room(), m_.budget.may_ask()));
      if (indices.empty()) {
        exhausted_ = strategy_done_ = true;
        break;
      }
      m_.budget.asked(indices.size());
      for (std::size_t index : indices) {
        submit_compile(m_, index, search_ms);
        ++compiling_;
      }
      changed_ = true;
    }
  }

  // Once the round has asked its share, what a later call at the shape will measure first (RoundInputs::ask_ahead) is
  // asked and compiled into the cubin cache, as far as the strategy's lookahead allows: that call then finds it
  // compiled, or waits for the compile under way (CubinCache::load_or_compile) instead of starting another.
  void ask_beyond() {
    if (!exhausted_ || strategy_done_ || given_up_ || m_.cache == nullptr || !m_.ask_ahead || m_.budget.may_ask() > 0)
      return;
    const std::size_t waiting = compiling_ + ready_.size() + dispatcher_.in_flight() + arrived_.size() + beyond_;
    const std::size_t ahead = std::max(m_.strategy.ahead(), dispatcher_.size());
    const std::size_t n = std::min(m_.compile_beyond - beyond_, ahead > waiting ? ahead - waiting : 0);
    if (n == 0) return;
    std::vector<std::size_t> indices;
    {
      const PhaseScope searching(m_.clock, Phase::Search);
      indices = m_.ask_ahead(n);
    }
    if (indices.empty()) strategy_done_ = true;
    for (std::size_t index : indices) {
      if (!own_spec_) own_spec_ = std::make_shared<const KernelSpec>(*m_.task->spec);
      submit_compile(m_, index, 0.0, own_spec_);
      ++speculating_;
      ++beyond_;
    }
  }

  // One proposal for a lane that compiles it itself.
  std::optional<std::pair<std::size_t, double>> ask_one() {
    if (!exhausted_ && asking_over()) exhausted_ = true;
    if (exhausted_) return std::nullopt;
    const auto [indices, search_ms] = ask(m_, 1);
    if (indices.empty()) {
      exhausted_ = strategy_done_ = true;
      return std::nullopt;
    }
    m_.budget.asked(1);
    return std::pair{indices.front(), search_ms};
  }

  // Spare compile threads compile what the strategy is likely to propose into the cubin cache, where prefer_ready()
  // lets it take them; a few threads stay free for its proposals. Not while fewer proposals are left to make than
  // there are threads: a compile still running when the tuner ends is waited for (the pool outlives the shape, so the
  // next shape does not wait for it, but it holds a thread).
  void speculate() {
    if (m_.cache == nullptr || !changed_ || exhausted_ || m_.budget.may_ask() < threads_) return;
    changed_ = false;
    if (compiling_ + speculating_ + reserve_ >= threads_) return;
    const PhaseScope searching(m_.clock, Phase::Search);
    for (std::size_t index : m_.strategy.upcoming(4 * threads_)) {
      if (compiling_ + speculating_ + reserve_ >= threads_) break;
      if (!speculated_.insert(index).second || m_.events.compiled(index)) continue;
      if (!own_spec_) own_spec_ = std::make_shared<const KernelSpec>(*m_.task->spec);
      submit_compile(m_, index, 0.0, own_spec_);
      ++speculating_;
      ++report_.compiled_ahead;
    }
  }

  void give_up_if_stopped() {
    if (given_up_ || !m_.stop.check(StopEffect::GivingUp)) return;
    given_up_ = exhausted_ = true;
    ready_.clear();
  }

  // Whether nothing is left to ask, compile or measure. Crashes a lane still holds get a second opinion on another
  // lane before they count as the configurations'.
  bool drained() {
    if (!exhausted_ || compiling_ != 0 || !ready_.empty() || !dispatcher_.returned().empty() || dispatcher_.in_flight() != 0)
      return false;
    for (auto& a : dispatcher_.release_held(true)) arrived_.push_back(std::move(a));
    return dispatcher_.returned().empty();
  }

  // What was measured is stored like every other result before the rule ends the shape: on an interrupt, what lanes
  // hold back too; when the last lane left, its held-back failures came with its outcome, as a one-GPU run stores them.
  void end_if(StopEffect effect) {
    const StopRule* rule = m_.stop.check(effect);
    if (!rule) return;
    for (const auto& a : arrived_) m_.events.arrived(a);
    if (effect == StopEffect::Interrupt)
      for (const auto& a : dispatcher_.release_held(false)) m_.events.arrived(a);
    rule->end();
  }

  // The lanes' preparation reads the set-up compiles from the cache.
  void finish_setup() {
    if (setup_done_) return;
    const PhaseScope starting(m_.clock, Phase::Startup);
    const auto start = std::chrono::steady_clock::now();
    for (auto& job : setup_) job.get();
    if (!setup_.empty()) {
      logger()->debug("{}: the set-up compiles held the lanes back {:.3f} s", m_.task->spec->name,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    setup_.clear();
    setup_done_ = true;
    dispatcher_.start_idle_clock();
  }

  // Lanes get their next job before the results that freed them are stored, so that the GPUs measure while the
  // database commits and the strategy learns.
  void hand_out() {
    const double best_ms = best_with(m_.events.best_ms(), arrived_);
    for (std::size_t lane : dispatcher_.idle_lanes()) {
      auto job = next_job(lane);
      if (!job) continue;  // another idle lane may take a second opinion this one may not
      job->best_ms = best_ms;
      dispatcher_.give(lane, std::move(*job));
    }
  }

  // Jobs of a lane that left go first, then compiles as they finished; a lane that compiles itself takes these too,
  // rather than leave them behind, and asks the strategy itself when nothing is ready.
  std::optional<Job> next_job(std::size_t lane) {
    auto& back = dispatcher_.returned();
    const auto fits = std::find_if(back.begin(), back.end(), [lane](const Job& j) { return j.avoid_lane != lane; });
    if (fits != back.end()) {
      Job job = std::move(*fits);
      back.erase(fits);
      return job;
    }
    if (!ready_.empty()) {
      Compiled& c = ready_.front();
      Job job = evaluate_job(m_, c.index, c.search_ms);
      job.compiled = std::move(c.output);
      ready_.pop_front();
      return job;
    }
    if (!dispatcher_.lane(lane).compiles_itself()) return std::nullopt;
    const auto asked_one = ask_one();
    if (!asked_one) return std::nullopt;
    return evaluate_job(m_, asked_one->first, asked_one->second);
  }

  void hear() {
    for (const auto& a : arrived_) m_.events.arrived(a);
    arrived_.clear();
  }

  // Waits for a compile or a lane's outcome, and takes what came.
  void collect() {
    std::deque<Compiled> compiled;
    {
      const PhaseScope waiting(m_.clock, Phase::Waiting);
      dispatcher_.outbox().wait(kWait, outcomes_, compiled);
    }
    for (auto& c : compiled) take(c);
    for (auto& o : outcomes_)
      for (auto& a : dispatcher_.accept(std::move(o))) arrived_.push_back(std::move(a));
    outcomes_.clear();
  }

  void take(Compiled& c) {
    if (c.shape != m_.task->id) return;  // compiled ahead for an earlier shape, finished after it
    if (c.speculative) {  // into the cache only; a compile that failed is compiled again if it is proposed
      --speculating_;
      if (!c.error) report_.phases.compile_cpu_s += c.output.ms / 1000.0;
      return;
    }
    --compiling_;
    if (c.error) std::rethrow_exception(c.error);
    report_.phases.compile_cpu_s += c.output.ms / 1000.0;
    report_.cache_hits += c.output.from_cache;
    if (!given_up_) ready_.push_back(std::move(c));
  }

  const RoundInputs& m_;
  Dispatcher& dispatcher_;
  std::vector<std::future<CompileOutput>>& setup_;
  ShapeReport& report_;
  const std::size_t threads_;
  const std::size_t lookahead_;
  const std::size_t reserve_;
  std::size_t compiling_ = 0;   // submitted to the pool, not yet posted back
  std::deque<Compiled> ready_;  // compiled, waiting for a lane, in the order the compiles finished
  std::deque<LaneOutcome> outcomes_;
  bool exhausted_ = false;
  bool strategy_done_ = false;  // the strategy had nothing more to propose (not only the budget asked out)
  std::size_t beyond_ = 0;      // asked for a later call (ask_beyond())
  bool changed_ = true;  // the strategy heard or proposed something since speculate() last looked
  std::vector<Arrival> arrived_;  // results not yet handed to events.arrived (which tells the strategy)
  std::size_t speculating_ = 0;
  std::shared_ptr<const KernelSpec> own_spec_;  // a copy the compiles ahead hold
  std::unordered_set<std::size_t> speculated_;
  bool setup_done_ = false;
  bool given_up_ = false;
};

}  // namespace

void run_round(const RoundInputs& m, std::vector<std::future<CompileOutput>>& setup, ShapeReport& report) {
  RoundPipeline(m, setup, report).run();
}

}  // namespace cutune::detail
