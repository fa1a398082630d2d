// Multiplies BF16 matrices with the tuned tensor-core GEMM (gemm_bf16) through cutune's runtime API, and checks
// sampled elements against a double-precision product on the host.
//
//   gemm_bf16_example [--db cutune.db] [MxNxK]
//
// The matrices, the stream and the kernel's scratch buffers (split-K counters and workspace, sized by the spec's
// expressions for this shape) are the application's own; cutune picks the configuration, loads its cubin and
// launches it.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <cutune/error.hpp>

#include <cutune/runtime.hpp>

#include "example_support.hpp"

namespace {

// A device buffer of `bytes`, freed with its owner.
struct DeviceMemory {
  explicit DeviceMemory(std::size_t bytes) { example::check(cudaMalloc(&ptr, bytes), "cudaMalloc"); }
  ~DeviceMemory() { cudaFree(ptr); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* ptr = nullptr;
};

// Elements of the spec's buffer argument `name` at the chosen configuration and shape.
std::size_t elements(const cutune::RuntimeKernel& kernel, const std::string& name) {
  const cutune::KernelSpec& spec = kernel.spec();
  for (const auto& a : spec.arguments) {
    if (a.name == name) return static_cast<std::size_t>(a.size.eval(spec.scope(kernel.config(), &kernel.shape())).as_int());
  }
  throw std::runtime_error(spec.name + " has no argument " + name);
}

}  // namespace

int main(int argc, char** argv) {
  example::Arguments args{.db = "cutune.db", .shape = "1024x2048x512"};
  if (auto code = example::parse(argc, argv, "gemm_bf16_example: multiplies BF16 matrices with the tuned gemm_bf16 through the runtime API, and checks samples", "shape MxNxK", args)) return *code;
  const std::string& shape = args.shape;
  try {
    cutune::Runtime runtime = example::open_runtime(args.db);  // without a database: the spec's default configuration
    const cutune::RuntimeKernel& gemm = runtime.kernel("gemm_bf16", shape);
    const int m = static_cast<int>(gemm.shape().dims[0]);
    const int n = static_cast<int>(gemm.shape().dims[1]);
    const int k = static_cast<int>(gemm.shape().dims[2]);

    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<__nv_bfloat16> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n),
        c(static_cast<std::size_t>(m) * n);
    for (auto& x : a) x = __float2bfloat16(dist(rng));
    for (auto& x : b) x = __float2bfloat16(dist(rng));
    DeviceMemory d_a(a.size() * 2), d_b(b.size() * 2), d_c(c.size() * 2);
    // Split-K scratch: the counters start at zero and every launch leaves them zero again.
    DeviceMemory d_counters(elements(gemm, "counters") * sizeof(unsigned));
    DeviceMemory d_workspace(elements(gemm, "workspace") * sizeof(float));
    cudaStream_t stream = nullptr;
    example::check(cudaStreamCreate(&stream), "cudaStreamCreate");
    example::check(cudaMemsetAsync(d_counters.ptr, 0, elements(gemm, "counters") * sizeof(unsigned), stream), "cudaMemsetAsync");
    example::check(cudaMemcpyAsync(d_a.ptr, a.data(), a.size() * 2, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    example::check(cudaMemcpyAsync(d_b.ptr, b.data(), b.size() * 2, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    const float alpha = 1.0f, beta = 0.0f;
    // The spec's arguments: M, N, K, alpha, A, B, beta, C, counters, workspace, a_map, b_map, c_map. The tensor maps
    // of the wgmma path take the device pointers of A, B and C: the runtime encodes them for the chosen tile (or
    // passes zeros when the configuration chosen does not read them).
    gemm(stream, m, n, k, alpha, d_a.ptr, d_b.ptr, beta, d_c.ptr, d_counters.ptr, d_workspace.ptr, d_a.ptr, d_b.ptr,
         d_c.ptr);
    example::check(cudaMemcpyAsync(c.data(), d_c.ptr, c.size() * 2, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    example::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

    // BF16 output: within one unit in the last place (2^-7 relative) of the exact product, plus FP32 accumulation.
    std::size_t wrong = 0, checked = 0;
    for (int i = 0; i < m; i += std::max(1, m / 17)) {
      for (int j = 0; j < n; j += std::max(1, n / 13)) {
        double exact = 0.0;
        for (int p = 0; p < k; ++p) {
          exact += double(__bfloat162float(a[static_cast<std::size_t>(i) * k + p])) *
                   double(__bfloat162float(b[static_cast<std::size_t>(p) * n + j]));
        }
        const double got = __bfloat162float(c[static_cast<std::size_t>(i) * n + j]);
        wrong += std::abs(got - exact) > 0x1p-7 * std::abs(exact) + 1e-7 * std::pow(k, 1.5) + 1e-5;
        ++checked;
      }
    }
    const cutune::BestConfig& choice = gemm.choice();
    std::cout << "device  " << runtime.device().name << " (" << runtime.device().arch() << ")\n"
              << "shape   " << gemm.shape().str() << "\n"
              << "config  " << choice.result.config << "\n"
              << "rule    " << cutune::to_string(choice.match) << "\n"
              << "check   " << (wrong == 0 ? "ok" : std::to_string(wrong) + " wrong") << " (" << checked
              << " elements against the host)\n";
    cudaStreamDestroy(stream);
    return wrong == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
