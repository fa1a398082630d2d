// A library family's configurations on a Workbench: the call's operands are the bench's buffers and scalars.
#include "library_workbench.hpp"

namespace cutune::detail {

LibraryWorkbench::LibraryWorkbench(Workbench::Impl& bench) : w_(bench) { gemm(false); }

const LtGemm& LibraryWorkbench::gemm(bool any_reduction) {
  // The bench fills every buffer, the bias too: the call is planned with the bias when the spec has one.
  auto& planned = gemm_[any_reduction ? 1 : 0];
  if (!planned) planned = std::make_unique<LtGemm>(w_.spec, w_.shape, w_.spec.library->bias.has_value(), any_reduction);
  return *planned;
}

Result LibraryWorkbench::evaluate(const Config& config, Result r, double best_ms, int exact_repeats) {
  const LtChoice choice = lt_choice(w_.spec, config);
  const std::size_t rank = choice.rank;
  const LtGemm& call = gemm(choice.any_reduction);
  if (auto why = call.unavailable(rank)) {
    r.status = Status::LaunchError;
    r.message = *why;
    return r;
  }
  w_.parameters(config);  // the buffers' pointers and the scalars' bytes at this configuration
  const LtOperands operands = lt_operands(*w_.spec.library, [this](std::size_t i) -> const void* {
    const DeviceArgument& a = w_.args[i];
    return a.spec->is_buffer ? static_cast<const void*>(&a.pointer) : a.scalar.data();
  });
  const Enqueue run = [&]() -> std::optional<LaunchFailure> {
    const cublasStatus_t s = call.enqueue(rank, operands, w_.stream);
    if (s != CUBLAS_STATUS_SUCCESS) return LaunchFailure{CUDA_ERROR_INVALID_VALUE, describe(s, "cublasLtMatmul")};
    return std::nullopt;
  };
  Result out = w_.run_verified(run, std::move(r), best_ms, exact_repeats);
  if (usable(out.status)) out.message = call.describe_answer(rank);
  return out;
}

}  // namespace cutune::detail
