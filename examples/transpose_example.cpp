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

#include "example_support.hpp"

int main(int argc, char** argv) {
  example::Arguments args{.db = "cutune.db", .shape = "4096x3000"};
  if (auto code = example::parse(argc, argv, "transpose_example: transposes a matrix with the tuned transpose through the runtime API, and checks it", "matrix shape MxN", args)) return *code;
  const std::string& shape = args.shape;
  try {
    cutune::Runtime runtime = example::open_runtime(args.db);  // without a database: the spec's default configuration
    const cutune::RuntimeKernel& transpose = runtime.kernel("transpose", shape);
    const int m = static_cast<int>(transpose.shape().dims[0]);
    const int n = static_cast<int>(transpose.shape().dims[1]);

    std::vector<float> in(static_cast<std::size_t>(m) * n);
    std::iota(in.begin(), in.end(), 0.0f);
    float* d_in = nullptr;
    float* d_out = nullptr;
    const std::size_t bytes = in.size() * sizeof(float);
    example::check(cudaMalloc(&d_in, bytes), "cudaMalloc");
    example::check(cudaMalloc(&d_out, bytes), "cudaMalloc");
    cudaStream_t stream = nullptr;
    example::check(cudaStreamCreate(&stream), "cudaStreamCreate");
    example::check(cudaMemcpyAsync(d_in, in.data(), bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    transpose(stream, d_out, d_in, m, n);  // the spec's arguments: out, in, M, N
    std::vector<float> out(in.size());
    example::check(cudaMemcpyAsync(out.data(), d_out, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    example::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

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
