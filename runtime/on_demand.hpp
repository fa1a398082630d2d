// Tuning on demand (RuntimeOptions::tune_budget): a shape the runtime answered with a fallback is tuned in the
// background by the `tune` program (an operation's shape: every implementation, `tune --kernel OPERATION`), one shape at a time, into the Runtime's database, on the Runtime's GPU. `tune`
// measures each candidate in its worker process, so a candidate that faults stops only that worker; it stores only
// verified results, and only those can become a shape's best. When a shape's tuning ends, the kernel of the stored
// best is prepared here too (lookup, cubin, module load), so that the Runtime's next request for the shape swaps
// it in without waiting for anything.
//
// How it shares the GPU: `tune` runs as another process beside the application, and the GPU time-slices between the
// two processes' contexts; nothing pauses either. On the CPU it runs at a lower priority (nice 10) with half the
// cores for its compiles, so that the application's host threads come first.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cutune/runtime.hpp"

namespace cutune::detail {

/// One shape to tune; done() once tuning ended, with the kernel of its new best in `ready` (null when tuning stored
/// no result of the shape's own, or failed: the Runtime keeps the fallback then).
struct TuneJob {
  std::string kernel;  // as `tune --kernel` takes it: a built-in's name or a spec (or operation) file's absolute path
  KernelSpec spec;     // an operation's: the implementation launched until its tuning ends
  std::optional<OperationSpec> operation;  // set when the job tunes an operation (every implementation)
  Shape shape;
  L2Flush flush = L2Flush::Read;
  std::unique_ptr<RuntimeKernel> ready;
  std::atomic<bool> finished{false};

  bool done() const { return finished.load(std::memory_order_acquire); }
  /// What is tuned, for messages: the operation's name, else the kernel's.
  const std::string& name() const { return operation ? operation->name : spec.name; }
};

struct OnDemandSettings {
  int budget = 0;                            // per shape
  std::filesystem::path program;             // the tune program
  std::filesystem::path database;            // absolute
  std::filesystem::path cache_directory;     // empty: --no-cache
  int device = 0;                            // CUDA ordinal
};

/// The `tune` program tuning on demand runs: `asked` when given, else $CUTUNE_TUNE, beside this program, or where
/// the build or installation put it. Throws InputError when there is none.
std::filesystem::path find_tune_program(const std::filesystem::path& asked);

/// The arguments of the `tune` run for a job (without the program's own name).
std::vector<std::string> tune_arguments(const OnDemandSettings& settings, const TuneJob& job, unsigned cores);

class OnDemandTuner {
 public:
  /// Makes the kernel of the shape's stored best after its tuning, or null when the database has none of its own.
  using Prepare = std::function<std::unique_ptr<RuntimeKernel>(const TuneJob&)>;

  OnDemandTuner(OnDemandSettings settings, Prepare prepare);
  /// Stops a running `tune` (SIGTERM: it stores what it measured and exits) and drops the shapes not yet begun.
  ~OnDemandTuner();
  OnDemandTuner(const OnDemandTuner&) = delete;
  OnDemandTuner& operator=(const OnDemandTuner&) = delete;

  /// Queues a shape; tuned after those queued before it. `operation`: set to tune an operation's implementations
  /// (`kernel` then names the operation; `spec` is the implementation launched meanwhile).
  std::shared_ptr<TuneJob> submit(std::string kernel, const KernelSpec& spec, const Shape& shape, L2Flush flush,
                                  std::optional<OperationSpec> operation = std::nullopt);

 private:
  void run();
  void tune(TuneJob& job);

  OnDemandSettings settings_;
  Prepare prepare_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<TuneJob>> queue_;
  bool stopping_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace cutune::detail
