// One round of a shape's search: the loop that keeps every lane busy, asking the strategy, compiling ahead, dispatching
// and hearing back.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "cutune/space.hpp"
#include "cutune/strategy.hpp"
#include "cutune/tuner.hpp"
#include "tuner/budget.hpp"
#include "tuner/dispatch.hpp"
#include "tuner/phase_clock.hpp"
#include "tuner/stop_rules.hpp"

namespace cutune {
class CubinCache;
}

namespace cutune::detail {

/// What the loop tells, and asks of, the shape it measures for; called on the calling (main) thread.
class MeasureEvents {
 public:
  virtual ~MeasureEvents() = default;
  /// The best median so far (0: none), for adaptive timing.
  virtual double best_ms() const = 0;
  /// A result arrived: store it, tell the strategy, count it.
  virtual void arrived(const Arrival& a) = 0;
  /// Whether a configuration (index into the space) is in the cubin cache; asked only when there is a cache.
  virtual bool compiled(std::size_t index) const = 0;
};

/// What a round works with.
struct RoundInputs {
  Dispatcher& dispatcher;
  Strategy& strategy;
  CompilePool& pool;
  /// Without a cache, nothing is compiled ahead of the strategy.
  CubinCache* cache = nullptr;
  std::string arch;
  std::shared_ptr<const ShapeTask> task;
  const Space& space;
  const TuneOptions& options;  ///< the run's settings
  /// How many configurations the round may still ask for: the loop asks no more than Budget::may_ask() and counts
  /// what it asked on it.
  Budget& budget;
  /// Asking: nothing more is asked (budget, time). GivingUp: nothing more is asked or dispatched, compiled
  /// configurations still waiting are dropped; what lanes are measuring arrives as usual. Interrupt and NoLane: what
  /// arrived is stored and the rule ends the shape. The loop sees a stop request or the loss of its last lane only
  /// through such rules: without a NoLane rule it would wait for lanes that are gone.
  const StopRules& stop;
  MeasureEvents& events;
  PhaseClock* clock = nullptr;  ///< charged with asking (Search), waiting (Waiting) and the set-up compiles (Startup)
  /// Proposals for a later call at the shape (an operation's next turn), which that call measures first
  /// (KeptSearch::ask_ahead): once the round has asked its budget, up to compile_beyond of them are asked through this
  /// and compiled ahead into the cubin cache. Empty (or 0): none.
  std::function<std::vector<std::size_t>(std::size_t)> ask_ahead;
  std::size_t compile_beyond = 0;
};

/// Asks the strategy whenever the compile lookahead runs short, compiles on the pool, gives each compiled
/// configuration to whichever lane is idle, and hands every result to `events.arrived` in arrival order, until the
/// strategy has nothing more (or an Asking rule holds: the budget among them) and every lane is done. Lanes get jobs
/// only after `setup` (compiles the workers' preparation reads from the cache) is done. Throws what an Interrupt or
/// NoLane rule ends the shape with. Adds compile and cache figures to `report`.
void run_round(const RoundInputs& round, std::vector<std::future<CompileOutput>>& setup, ShapeReport& report);

}  // namespace cutune::detail
