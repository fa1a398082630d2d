// What the GPU tests of BF16 GEMMs launched through the runtime API share: a launch on random inputs with gemm_bf16's
// arguments, and the count of output elements outside the tolerance of the sum in double.
#pragma once

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "cutune/runtime.hpp"
#include "driver/cuda_driver.hpp"
#include "driver/device_memory.hpp"

namespace cutune::testing {

/// Launches `gemm` (gemm_bf16's arguments, alpha 1, beta 0, C poisoned) at m x n x k on inputs uniform in [-1, 1) from
/// `seed`, and counts the elements of every `row_step`-th row of C that differ from the sum in double by more than
/// `tolerance`. The kernel's context must be current.
inline int wrong_bf16_elements(const RuntimeKernel& gemm, int m, int n, int k, int row_step, const Tolerance& tolerance,
                               unsigned seed) {
  std::mt19937 random(seed);
  std::vector<__nv_bfloat16> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n);
  for (auto* v : {&a, &b})
    for (auto& x : *v) x = __float2bfloat16(std::uniform_real_distribution<float>(-1, 1)(random));
  const std::size_t counters = std::size_t((m + 15) / 16) * ((n + 31) / 32) + 1024;
  const std::size_t workspace = std::min<std::size_t>(16ull * m * n, 33554432) + 1048576;
  detail::DeviceBuffer d_a(a.size() * 2), d_b(b.size() * 2), d_c(c.size() * 2), d_counters(counters * 4),
      d_workspace(workspace * 4);
  CU_CHECK(cuMemcpyHtoD, d_a.get(), a.data(), d_a.bytes());
  CU_CHECK(cuMemcpyHtoD, d_b.get(), b.data(), d_b.bytes());
  const std::vector<unsigned short> poison(c.size(), 0xffff);  // NaN: an element left unwritten fails
  CU_CHECK(cuMemcpyHtoD, d_c.get(), poison.data(), d_c.bytes());
  const std::vector<unsigned> zeros(counters, 0u);
  CU_CHECK(cuMemcpyHtoD, d_counters.get(), zeros.data(), d_counters.bytes());
  const CUdeviceptr pa = d_a.get(), pb = d_b.get(), pc = d_c.get(), pcount = d_counters.get(), pw = d_workspace.get();
  gemm(nullptr, m, n, k, 1.0f, pa, pb, 0.0f, pc, pcount, pw, pa, pb, pc);
  CU_CHECK(cuCtxSynchronize);
  CU_CHECK(cuMemcpyDtoH, c.data(), pc, d_c.bytes());
  int wrong = 0;
  for (int i = 0; i < m; i += row_step) {
    for (int col = 0; col < n; ++col) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p)
        sum += double(__bfloat162float(a[std::size_t(i) * k + p])) * __bfloat162float(b[std::size_t(p) * n + col]);
      const double got = __bfloat162float(c[std::size_t(i) * n + col]);
      wrong += !(std::abs(got - sum) <= tolerance.atol + tolerance.rtol * std::abs(sum));
    }
  }
  return wrong;
}

}  // namespace cutune::testing
