// PhaseClock: where the tuner's thread spends a shape's wall time, in exclusive phases that add up to it.
#pragma once

#include <chrono>
#include <utility>
#include <vector>

#include "cutune/phase_times.hpp"

namespace cutune::detail {

/// What the tuner's thread is doing. Waiting is for the GPUs or the compile pool: how much of it was measuring,
/// start-up or compiling is known only once the lanes report what they did meanwhile (LaneSpan).
enum class Phase { Startup, CompileWait, Measure, Search, Store, Other, Waiting };

/// One job of a lane on the tuner's clock.
struct LaneSpan {
  std::chrono::steady_clock::time_point given;      ///< handed to the lane
  std::chrono::steady_clock::time_point measuring;  ///< the lane began the job itself, after starting and preparing
  std::chrono::steady_clock::time_point done;       ///< the lane finished it
};

/// A clock with one current phase: each switch charges the time since the last one to the phase it leaves. Time spent
/// Waiting is kept as intervals and split when the clock is read: measuring while some lane measured, start-up while
/// some lane had a job it had not begun (its worker still starting, or preparing the shape), compiling while no lane
/// had a job. Not thread-safe: the tuner's thread alone uses it.
class PhaseClock {
 public:
  using Clock = std::chrono::steady_clock;

  explicit PhaseClock(Phase first = Phase::Startup, Clock::time_point start = Clock::now());

  /// Makes `phase` the current one from `now` on; returns the one it replaces.
  Phase enter(Phase phase, Clock::time_point now = Clock::now());
  /// A lane's job, for splitting the waits.
  void add(const LaneSpan& span);
  void add(const std::vector<LaneSpan>& spans);
  /// Where the time from the start to `now` went; compile_cpu_s is left 0. The phases add up to wall_s.
  PhaseTimes read(Clock::time_point now = Clock::now()) const;

 private:
  using Interval = std::pair<Clock::time_point, Clock::time_point>;

  Clock::time_point start_;
  Clock::time_point since_;  // the last switch
  Phase current_;
  double seconds_[static_cast<int>(Phase::Waiting)] = {};
  std::vector<Interval> waits_;
  std::vector<LaneSpan> spans_;
};

/// Puts a clock (when there is one) in a phase for the rest of the scope, and back in the phase it was in after it.
class PhaseScope {
 public:
  PhaseScope(PhaseClock* clock, Phase phase) : clock_(clock), previous_(clock ? clock->enter(phase) : phase) {}
  ~PhaseScope() {
    if (clock_) clock_->enter(previous_);
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  PhaseClock* clock_;
  Phase previous_;
};

}  // namespace cutune::detail
