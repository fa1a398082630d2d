// How the tuner gets configurations measured: in this process, or in a worker process that may crash alone.
#pragma once

#include <cstdint>
#include <memory>

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
  /// Allocates and fills the arguments and computes the reference output for a kernel and shape, to be timed under
  /// the L2 convention `flush`: the caller's (the tuner resolves it once per shape), not decided again here.
  virtual void prepare(const KernelSpec& spec, const Shape& shape, L2Flush flush) = 0;
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

}  // namespace cutune::detail
