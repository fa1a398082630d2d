// The cuBLAS benchmarks' status check (apart from bench_support.hpp, which the CUB benchmark includes too).
#pragma once

#include <cublas_v2.h>

#include <string>

#include "cutune/error.hpp"

namespace cutune::bench {

inline void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(std::string(what) + ": cuBLAS status " + std::to_string(s));
}

}  // namespace cutune::bench
