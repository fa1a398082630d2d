// cublasLtMatmul with FP8 inputs, as the FP8 GEMMs' bench calls it: the product of gemm_fp8 (D = alpha scale_a
// scale_b A B + beta C + bias, A M x K row-major, B N x K with K contiguous, D M x N row-major), per-tensor scales as
// device pointers, the bias epilogue, FP32 compute, 32 MB of workspace, and the heuristic's top 8 algorithms.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cublas_support.hpp"

namespace cutune::bench {

/// The types of one FP8 GEMM: A's and B's (e4m3 or e5m2) and D's (and C's and the bias's).
struct Fp8Types {
  cudaDataType_t a, b, d;
};

/// cuBLASLt's FP8 matmul in cutune's layout. cuBLASLt is column-major, so it computes D^T (N x M, column-major: D
/// row-major) = B' A' with its A operand our B (K x N column-major, transposed: "T") and its B operand our A (K x M
/// column-major: "N"), the only layouts it takes for FP8; its A scale is ours of B and its B scale ours of A.
class LtFp8 {
 public:
  static constexpr std::size_t kWorkspace = std::size_t{32} << 20;
  struct Problem {
    std::int64_t m, n, k;
    Fp8Types types;
    const void *scale_a, *scale_b, *bias;  // device pointers; bias may be null
    bool fast_accumulation;
  };
  explicit LtFp8(const Problem& p) : problem_(p), workspace_(kWorkspace) {
    check(cublasLtCreate(&handle_), "cublasLtCreate");
    check(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    set(CUBLASLT_MATMUL_DESC_TRANSA, cublasOperation_t{CUBLAS_OP_T});
    set(CUBLASLT_MATMUL_DESC_TRANSB, cublasOperation_t{CUBLAS_OP_N});
    set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, p.scale_b);
    set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, p.scale_a);
    set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t{p.fast_accumulation ? std::int8_t{1} : std::int8_t{0}});
    if (p.bias != nullptr) {
      set(CUBLASLT_MATMUL_DESC_EPILOGUE, cublasLtEpilogue_t{CUBLASLT_EPILOGUE_BIAS});
      set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, p.bias);
      set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, p.types.d);
    }
    layout(&a_, p.types.b, p.k, p.n, p.k);
    layout(&b_, p.types.a, p.k, p.m, p.k);
    layout(&d_, p.types.d, p.n, p.m, p.n);
    find_algorithms();
  }
  ~LtFp8() {
    for (auto* l : {a_, b_, d_})
      if (l != nullptr) cublasLtMatrixLayoutDestroy(l);
    if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
    if (handle_ != nullptr) cublasLtDestroy(handle_);
  }
  LtFp8(const LtFp8&) = delete;
  LtFp8& operator=(const LtFp8&) = delete;

  /// The heuristic's answers, best first (none: cuBLASLt refuses the problem; `refusal` says how).
  std::size_t algorithms() const { return algos_.size(); }
  const std::string& refusal() const { return refusal_; }
  /// D = ... with algorithm `i` of the heuristic's answers, on `stream`; C is D when beta != 0 (read in place, as
  /// cutune's), else none (FP8 matmuls refuse C aliasing D: CUBLAS_STATUS_NOT_SUPPORTED).
  void run(std::size_t i, const void* a, const void* b, void* d, float alpha, float beta, cudaStream_t stream) const {
    const void* c = beta != 0.0f ? d : nullptr;
    check(cublasLtMatmul(handle_, desc_, &alpha, b, a_, a, b_, &beta, c, d_, d, d_, &algos_.at(i).algo,
                         workspace_.get(), kWorkspace, stream),
          "cublasLtMatmul");
  }

 private:
  template <typename T>
  void set(cublasLtMatmulDescAttributes_t attribute, const T& value) {
    check(cublasLtMatmulDescSetAttribute(desc_, attribute, &value, sizeof value), "cublasLtMatmulDescSetAttribute");
  }
  static void layout(cublasLtMatrixLayout_t* l, cudaDataType_t type, std::int64_t rows, std::int64_t cols,
                     std::int64_t ld) {
    check(cublasLtMatrixLayoutCreate(l, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), ld),
          "cublasLtMatrixLayoutCreate");
  }
  void find_algorithms() {
    cublasLtMatmulPreference_t preference = nullptr;
    check(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
    const std::uint64_t bytes = kWorkspace;
    check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes,
                                               sizeof bytes),
          "cublasLtMatmulPreferenceSetAttribute");
    algos_.resize(8);
    int found = 0;
    const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_, b_, d_, d_, preference, 8,
                                                            algos_.data(), &found);
    cublasLtMatmulPreferenceDestroy(preference);
    algos_.resize(s == CUBLAS_STATUS_SUCCESS ? static_cast<std::size_t>(found) : 0);
    if (algos_.empty()) refusal_ = fmt::format("cublasLtMatmulAlgoGetHeuristic: status {}, {} algorithms", int(s), found);
  }

  Problem problem_;
  DeviceBuffer workspace_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> algos_;
  std::string refusal_;
};

}  // namespace cutune::bench
