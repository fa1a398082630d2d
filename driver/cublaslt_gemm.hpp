// A library family's GEMM at one shape through cublasLtMatmul: the problem described once in cutune's row-major
// layout, the heuristic's ranked answers, and a launch with the operands a Workbench or a RuntimeKernel passes.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cutune/library.hpp"
#include "cutune/spec.hpp"
#include "driver/cublaslt.hpp"
#include "driver/cublaslt_algo.hpp"

namespace cutune::detail {

/// One call's operands, read from the spec's arguments (LibrarySpec names them).
struct LtOperands {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  float alpha = 1.0f;
  float beta = 0.0f;
  void* workspace = nullptr;
  const void* scale_a = nullptr;
  const void* scale_b = nullptr;
  const void* bias = nullptr;
};

/// The operands from a launch's arguments: `address(i)` is where argument i's value lies (the bytes of a device
/// pointer or of a scalar, as cuLaunchKernel reads a kernel's parameters).
LtOperands lt_operands(const LibrarySpec& library, const std::function<const void*(std::size_t)>& address);

/// The bytes of the spec's workspace argument at `shape`, which cuBLASLt may use; 0 when it has none.
std::size_t lt_workspace_bytes(const KernelSpec& spec, const Shape& shape);

/// What a configuration of a library family asks of the call: the heuristic's answer of `rank`, among those that
/// reduce split-K partial sums in FP32 only unless `any_reduction`.
struct LtChoice {
  std::size_t rank = 0;
  bool any_reduction = false;
};
LtChoice lt_choice(const KernelSpec& spec, const Config& config);

/// The spec's GEMM at one shape, planned for calls with or without a bias. Enqueues from several threads at once.
class LtGemm {
 public:
  /// Creates the handle and the descriptors and asks the heuristic for up to kLibraryMaxRank answers. Throws CudaError
  /// when cuBLASLt is missing or refuses the description; a problem it has no answer for is not an error (answers()
  /// is 0, unavailable() says why).
  LtGemm(const KernelSpec& spec, const Shape& shape, bool with_bias, bool any_reduction = false);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  std::size_t answers() const { return answers_.size(); }
  /// Why the answer of this rank cannot run (the heuristic gave fewer), or nullopt.
  std::optional<std::string> unavailable(std::size_t rank) const;
  /// The answer of `rank` (which must be available).
  const cublasLtMatmulAlgo_t& answer(std::size_t rank) const { return answers_.at(rank).algo; }
  /// What the answer is: "cuBLASLt algorithm 66, tile 24, stages 20, ..., workspace 0 B".
  std::string describe_answer(std::size_t rank) const;
  /// The algorithm `config` names, configured for this problem, or why cuBLASLt refuses it here: no such algorithm
  /// for the types, an attribute its capabilities lack, cublasLtMatmulAlgoCheck's refusal, or more workspace than
  /// the spec's (cublaslt_algo.cpp).
  LtConfigured configure(const LtAlgoConfig& config) const;
  /// The types the problem is described with, in cuBLASLt's operand order.
  const LtTypes& types() const { return types_; }
  cublasLtHandle_t handle() const { return handle_; }
  /// D = alpha * A * B + beta * C into C with `algo` (an answer, or one configure() accepted), on `stream`.
  cublasStatus_t enqueue(const cublasLtMatmulAlgo_t& algo, const LtOperands& operands, CUstream stream) const;

 private:
  void set_operation(const LibrarySpec& library, std::optional<cudaDataType_t> bias);
  void find_answers(std::size_t workspace_bytes, bool any_reduction);

  const CublasLtApi& lt_;
  std::string name_;  // the spec's, for messages
  bool fp8_ = false;
  bool with_bias_ = false;
  LtTypes types_;
  std::size_t workspace_bytes_ = 0;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> answers_;
  std::string refusal_;  // the heuristic's status when it gave no answer
  mutable std::mutex pointers_;  // FP8: the scale and bias pointers live in the descriptor, set per call
};

}  // namespace cutune::detail
