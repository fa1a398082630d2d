// Dispatcher: hands jobs to idle lanes and turns what lanes post into results in arrival order, for the main thread.
#pragma once

#include <chrono>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tuner/lanes.hpp"
#include "tuner/phase_clock.hpp"

namespace cutune::detail {

/// A result that arrived, with the lane that measured it.
struct Arrival {
  std::size_t lane = 0;
  Job job;
  Result result;
  double measure_s = 0.0;
};

/// Owns the lanes of a tuning run. Not thread-safe: only the tuner's main thread calls it.
///
/// A crash or hang (RuntimeError, Timeout) of an evaluated configuration is held back while the lane's failures
/// follow each other: if the lane then leaves the run (its worker failed too often in a row), those
/// configurations were victims of a failing GPU, not faulty, and go to another lane instead of into the database.
/// A success on the lane makes them ordinary results. At the end of a shape, what a lane still holds gets a second
/// opinion on another lane (release_held); a crash there is the configuration's own.
class Dispatcher {
 public:
  using LaneFactory = std::function<std::unique_ptr<Lane>(std::size_t id, Outbox& outbox)>;

  /// Starts one lane per factory, lane i with id i (the first is the one that re-times finalists).
  explicit Dispatcher(const std::vector<LaneFactory>& lanes);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  Outbox& outbox() { return outbox_; }
  std::size_t size() const { return lanes_.size(); }
  const Lane& lane(std::size_t i) const { return *lanes_[i].lane; }
  /// Why lane i left the run; empty while it takes jobs.
  const std::string& left(std::size_t i) const { return lanes_[i].left; }
  std::size_t live() const;
  std::size_t in_flight() const;
  /// The live lanes without a job, the one idle longest first (then first lanes first).
  std::vector<std::size_t> idle_lanes() const;

  void give(std::size_t lane, Job job);
  /// Jobs handed back by lanes that left: they go to another lane before anything new.
  std::deque<Job>& returned() { return returned_; }

  /// Takes a lane's outcome (from the outbox) and returns the results it makes available, in arrival order: none,
  /// one, or a released run of held-back failures and the result after them.
  std::vector<Arrival> accept(LaneOutcome outcome);
  /// Empties what lanes hold back. With `retry_elsewhere` and another live lane, each configuration goes back to the
  /// queue for a second opinion on another lane, and nothing is returned; otherwise they are returned as results.
  std::vector<Arrival> release_held(bool retry_elsewhere);
  /// Throws what the last lane to leave caught, once no lane is left.
  void require_lane() const;

  /// Runs one job on the first live lane and waits for its outcome (no other job may be in flight); a lane that
  /// leaves meanwhile passes the job to the next one. Throws Interrupted on a stop request.
  LaneOutcome run_first(Job job);

  /// Starts counting, per lane, the time it waits without a job (from now on, for the current shape).
  void start_idle_clock();
  /// Seconds lanes waited for a job since start_idle_clock(), summed over lanes.
  double idle_seconds() const { return idle_seconds_; }
  /// The jobs lanes finished since the last call, each from when it was given to when it was done.
  std::vector<LaneSpan> take_spans() { return std::exchange(spans_, {}); }

 private:
  struct LaneState {
    std::unique_ptr<Lane> lane;
    bool busy = false;
    std::string left;
    std::vector<Arrival> held;
    std::chrono::steady_clock::time_point idle_since;
    std::chrono::steady_clock::time_point given;  // its job's
  };

  // The lane is done with its job: it is idle from now on, and the job's span is kept.
  void finished(LaneState& state, const LaneOutcome& outcome);
  // Marks a lane gone: its job and held-back configurations return to the queue; says so unless it was the last.
  void drop(LaneOutcome& outcome);

  Outbox outbox_;  // before the lanes: it outlives their threads
  std::vector<LaneState> lanes_;
  std::deque<Job> returned_;
  std::exception_ptr last_error_;
  double idle_seconds_ = 0.0;
  std::vector<LaneSpan> spans_;
};

}  // namespace cutune::detail
