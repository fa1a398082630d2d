// Lanes: the places where a tuning run's configurations are measured, each fed one job at a time.
//
// Design. The tuner's main thread owns the strategy, the compile pool and the database, so SQLite writes stay on one
// thread. A lane is one place that measures. Today that is a local GPU: a worker evaluator (measure/evaluator.hpp)
// driven by the lane's own thread. The main thread hands an idle lane a Job: which shape it belongs to (a lane
// prepares a shape the first time it sees one of its jobs), the configuration with its index in that shape's space,
// and the compiled kernel when the main thread compiled it. Every lane posts what happened to one Outbox, which the
// main thread reads in arrival order and turns into database records and strategy tells. A lane holds at most one
// job, and whichever lane is idle gets the next compiled configuration, so a fast GPU measures more than a slow one.
//
// A remote MPI rank fits the same interface: it compiles for itself (compiles_itself() is true, and the main thread
// then sends Jobs without a CompileOutput); its submit() sends the spec text and shape the first time a shape
// appears and then the configuration, and a thread that receives its replies posts them to the same Outbox. A lane
// that fails for a reason of its own (a worker that keeps crashing, a rank that vanished) posts an outcome with
// `failure` set and takes no more jobs; the dispatcher gives that job to another lane.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cutune/compiler.hpp"
#include "cutune/result.hpp"
#include "cutune/spec.hpp"

namespace cutune::detail {

class Evaluator;

/// One shape of one kernel being tuned: what a lane needs to prepare for its jobs. Lives until every job is answered.
struct ShapeTask {
  std::size_t id = 0;  ///< distinct for every shape a tuner tunes, so that a lane knows when to prepare again
  const KernelSpec* spec = nullptr;
  Shape shape;
  L2Flush flush = L2Flush::Read;  ///< the convention in force, resolved once by the shape's run
};

/// A piece of work for a lane.
struct Job {
  enum class Kind { Evaluate, Retime, CopyBandwidth };
  Kind kind = Kind::Evaluate;
  std::shared_ptr<const ShapeTask> task;
  std::size_t index = 0;                  ///< into the task's space (Evaluate, Retime)
  Config config;
  std::optional<CompileOutput> compiled;  ///< empty only for a lane that compiles itself
  double best_ms = 0.0;                   ///< Evaluate: the best median so far, ms (0: none)
  double search_ms = 0.0;                 ///< Evaluate: the strategy's time for proposing it, ms
  int repeats = 0;                        ///< Retime: timed runs
  std::int64_t bytes = 0;                 ///< CopyBandwidth: bytes copied
  std::optional<std::size_t> avoid_lane;  ///< a second opinion on a crash: not this lane, where it crashed
};

/// What a lane reports about a job.
struct LaneOutcome {
  std::size_t lane = 0;
  Job job;
  std::optional<Result> result;  ///< Evaluate and Retime, when the lane did the job
  double gbs = 0.0;              ///< CopyBandwidth, when the lane did the job
  std::string failure;           ///< not empty: the lane left the run and the job is not done
  std::exception_ptr error;      ///< with failure: what the lane caught, rethrown when no lane is left
  bool interrupted = false;      ///< a stop request ended the job; the lane stays usable
  double prepare_s = 0.0;        ///< seconds spent preparing the shape before this job
  double measure_s = 0.0;        ///< seconds spent on the job itself
  std::chrono::steady_clock::time_point posted;  ///< when the lane posted it (Outbox::post sets it)
};

/// A configuration the tuner's compile pool finished, posted by the compile job itself.
struct Compiled {
  std::size_t index = 0;     ///< into the shape's space
  double search_ms = 0.0;    ///< the strategy's time for proposing it
  CompileOutput output;
  std::exception_ptr error;  ///< the compile threw (an environment failure, not a compile error): rethrown by the tuner
  std::size_t shape = 0;     ///< the ShapeTask id it was compiled for
  bool speculative = false;  ///< compiled into the cubin cache for what the strategy may propose soon, not proposed
};

/// Where lanes post outcomes and compile jobs their kernels, so that the main thread waits on both at once.
class Outbox {
 public:
  void post(LaneOutcome outcome);
  void post(Compiled compiled);
  /// Waits until something is posted (or `timeout` passes), then appends everything posted so far to the two lists.
  void wait(std::chrono::milliseconds timeout, std::deque<LaneOutcome>& outcomes, std::deque<Compiled>& compiled);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<LaneOutcome> outcomes_;
  std::deque<Compiled> compiled_;
};

/// The hand-over of one job at a time from the main thread to a lane's own thread.
class JobSlot {
 public:
  void put(Job job);
  /// Waits for the next job; empty once close() was called.
  std::optional<Job> take();
  void close();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Job> job_;
  bool closed_ = false;
};

/// One place that measures. submit() returns at once; the outcome arrives in the Outbox given at construction.
class Lane {
 public:
  virtual ~Lane() = default;
  /// For messages: "GPU 1".
  virtual std::string name() const = 0;
  /// The CUDA device ordinal on the machine the lane measures on.
  virtual int ordinal() const = 0;
  /// True for a lane that compiles configurations itself (a remote rank): its jobs come without a CompileOutput.
  virtual bool compiles_itself() const { return false; }
  /// Takes a job; a lane holds one at a time (the dispatcher waits for its outcome before the next).
  virtual void submit(Job job) = 0;
};

/// A local GPU: `make_evaluator` runs on the lane's thread, which starts the evaluator at once (a worker process
/// and its CUDA context, overlapping the first compiles) and then measures the jobs it is given.
std::unique_ptr<Lane> make_local_lane(std::size_t id, int ordinal,
                                      std::function<std::unique_ptr<Evaluator>()> make_evaluator, Outbox& outbox);

}  // namespace cutune::detail
