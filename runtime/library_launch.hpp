// A runtime kernel of a library family (cutune/library.hpp): the library's call at the shape, with the stored
// configuration's rank, launched with the spec's arguments like a kernel.
#pragma once

#include <memory>
#include <string>

#include "cutune/runtime.hpp"
#include "driver/cublaslt_gemm.hpp"

namespace cutune::detail {

class LibraryLaunch {
 public:
  /// Plans the call at `shape` (with and without the bias, where the spec has one) and checks that the heuristic has
  /// an answer of the configuration's rank. Throws CudaError when cuBLASLt is missing or has no such answer.
  LibraryLaunch(const KernelSpec& spec, const Config& config, const Shape& shape);
  /// Enqueues the call on `stream` with the spec's arguments (their count and sizes already checked); throws
  /// CudaError when cuBLASLt refuses it.
  void launch(void* stream, const KernelArg* args) const;
  /// The answer that runs: "cuBLASLt algorithm 66, tile 24, ...".
  std::string description() const { return plain_->describe_answer(rank_); }

 private:
  const LibrarySpec& library_;
  std::size_t rank_ = 0;
  std::unique_ptr<LtGemm> plain_;
  std::unique_ptr<LtGemm> with_bias_;  // FP8 with a bias argument: the call when the pointer passed is not null
};

}  // namespace cutune::detail
