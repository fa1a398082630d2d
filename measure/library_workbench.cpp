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
  // The algorithm that runs: the heuristic's answer of the rank, or the configuration's algorithm as cuBLASLt accepts
  // it at this problem. Neither is a LaunchError saying why, found without running anything.
  const bool by_rank = !w_.spec.library->algo;
  const LtChoice choice = by_rank ? lt_choice(w_.spec, config) : LtChoice{};
  const LtGemm& call = gemm(choice.any_reduction);
  LtConfigured configured;
  if (by_rank) {
    if (auto why = call.unavailable(choice.rank)) configured.refusal = *why;
  } else {
    configured = call.configure(lt_algo_config(w_.spec, config));
  }
  if (configured.refusal) {
    r.status = Status::LaunchError;
    r.message = *configured.refusal;
    return r;
  }
  const cublasLtMatmulAlgo_t& algo = by_rank ? call.answer(choice.rank) : configured.algo;
  w_.parameters(config);  // the buffers' pointers and the scalars' bytes at this configuration
  const LtOperands operands = lt_operands(*w_.spec.library, [this](std::size_t i) -> const void* {
    const DeviceArgument& a = w_.args[i];
    return a.spec->is_buffer ? static_cast<const void*>(&a.pointer) : a.scalar.data();
  });
  const Enqueue run = [&]() -> std::optional<LaunchFailure> {
    const cublasStatus_t s = call.enqueue(algo, operands, w_.stream);
    if (s != CUBLAS_STATUS_SUCCESS) return LaunchFailure{CUDA_ERROR_INVALID_VALUE, describe(s, "cublasLtMatmul")};
    return std::nullopt;
  };
  // The first call of a cuBLASLt kernel in a process loads its module (lazy loading) inside the call: milliseconds of
  // host work that the first run, timed and compared with the best so far, would count (an H200 measured the
  // heuristic's first answer at 2.8 ms, not 0.011 ms, and tuning then kept a slower one): one untimed call first.
  Result out = w_.run_verified(run, std::move(r), best_ms, exact_repeats, true);
  if (usable(out.status)) {
    out.message = by_rank ? call.describe_answer(choice.rank)
                          : describe(lt_algo_config(w_.spec, config)) + ", workspace " +
                                std::to_string(configured.workspace) + " B";
  }
  return out;
}

}  // namespace cutune::detail
