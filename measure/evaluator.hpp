// How the tuner gets configurations measured: in this process, or in a worker process that may crash alone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cutune/compiler.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/result.hpp"
#include "cutune/spec.hpp"

namespace cutune {
class CubinCache;
}

namespace cutune::detail {

/// Measures the configurations of one kernel and shape (set by prepare()).
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  /// Starts what measuring needs before any kernel is known (a worker process and its CUDA context), so that it
  /// overlaps other set-up. prepare() starts it when this was not called.
  virtual void start() {}
  /// Allocates and fills the arguments and computes the reference output for a kernel and shape.
  virtual void prepare(const KernelSpec& spec, const Shape& shape) = 0;
  /// Verifies and times one configuration adaptively against the best median so far (0: none).
  virtual Result evaluate(const Config& config, const CompileOutput& compiled, double best_ms) = 0;
  /// Verifies and times one configuration with exactly `repeats` timed runs.
  virtual Result retime(const Config& config, const CompileOutput& compiled, int repeats) = 0;
  /// Device-to-device copy bandwidth for `bytes`, GB/s counting read and write.
  virtual double copy_bandwidth(std::int64_t bytes) = 0;
};

/// Measures in this process: a fault that poisons the CUDA context ends the run (CudaError after the result).
std::unique_ptr<Evaluator> make_in_process_evaluator(const Device& device, const MeasureOptions& options,
                                                     CubinCache* cache);

/// Where and how worker processes run.
struct WorkerSettings {
  std::string executable;            ///< the cutune-worker program
  int device = 0;                    ///< CUDA device ordinal
  MeasureOptions measure;
  std::string cache_dir;             ///< cubin cache folder; empty: no cache
  double timeout_floor_s = 10.0;     ///< the least time a configuration is given before it counts as hung
  int max_consecutive_failures = 8;  ///< crashes or timeouts in a row that stop the run
};

/// Measures in a worker process: a crash or hang of a candidate kills only the worker, whose configuration is
/// recorded as runtime_error or timeout; the worker restarts for the next configuration. A worker killed from outside
/// (SIGKILL or SIGTERM that cutune did not send) is no crash: the configuration goes to a fresh worker once more, and
/// is recorded as interrupted if that one is killed too.
std::unique_ptr<Evaluator> make_worker_evaluator(const WorkerSettings& settings);

/// The cutune-worker program: $CUTUNE_WORKER, else beside the running program (or one folder up), else where
/// the build or the installation put it; empty when none is found.
std::string find_worker_executable();

}  // namespace cutune::detail
