// The host side of a Workbench for a spec with a host pipeline: pinned arrays, streams, the ring, verify and time.
#pragma once

#include <vector>

#include "driver/pipeline_runner.hpp"
#include "workbench.hpp"

namespace cutune::detail {

/// Made by Workbench::Impl::prepare() once the device buffers hold the inputs and the reference output: the host
/// buffers get the inputs, and the transfer-only bound is measured. Each configuration then runs its pipeline from
/// the pinned arrays through a ring of per-stream chunk buffers, and its host output is compared with the reference.
/// L2 is not flushed between runs: every chunk arrives from the host, so no run finds its inputs in L2.
class PipelineWorkbench {
 public:
  explicit PipelineWorkbench(Workbench::Impl& bench);
  PipelineWorkbench(const PipelineWorkbench&) = delete;
  PipelineWorkbench& operator=(const PipelineWorkbench&) = delete;

  /// The transfer-only bound: the longer of the whole-array copies in (all inputs) and out (all outputs), ms.
  double bound_ms() const { return bound_ms_; }
  /// The metric's amount over bound_ms(), in the metric's unit: the best a pipeline could reach on this link.
  double bound_gbs() const;
  /// Verifies and times one configuration whose kernel `f` is loaded; `r` holds what evaluate() found so far.
  /// exact_repeats > 0: that many timed runs after a warm-up; 0: the adaptive policy against best_ms.
  Result evaluate(const Config& config, CUfunction f, Result r, double best_ms, int exact_repeats);

 private:
  PipelineArgs arguments(const Config& config) const;
  /// Median time of whole-array copies of the host buffers in one direction, ms.
  double time_copies(bool to_device);
  /// Runs the pipeline once and waits for it; its time in ms, or the failure.
  EnqueueStatus run_once(const PipelineRunner& runner, CUfunction f, const PipelineArgs& args, double& ms);

  Workbench::Impl& w_;
  std::vector<PinnedBuffer> host_;  // per PipelineSpec::host entry, as large as its device buffer
  PipelineStreams streams_;
  DeviceBuffer ring_;
  double bound_ms_ = 0.0;
};

}  // namespace cutune::detail
