// Transposes a matrix with the tuned transpose kernel through cutune's runtime API, and checks the result.
//
//   transpose_example [--db cutune.db] [MxN]
//
// Buffers and the stream are the application's own (CUDA runtime); cutune only picks the configuration,
// compiles or loads its cubin, and launches it.
#include <cuda_runtime.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include <cutune/error.hpp>
#include <cutune/runtime.hpp>

namespace {

void check(cudaError_t result, const char* call) {
  if (result != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(result));
}

}  // namespace

int main(int argc, char** argv) {
  std::string db = "cutune.db";
  std::string shape = "4096x3000";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--db" && i + 1 < argc) {
      db = argv[++i];
    } else if (arg.rfind("--", 0) != 0) {
      shape = arg;
    } else {
      std::cerr << "usage: transpose_example [--db cutune.db] [MxN]\n";
      return 2;
    }
  }
  try {
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaFree(nullptr), "cudaFree");  // makes the runtime's context current, so cutune finds the device
    cutune::RuntimeOptions options;
    if (std::filesystem::exists(db)) options.database = db;  // without one, the spec's default configuration
    cutune::Runtime runtime(options);
    const cutune::RuntimeKernel& transpose = runtime.kernel("transpose", shape);
    const int m = static_cast<int>(transpose.shape().dims[0]);
    const int n = static_cast<int>(transpose.shape().dims[1]);

    std::vector<float> in(static_cast<std::size_t>(m) * n);
    std::iota(in.begin(), in.end(), 0.0f);
    float* d_in = nullptr;
    float* d_out = nullptr;
    const std::size_t bytes = in.size() * sizeof(float);
    check(cudaMalloc(&d_in, bytes), "cudaMalloc");
    check(cudaMalloc(&d_out, bytes), "cudaMalloc");
    cudaStream_t stream = nullptr;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    check(cudaMemcpyAsync(d_in, in.data(), bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    transpose(stream, d_out, d_in, m, n);  // the spec's arguments: out, in, M, N
    std::vector<float> out(in.size());
    check(cudaMemcpyAsync(out.data(), d_out, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

    std::size_t wrong = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        wrong += out[static_cast<std::size_t>(j) * m + i] != in[static_cast<std::size_t>(i) * n + j];
    const cutune::BestConfig& choice = transpose.choice();
    std::cout << "device  " << runtime.device().name << " (" << runtime.device().arch() << ")\n"
              << "shape   " << transpose.shape().str() << "\n"
              << "config  " << choice.result.config << "\n"
              << "rule    " << cutune::to_string(choice.match);
    if (choice.match != cutune::Match::Exact && choice.match != cutune::Match::Default) {
      std::cout << " (tuned for " << choice.shape << " on " << choice.device.name << ")";
    }
    std::cout << "\nready   " << transpose.ready_ms() << " ms (" << (transpose.from_cache() ? "cached cubin" : "compiled")
              << ")\ncheck   " << (wrong == 0 ? "ok" : std::to_string(wrong) + " elements wrong") << "\n";
    cudaStreamDestroy(stream);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
