// The part of a Workbench for a library family (cutune/library.hpp): the library's call planned at the shape, run on
// the bench's buffers like a kernel.
#pragma once

#include <memory>

#include "driver/cublaslt_gemm.hpp"
#include "workbench.hpp"

namespace cutune::detail {

/// Made by Workbench::Impl::prepare() after the reference output is computed: plans the call (cuBLASLt's heuristic at
/// the shape). Each configuration then runs the heuristic's answer of its rank, or (a configuration family) its
/// algorithm configured by attribute, through the Workbench's verified and timed runs, so that the reference, the L2
/// convention and the timing are a kernel's.
class LibraryWorkbench {
 public:
  /// Throws CudaError when cuBLASLt is missing or refuses the problem's description: no configuration could run.
  explicit LibraryWorkbench(Workbench::Impl& bench);
  LibraryWorkbench(const LibraryWorkbench&) = delete;
  LibraryWorkbench& operator=(const LibraryWorkbench&) = delete;

  /// Verifies and times one configuration; `r` holds what evaluate() found so far. A rank past the heuristic's
  /// answers, or a combination cuBLASLt refuses at the shape (LtGemm::configure), is a LaunchError saying so, found
  /// without a launch.
  Result evaluate(const Config& config, Result r, double best_ms, int exact_repeats);

 private:
  /// The call planned for a configuration's reduction choice (the first time it is asked for).
  const LtGemm& gemm(bool any_reduction);

  Workbench::Impl& w_;
  std::unique_ptr<LtGemm> gemm_[2];  // by LtChoice::any_reduction
};

}  // namespace cutune::detail
