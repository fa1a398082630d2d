// Measure: load, launch, verify against the reference, and time one configuration (DESIGN.md, decision 5).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/device.hpp"
#include "cutune/result.hpp"
#include "cutune/spec.hpp"

namespace cutune {

/// How configurations are timed.
struct MeasureOptions {
  int warmup = 2;              ///< untimed launches after verification, before timing
  int repeats = 20;            ///< timed launches; the median counts
  bool flush_l2 = true;        ///< read a buffer of twice the L2 size before each timed launch (outside the timing)
  std::uint64_t seed = 0x5eed; ///< seed of the random inputs; the same seed gives the same inputs
};

/// Median, extremes and spread of timing samples.
struct Timing {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  double spread = 0.0;  ///< interquartile range over the median
};
/// Summarises samples (any order); all zero for none.
Timing summarize(std::vector<double> samples);

/// Device buffers for one spec and shape: inputs filled once, the reference output computed once, so that
/// many configurations are evaluated against the same data. Lives on one device; not copyable.
class Workbench {
 public:
  /// Allocates and fills every argument and runs the reference. Throws SpecError when a buffer size names a
  /// parameter, CudaError on driver failures or when the reference does not compile or run.
  Workbench(const Device& device, const KernelSpec& spec, const Shape& shape, const MeasureOptions& options);
  ~Workbench();
  Workbench(const Workbench&) = delete;
  Workbench& operator=(const Workbench&) = delete;

  /// Loads, verifies and times one compiled configuration. Failures are result statuses, never exceptions.
  Result evaluate(const Config& config, const CompileOutput& compiled);
  /// False after a fault that poisoned the CUDA context: nothing more can run in this process.
  bool usable() const;
  /// Device-to-device copy of `bytes`, timed like a kernel: GB/s counting bytes read plus bytes written.
  double copy_bandwidth(std::int64_t bytes);
  /// Times other work like a configuration (warm-up, L2 flush before each run, CUDA events, MeasureOptions'
  /// repeats): `enqueue` puts one run on the given stream (a CUstream, which is also a cudaStream_t).
  std::vector<double> time(const std::function<void(void* stream)>& enqueue);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune
