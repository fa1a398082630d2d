// Host time of one launch through the C++ runtime API (RuntimeKernel::operator()), for comparison with a launch of
// the same kernel from Python (bench/python_launch_bench.py runs both and prints the difference).
//
// Usage: launch_overhead [--shape 64x64] [--batches 200] [--batch 256]
// Launches are timed in batches short enough that the launch queue never fills (so the GPU's speed does not
// count), the stream synchronized between batches outside the timing; it prints the median and 90th percentile of
// the host microseconds per launch over the batches.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <vector>

#include "cutune/error.hpp"
#include "cutune/runtime.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw cutune::CudaError(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"launch_overhead: host time of a launch through the C++ runtime API"};
  std::string shape = "64x64";
  int batches = 200, batch = 256;
  app.add_option("--shape", shape, "transpose shape MxN")->capture_default_str();
  app.add_option("--batches", batches, "timed batches")->capture_default_str()->check(CLI::Range(10, 100000));
  app.add_option("--batch", batch, "launches per batch (below the launch queue's depth)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  try {
    check(cudaFree(nullptr), "cudaFree");  // the primary context, as an application has it
    cutune::Runtime runtime(cutune::RuntimeOptions{});  // no database: the spec's default configuration
    const cutune::RuntimeKernel& kernel = runtime.kernel("transpose", shape);
    const auto dims = kernel.shape().dims;
    const int m = static_cast<int>(dims[0]), n = static_cast<int>(dims[1]);
    void *in = nullptr, *out = nullptr;
    check(cudaMalloc(&in, sizeof(float) * m * n), "cudaMalloc");
    check(cudaMalloc(&out, sizeof(float) * m * n), "cudaMalloc");
    cudaStream_t stream = nullptr;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    std::vector<double> per_launch_us;
    for (int b = -5; b < batches; ++b) {  // 5 batches of warm-up
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < batch; ++i) kernel(stream, out, in, m, n);
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      if (b >= 0) per_launch_us.push_back(us / batch);
    }
    std::sort(per_launch_us.begin(), per_launch_us.end());
    fmt::print("cpp transpose {} launch_us p50 {:.3f} p90 {:.3f}\n", kernel.shape().str(),
               per_launch_us[per_launch_us.size() / 2], per_launch_us[per_launch_us.size() * 9 / 10]);
    cudaFree(in);
    cudaFree(out);
    cudaStreamDestroy(stream);
  } catch (const cutune::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
