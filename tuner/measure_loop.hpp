// The loop that keeps every lane busy with one shape: ask the strategy, compile ahead, dispatch, hear back.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "cutune/space.hpp"
#include "cutune/strategy.hpp"
#include "cutune/tuner.hpp"
#include "tuner/dispatch.hpp"
#include "tuner/phase_clock.hpp"

namespace cutune {
class CubinCache;
}

namespace cutune::detail {

/// What the loop works with for one shape; the callbacks run on the calling (main) thread.
struct MeasureLoop {
  Dispatcher& lanes;
  Strategy& strategy;
  CompilePool& pool;
  CubinCache* cache = nullptr;
  std::string arch;
  std::shared_ptr<const ShapeTask> task;
  const Space& space;
  std::size_t to_measure = 0;              ///< configurations to ask for at most
  std::function<bool()> out_of_time;       ///< the wall-time budget is spent: ask for nothing more
  std::function<double()> best_ms;         ///< the best median so far (0: none), for adaptive timing
  std::function<void(const Arrival&)> arrived;  ///< store it, tell the strategy, count it
  /// True once the shape is given up (its configurations all disagree with the reference): nothing more is asked
  /// or dispatched, compiled configurations still waiting are dropped; what lanes are measuring arrives as usual.
  std::function<bool()> give_up;
  PhaseClock* clock = nullptr;  ///< charged with asking (Search), waiting (Waiting) and the set-up compiles (Startup)
  /// Whether a configuration (index into `space`) is in the cubin cache; empty without a cache, and then nothing is
  /// compiled ahead of the strategy.
  std::function<bool(std::size_t)> compiled;
};

/// Asks the strategy whenever the compile lookahead runs short, compiles on the pool, gives each compiled
/// configuration to whichever lane is idle, and hands every result to `arrived` in arrival order, until the strategy
/// has nothing more (or the budget is spent) and every lane is done. Lanes get jobs only after `setup` (compiles
/// the workers' preparation reads from the cache) is done. Throws Interrupted on a stop request, and what the last
/// lane caught when every lane left the run. Adds compile and cache figures to `report`.
void measure_proposals(const MeasureLoop& loop, std::vector<std::future<CompileOutput>>& setup, ShapeReport& report);

}  // namespace cutune::detail
