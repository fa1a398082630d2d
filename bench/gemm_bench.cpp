// Tuned SGEMM against cublasSgemm (pure FP32, no TF32), timed the same way in one run.
//
// Usage: gemm_bench [--db FILE] [--budget N] [--strategy S] [--where EXPR]... [SHAPE ...]
//        (shapes MxNxK; default: the nine of bench/RESULTS.md)
// Each shape is tuned first (resuming from FILE; --budget configurations per shape with the default strategy or S,
// 0 for the whole space; --where restricts the space as in `tune`), then the best configuration and cublasSgemm on the same row-major A, B, C are timed with
// the same method: warm-up, L2 flush before each run, CUDA events, median of 50.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cublas_support.hpp"
#include "cutune/templates.hpp"

namespace {

using cutune::bench::check;

struct Row {
  std::string shape, config;
  double tuned, cublas;  // GFLOP/s
  std::size_t evaluated;
};

// cublasSgemm on row-major matrices (computed as the column-major C^T = B^T A^T), timed on the workbench and
// checked at sampled elements against a double-precision host product.
double cublas_gflops(cutune::Workbench& bench, std::int64_t m, std::int64_t n, std::int64_t k) {
  std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n)), c(static_cast<std::size_t>(m * n));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  check(cudaMalloc(&da, a.size() * 4), "cudaMalloc");
  check(cudaMalloc(&db, b.size() * 4), "cudaMalloc");
  check(cudaMalloc(&dc, c.size() * 4), "cudaMalloc");
  check(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  check(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");  // FP32 throughout, no TF32
  const float alpha = 1.0f, beta = 0.0f;
  auto enqueue = [&](void* stream) {
    check(cublasSetStream(handle, static_cast<cudaStream_t>(stream)), "cublasSetStream");
    check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
                      &alpha, db, static_cast<int>(n), da, static_cast<int>(k), &beta, dc, static_cast<int>(n)),
          "cublasSgemm");
  };
  const cutune::Timing t = cutune::summarize(bench.time(enqueue));
  check(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (std::int64_t i = 0; i < m; i += std::max<std::int64_t>(1, m / 7)) {
    for (std::int64_t j = 0; j < n; j += std::max<std::int64_t>(1, n / 5)) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) sum += double(a[static_cast<std::size_t>(i * k + p)]) * b[static_cast<std::size_t>(p * n + j)];
      if (std::abs(sum - c[static_cast<std::size_t>(i * n + j)]) > 1e-5 * static_cast<double>(k) + 1e-5) {
        throw cutune::Error(fmt::format("cublasSgemm differs from the host product at ({}, {}): the layout is wrong", i, j));
      }
    }
  }
  cublasDestroy(handle);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / (t.median * 1e-3) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  std::string db_path = "gemm_bench.db";
  std::size_t budget = 0;
  std::string strategy;
  std::vector<std::string> where;
  std::vector<std::string> shapes = {"1024x1024x1024", "2048x2048x2048", "4096x4096x4096", "8192x8192x8192",
                                     "1000x1000x1000", "64x4096x4096",   "4096x4096x64",   "8192x8192x256",
                                     "127x257x511"};
  CLI::App app{"gemm_bench: the tuned SGEMM against cublasSgemm, same run, same timing"};
  app.add_option("shapes", shapes, "MxNxK shapes to tune and compare")->capture_default_str();
  app.add_option("--db", db_path, "database the tuning results go to (resumed when it holds some)")->capture_default_str();
  app.add_option("--budget", budget, "most configurations per shape (0: the whole space)")->capture_default_str();
  app.add_option("--strategy", strategy, "search strategy (default: the tuner's)");
  app.add_option("--where", where, "extra constraint on the space, e.g. \"SPLITK == 1\" (repeatable)");
  const cutune::bench::FlushOption flush(app);
  CLI11_PARSE(app, argc, argv);
  try {

    cutune::Device device;
    cutune::bench::share_context(device);
    cutune::Database db(db_path);
    cutune::KernelSpec spec = cutune::load_kernel("gemm");
    for (const auto& w : where) spec.restrict_to(w);
    std::vector<Row> rows;
    for (const auto& text : shapes) {
      const cutune::Shape shape = spec.parse_shape(text);
      const cutune::ShapeReport report = cutune::bench::tune_shape(device, db, spec, shape, "gemm_bench", budget, strategy, 0.0,
                                                                            flush.get());
      cutune::Workbench bench(device, spec, shape, cutune::bench::timing(50, 5, flush.get()));
      const cutune::Result tuned = cutune::bench::time_best(device, bench, spec, report);
      const double cublas = cublas_gflops(bench, shape.dims[0], shape.dims[1], shape.dims[2]);
      rows.push_back({text, tuned.config, tuned.metric, cublas, report.evaluated + report.resumed});
      fmt::print("{} tuned {:.0f} GFLOP/s, cuBLAS {:.0f}: {}\n", text, tuned.metric, cublas, tuned.config);
    }

    fmt::print("\nSGEMM on {} ({}, {} SMs), FP32, median of 50 runs, L2 before each: {}, TFLOP/s\n",
               device.identity().name, device.identity().arch(), device.identity().sm_count, flush.name(spec));
    fmt::print("{:<16} {:>7} {:>7} {:>8} {:>6}  {}\n", "shape", "tuned", "cuBLAS", "ratio", "tried", "best configuration");
    for (const auto& r : rows) {
      fmt::print("{:<16} {:>7.2f} {:>7.2f} {:>7.1f}% {:>6}  {}\n", r.shape, r.tuned / 1e3, r.cublas / 1e3,
                 100.0 * r.tuned / r.cublas, r.evaluated, r.config);
    }
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
