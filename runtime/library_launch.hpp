// A runtime kernel of a library family (cutune/library.hpp): the library's call at the shape, with the stored
// configuration (the heuristic's answer of its rank, or an algorithm configured by attribute), launched with the
// spec's arguments like a kernel.
#pragma once

#include <memory>
#include <string>

#include "cutune/runtime.hpp"
#include "driver/cublaslt_gemm.hpp"

namespace cutune::detail {

class LibraryLaunch {
 public:
  /// Plans the call at `shape` (with and without the bias, where the spec has one) and finds the configuration's
  /// algorithm there. Throws CudaError when cuBLASLt is missing, has no answer of the rank, or refuses the
  /// configuration at the shape (a configuration family's stored configuration at a shape it was not measured at).
  LibraryLaunch(const KernelSpec& spec, const Config& config, const Shape& shape);
  /// Enqueues the call on `stream` with the spec's arguments (their count and sizes already checked); throws
  /// CudaError when cuBLASLt refuses it.
  void launch(void* stream, const KernelArg* args) const;
  /// The algorithm that runs: "cuBLASLt algorithm 66, tile 24, ...".
  std::string description() const { return description_; }

 private:
  // One planned call and the algorithm it runs.
  struct Planned {
    std::unique_ptr<LtGemm> gemm;
    cublasLtMatmulAlgo_t algo{};
  };
  Planned plan(const KernelSpec& spec, const Config& config, const Shape& shape, bool with_bias) const;

  const LibrarySpec& library_;
  Planned plain_;
  Planned with_bias_;  // FP8 with a bias argument: the call when the pointer passed is not null
  std::string description_;
};

}  // namespace cutune::detail
