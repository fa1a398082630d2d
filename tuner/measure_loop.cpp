// Keeps every lane busy with one shape's configurations: the strategy proposes, the pool compiles, idle lanes measure.
#include "tuner/measure_loop.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>
#include <unordered_set>
#include <utility>

#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"
#include "cutune/stop.hpp"

namespace cutune::detail {
namespace {

// Long enough not to spin, short enough that a stop request or a time budget is noticed at once.
constexpr std::chrono::milliseconds kWait{100};

// Compiles one configuration on the pool; the job posts its kernel to the outbox itself, so that the main thread
// wakes for a finished compile as it does for a lane's result. A compile ahead of the strategy may outlive the shape:
// it holds its own spec (`own`) and configuration.
void submit_compile(const MeasureLoop& m, std::size_t index, double search_ms,
                    std::shared_ptr<const KernelSpec> own = nullptr) {
  const bool speculative = own != nullptr;
  m.pool.submit([own, &spec = own ? *own : *m.task->spec, config = m.space.configs()[index], arch = m.arch,
                 cache = m.cache, &outbox = m.lanes.outbox(), index, search_ms, shape = m.task->id, speculative] {
    Compiled c;
    c.index = index;
    c.search_ms = search_ms;
    c.shape = shape;
    c.speculative = speculative;
    try {
      c.output = compile_config_cached(cache, spec, config, arch);
    } catch (...) {
      c.error = std::current_exception();
    }
    outbox.post(std::move(c));
    return CompileOutput{};
  });
}

// The best median among what is known and what just arrived: the next job's early-stop reference.
double best_with(double best_ms, const std::vector<Arrival>& arrived) {
  for (const auto& a : arrived)
    if (usable(a.result.status) && (best_ms <= 0.0 || a.result.median_ms < best_ms)) best_ms = a.result.median_ms;
  return best_ms;
}

// Asks the strategy for up to `n` configurations on the clock's Search phase; each one's share of that time, ms.
std::pair<std::vector<std::size_t>, double> ask(const MeasureLoop& m, std::size_t n) {
  const PhaseScope searching(m.clock, Phase::Search);
  const auto start = std::chrono::steady_clock::now();
  auto indices = m.strategy.ask(n);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double share = indices.empty() ? 0.0 : ms / static_cast<double>(indices.size());
  return {std::move(indices), share};
}

}  // namespace

void measure_proposals(const MeasureLoop& m, std::vector<std::future<CompileOutput>>& setup, ShapeReport& report) {
  Dispatcher& lanes = m.lanes;
  // Enough compiles under way to keep every core busy and give every lane its next job, without running far ahead of
  // the strategy (which learns from each result). Lanes that can compile for themselves (remote ranks) count too: they
  // take what the pool compiled (its binary travels with the job) and compile for themselves only when nothing is
  // ready, so that their GPUs do not wait on one compile at a time while this rank's cores have compiled ones.
  // An adaptive strategy says how many of its proposals may wait for outcomes at once (Strategy::ahead()); the
  // threads that leaves idle compile what it is likely to propose next (speculate() below).
  std::size_t local = 0;
  for (std::size_t i = 0; i < lanes.size(); ++i) local += !lanes.lane(i).compiles_itself();
  const std::size_t threads = m.pool.threads();
  const std::size_t lookahead = local > 0 ? 2 * threads + lanes.size() : 0;
  std::size_t compiling = 0;   // submitted to the pool, not yet posted back
  std::deque<Compiled> ready;  // compiled, waiting for a lane, in the order the compiles finished
  std::deque<LaneOutcome> outcomes;
  std::size_t asked = 0;
  bool exhausted = false;
  bool changed = true;  // the strategy heard or proposed something since speculate() last looked
  std::vector<Arrival> arrived;  // results not yet handed to `arrived` (which tells the strategy)
  auto room = [&] {  // proposals the strategy may make now
    const std::size_t waiting = compiling + ready.size() + lanes.in_flight() + arrived.size();
    const std::size_t ahead = std::max(m.strategy.ahead(), lanes.size());
    return std::min(lookahead > compiling + ready.size() ? lookahead - compiling - ready.size() : 0,
                    ahead > waiting ? ahead - waiting : 0);
  };
  auto top_up = [&] {
    while (!exhausted && room() > 0) {
      if (asked >= m.to_measure || m.out_of_time()) {
        exhausted = true;
        break;
      }
      const auto [indices, search_ms] = ask(m, std::min(room(), m.to_measure - asked));
      if (indices.empty()) {
        exhausted = true;
        break;
      }
      for (std::size_t index : indices) {
        submit_compile(m, index, search_ms);
        ++asked, ++compiling;
      }
      changed = true;
    }
  };
  auto ask_one = [&]() -> std::optional<std::pair<std::size_t, double>> {
    if (!exhausted && (asked >= m.to_measure || m.out_of_time())) exhausted = true;
    if (exhausted) return std::nullopt;
    const auto [indices, search_ms] = ask(m, 1);
    if (indices.empty()) {
      exhausted = true;
      return std::nullopt;
    }
    ++asked;
    return std::pair{indices.front(), search_ms};
  };
  // Spare compile threads compile what the strategy is likely to propose into the cubin cache, where prefer_ready()
  // lets it take them; a few threads stay free for its proposals. Not while fewer proposals are left to make than
  // there are threads: a compile still running when the tuner ends is waited for (the pool outlives the shape, so the
  // next shape does not wait for it, but it holds a thread).
  const std::size_t reserve = std::min(lanes.size() + 1, threads / 4);
  std::size_t speculating = 0;
  std::shared_ptr<const KernelSpec> own_spec;  // a copy the compiles ahead hold
  std::unordered_set<std::size_t> speculated;
  auto speculate = [&] {
    if (!m.compiled || !changed || exhausted || m.to_measure - asked < threads) return;
    changed = false;
    if (compiling + speculating + reserve >= threads) return;
    const PhaseScope searching(m.clock, Phase::Search);
    for (std::size_t index : m.strategy.upcoming(4 * threads)) {
      if (compiling + speculating + reserve >= threads) break;
      if (!speculated.insert(index).second || m.compiled(index)) continue;
      if (!own_spec) own_spec = std::make_shared<const KernelSpec>(*m.task->spec);
      submit_compile(m, index, 0.0, own_spec);
      ++speculating;
      ++report.compiled_ahead;
    }
  };
  bool setup_done = false;
  bool given_up = false;
  for (;;) {
    if (!given_up && m.give_up && m.give_up()) {
      given_up = exhausted = true;
      ready.clear();
    }
    top_up();
    if (exhausted && compiling == 0 && ready.empty() && lanes.returned().empty() && lanes.in_flight() == 0) {
      // Crashes a lane still holds get a second opinion on another lane before they count as the configurations'.
      for (auto& a : lanes.release_held(true)) arrived.push_back(std::move(a));
      if (lanes.returned().empty()) break;
    }
    if (stop_requested()) {  // what was measured is stored like every other result
      for (const auto& a : arrived) m.arrived(a);
      for (const auto& a : lanes.release_held(false)) m.arrived(a);
      throw Interrupted("interrupted");
    }
    if (!setup_done) {
      const PhaseScope starting(m.clock, Phase::Startup);
      for (auto& job : setup) job.get();  // the lanes' preparation reads these from the cache
      setup.clear();
      setup_done = true;
      lanes.start_idle_clock();
    }
    // Lanes get their next job before the results that freed them are stored, so that the GPUs measure while the
    // database commits and the strategy learns. Jobs of a lane that left go first, then compiles as they finished.
    const double best_ms = best_with(m.best_ms(), arrived);
    for (std::size_t lane : lanes.idle_lanes()) {
      Job job;
      auto& back = lanes.returned();
      const auto fits = std::find_if(back.begin(), back.end(), [lane](const Job& j) { return j.avoid_lane != lane; });
      if (fits != back.end()) {
        job = std::move(*fits);
        back.erase(fits);
      } else if (!ready.empty()) {  // a lane that compiles itself takes these too, rather than leave them behind
        Compiled& c = ready.front();
        job.task = m.task;
        job.index = c.index;
        job.config = m.space.configs()[c.index];
        job.compiled = std::move(c.output);
        job.search_ms = c.search_ms;
        ready.pop_front();
      } else if (const auto asked_one = lanes.lane(lane).compiles_itself() ? ask_one() : std::nullopt) {
        job.task = m.task;
        job.index = asked_one->first;
        job.config = m.space.configs()[job.index];
        job.search_ms = asked_one->second;
      } else {
        continue;  // another idle lane may take a second opinion this one may not
      }
      job.best_ms = best_ms;
      lanes.give(lane, std::move(job));
    }
    changed = changed || !arrived.empty();
    for (const auto& a : arrived) m.arrived(a);
    arrived.clear();
    top_up();
    if (setup_done) speculate();

    std::deque<Compiled> compiled;
    {
      const PhaseScope waiting(m.clock, Phase::Waiting);
      lanes.outbox().wait(kWait, outcomes, compiled);
    }
    for (auto& c : compiled) {
      if (c.shape != m.task->id) continue;  // compiled ahead for an earlier shape, finished after it
      if (c.speculative) {  // into the cache only; a compile that failed is compiled again if it is proposed
        --speculating;
        if (!c.error) report.phases.compile_cpu_s += c.output.ms / 1000.0;
        continue;
      }
      --compiling;
      if (c.error) std::rethrow_exception(c.error);
      report.phases.compile_cpu_s += c.output.ms / 1000.0;
      report.cache_hits += c.output.from_cache;
      if (!given_up) ready.push_back(std::move(c));
    }
    for (auto& o : outcomes)
      for (auto& a : lanes.accept(std::move(o))) arrived.push_back(std::move(a));
    outcomes.clear();
    if (lanes.live() == 0) {
      for (const auto& a : arrived) m.arrived(a);  // the last lane's held-back failures, as a one-GPU run stores them
      lanes.require_lane();
    }
  }
  for (const auto& a : arrived) m.arrived(a);
}

}  // namespace cutune::detail
