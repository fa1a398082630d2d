// Runs the tuned saxpy_pipeline (y = 0.75 x + 0.5) over a pinned host array through cutune's runtime API, and
// checks the result.
//
//   pipeline_example [--db cutune.db] [N]
//
// The arrays and streams are the application's own (CUDA runtime); cutune picks the chunk size, the stream count
// and the kernel's configuration, and enqueues the copies and launches chunk by chunk.
#include <cuda_runtime.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <cutune/error.hpp>

#include <cutune/runtime_pipeline.hpp>

#include "example_support.hpp"

int main(int argc, char** argv) {
  example::Arguments args{.db = "cutune.db", .shape = "67108864"};
  if (auto code = example::parse(argc, argv, "pipeline_example: runs the tuned saxpy_pipeline over pinned host arrays through the runtime API, and checks it", "array length N", args)) return *code;
  const std::string& shape = args.shape;
  try {
    cutune::Runtime runtime = example::open_runtime(args.db);  // without a database: the spec's default configuration
    const cutune::RuntimePipeline saxpy = runtime.pipeline("saxpy_pipeline", shape);
    const std::int64_t n = saxpy.kernel().shape().dims[0];

    float* x = nullptr;
    float* y = nullptr;  // pinned: asynchronous copies need page-locked memory (a std::vector is refused)
    example::check(cudaMallocHost(&x, static_cast<std::size_t>(n) * sizeof(float)), "cudaMallocHost");
    example::check(cudaMallocHost(&y, static_cast<std::size_t>(n) * sizeof(float)), "cudaMallocHost");
    for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000) / 1000.0f;
    std::vector<cudaStream_t> streams(4);
    for (auto& s : streams) example::check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    const std::vector<void*> stream_set(streams.begin(), streams.end());
    const float a = 0.75f, b = 0.5f;
    saxpy(stream_set, static_cast<void*>(y), static_cast<const void*>(x), a, b, n);  // y, x, a, b, n (per chunk)
    example::check(cudaStreamSynchronize(streams[0]), "cudaStreamSynchronize");  // every stream is joined into the first

    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) wrong += std::fabs(y[i] - (a * x[i] + b)) > 1e-6f;
    const cutune::PipelinePlan& plan = saxpy.plan();
    std::cout << "device  " << runtime.device().name << "\n"
              << "config  " << saxpy.kernel().choice().result.config << " ("
              << cutune::to_string(saxpy.kernel().choice().match) << ")\n"
              << "chunks  " << plan.chunks.size() << " of " << plan.chunk << " over " << plan.streams_used()
              << " streams\ncheck   " << (wrong == 0 ? "ok" : std::to_string(wrong) + " elements wrong") << "\n";
    for (auto& s : streams) cudaStreamDestroy(s);
    cudaFreeHost(x);
    cudaFreeHost(y);
    return wrong == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
