// What the cuBLAS benchmarks share (apart from bench_support.hpp, which the CUB benchmark includes too): the status
// check, a handle, and the tensor-core GEMMs' element types with cublasGemmEx on row-major matrices.
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cutune/error.hpp"

namespace cutune::bench {

inline void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(std::string(what) + ": cuBLAS status " + std::to_string(s));
}

/// A cuBLAS handle, destroyed with its owner.
class Cublas {
 public:
  Cublas() { check(cublasCreate(&handle_), "cublasCreate"); }
  ~Cublas() { cublasDestroy(handle_); }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

/// The element type of a tensor-core GEMM kernel (gemm_tf32, gemm_bf16, gemm_f16) as cuBLAS names it, the compute
/// type that matches the kernel (FP32 accumulation; TF32 inputs: CUBLAS_COMPUTE_32F_FAST_TF32), and host conversions.
struct Element {
  cudaDataType_t type;
  cublasComputeType_t compute;
  std::size_t bytes;
  void (*store)(void* dst, std::size_t i, float v);
  float (*load)(const void* src, std::size_t i);
};

/// The element type of `name`: a template (gemm_TYPE), an operation (matmul_TYPE) or a cuBLASLt family of the type
/// (gemm_TYPE_cublaslt, gemm_TYPE_cublaslt_config).
inline Element element(const std::string& name) {
  std::string kernel = name.starts_with("matmul_") ? "gemm_" + name.substr(7) : name;
  kernel = kernel.substr(0, kernel.find("_cublaslt"));
  if (kernel == "gemm_tf32") {
    return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4,
            [](void* d, std::size_t i, float v) { static_cast<float*>(d)[i] = v; },
            [](const void* s, std::size_t i) { return static_cast<const float*>(s)[i]; }};
  }
  if (kernel == "gemm_bf16") {
    return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2,
            [](void* d, std::size_t i, float v) { static_cast<__nv_bfloat16*>(d)[i] = __float2bfloat16(v); },
            [](const void* s, std::size_t i) { return __bfloat162float(static_cast<const __nv_bfloat16*>(s)[i]); }};
  }
  if (kernel == "gemm_f16") {
    return {CUDA_R_16F, CUBLAS_COMPUTE_32F, 2,
            [](void* d, std::size_t i, float v) { static_cast<__half*>(d)[i] = __float2half(v); },
            [](const void* s, std::size_t i) { return __half2float(static_cast<const __half*>(s)[i]); }};
  }
  throw InputError("no cuBLAS comparison for " + name);
}

/// `count` host elements of type `e`, uniform in [-1, 1) (never all zeros), drawn from `rng`.
inline std::vector<unsigned char> random_elements(const Element& e, std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<unsigned char> host(count * e.bytes);
  for (std::size_t i = 0; i < count; ++i) e.store(host.data(), i, dist(rng));
  return host;
}

/// C = A·B (alpha 1, beta 0) on row-major M×K A, K×N B and M×N C of type `e`, enqueued on the handle's stream:
/// cuBLAS is column-major, so it computes C^T = B^T·A^T.
inline void gemm_row_major(cublasHandle_t handle, const Element& e, std::int64_t m, std::int64_t n, std::int64_t k,
                           const void* a, const void* b, void* c) {
  const float alpha = 1.0f, beta = 0.0f;
  check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
                     &alpha, b, e.type, static_cast<int>(n), a, e.type, static_cast<int>(k), &beta, c, e.type,
                     static_cast<int>(n), e.compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

/// The largest |ours - theirs| over the largest |theirs|, for C matrices of type `e` (infinite where ours is NaN).
inline double relative_difference(const Element& e, const DeviceBuffer& ours, const DeviceBuffer& theirs) {
  const std::vector<unsigned char> a = ours.download(), b = theirs.download();
  double largest = 0.0, diff = 0.0;
  for (std::size_t i = 0; i < a.size() / e.bytes; ++i) {
    const double x = e.load(a.data(), i), y = e.load(b.data(), i);
    const double d = std::abs(x - y);
    diff = (d <= diff) ? diff : (std::isnan(d) ? INFINITY : d);
    largest = std::max(largest, std::abs(y));
  }
  return diff / std::max(largest, 1e-30);
}

}  // namespace cutune::bench
