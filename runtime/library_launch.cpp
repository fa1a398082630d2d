// The runtime's library calls (library_launch.hpp).
#include "library_launch.hpp"

#include "cutune/error.hpp"

namespace cutune::detail {

LibraryLaunch::LibraryLaunch(const KernelSpec& spec, const Config& config, const Shape& shape)
    : library_(*spec.library), rank_(lt_choice(spec, config).rank),
      plain_(std::make_unique<LtGemm>(spec, shape, false, lt_choice(spec, config).any_reduction)) {
  if (library_.bias) with_bias_ = std::make_unique<LtGemm>(spec, shape, true, lt_choice(spec, config).any_reduction);
  for (const LtGemm* g : {plain_.get(), with_bias_.get()}) {
    if (g == nullptr) continue;
    if (auto why = g->unavailable(rank_)) throw CudaError(*why + " at " + shape.str());
  }
}

void LibraryLaunch::launch(void* stream, const KernelArg* args) const {
  const LtOperands operands = lt_operands(library_, [args](std::size_t i) { return args[i].address; });
  const LtGemm& gemm = with_bias_ && operands.bias != nullptr ? *with_bias_ : *plain_;
  const cublasStatus_t s = gemm.enqueue(rank_, operands, static_cast<CUstream>(stream));
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(describe(s, "cublasLtMatmul"));
}

}  // namespace cutune::detail
