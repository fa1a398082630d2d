// The runtime's library calls (library_launch.hpp).
#include "library_launch.hpp"

#include "cutune/error.hpp"

namespace cutune::detail {

LibraryLaunch::Planned LibraryLaunch::plan(const KernelSpec& spec, const Config& config, const Shape& shape,
                                           bool with_bias) const {
  Planned p;
  if (library_.algo) {
    const LtAlgoConfig wanted = lt_algo_config(spec, config);
    p.gemm = std::make_unique<LtGemm>(spec, shape, with_bias);
    LtConfigured configured = p.gemm->configure(wanted);
    if (configured.refusal) throw CudaError(*configured.refusal + " at " + shape.str());
    p.algo = configured.algo;
    return p;
  }
  const LtChoice choice = lt_choice(spec, config);
  p.gemm = std::make_unique<LtGemm>(spec, shape, with_bias, choice.any_reduction);
  if (auto why = p.gemm->unavailable(choice.rank)) throw CudaError(*why + " at " + shape.str());
  p.algo = p.gemm->answer(choice.rank);
  return p;
}

LibraryLaunch::LibraryLaunch(const KernelSpec& spec, const Config& config, const Shape& shape)
    : library_(*spec.library), plain_(plan(spec, config, shape, false)) {
  if (library_.bias) with_bias_ = plan(spec, config, shape, true);
  description_ = library_.algo ? describe(lt_algo_config(spec, config))
                               : plain_.gemm->describe_answer(lt_choice(spec, config).rank);
}

void LibraryLaunch::launch(void* stream, const KernelArg* args) const {
  const LtOperands operands = lt_operands(library_, [args](std::size_t i) { return args[i].address; });
  const Planned& call = with_bias_.gemm && operands.bias != nullptr ? with_bias_ : plain_;
  const cublasStatus_t s = call.gemm->enqueue(call.algo, operands, static_cast<CUstream>(stream));
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(describe(s, "cublasLtMatmul"));
}

}  // namespace cutune::detail
