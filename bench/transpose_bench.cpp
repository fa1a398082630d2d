// Tuned transpose against the device's copy bandwidth and cublasSgeam, all timed the same way in one run.
//
// Usage: transpose_bench [--db FILE] [--kernel NAME] [--budget N] [--odd] [SHAPE ...]
//   (default shapes 4096x4096 8192x8192 16384x16384 4000x3000; --odd adds the awkward ones, kOddShapes)
// Each shape is tuned first (resuming from FILE; the kernel's whole space, or --budget configurations with the
// default strategy), then the best configuration, a device-to-device copy of the same bytes and cublasSgeam's
// transpose are timed with the same method: warm-up, L2 flush before each run, CUDA events, median of 50.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cublas_support.hpp"
#include "cutune/templates.hpp"

namespace {

using cutune::bench::check;

// Shapes where tiles, vectors and rows stop fitting: not multiples of the tile, of 4 or of 32, rows that start
// unaligned, one side 1 (a copy), skinny sides of 33.
const std::vector<std::string> kOddShapes = {"4097x4097", "4095x4097", "1x10000000", "10000000x1",
                                             "33x100000", "100000x33", "3000x4001"};

struct Row {
  std::string shape, config;
  double tuned_gbs, copy_gbs, sgeam_gbs;
};

// cublasSgeam's transpose of a row-major M x N matrix, timed on the workbench; checked against a host transpose.
double sgeam_gbs(cutune::Workbench& bench, std::int64_t m, std::int64_t n) {
  const std::size_t count = static_cast<std::size_t>(m * n);
  std::vector<float> host(count), back(count);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& x : host) x = dist(rng);
  float *in = nullptr, *out = nullptr;
  check(cudaMalloc(&in, count * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&out, count * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(in, host.data(), count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  const float alpha = 1.0f, beta = 0.0f;
  // Row-major M x N is column-major N x M (ld N); its transpose, column-major M x N (ld M), is row-major N x M.
  auto enqueue = [&](void* stream) {
    check(cublasSetStream(handle, static_cast<cudaStream_t>(stream)), "cublasSetStream");
    check(cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(m), static_cast<int>(n), &alpha, in,
                      static_cast<int>(n), &beta, out, static_cast<int>(m), out, static_cast<int>(m)),
          "cublasSgeam");
  };
  const cutune::Timing t = cutune::summarize(bench.time(enqueue));
  check(cudaMemcpy(back.data(), out, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (std::int64_t r = 0; r < m; r += 97)
    for (std::int64_t c = 0; c < n; c += 89)
      if (back[static_cast<std::size_t>(c * m + r)] != host[static_cast<std::size_t>(r * n + c)])
        throw cutune::Error("cublasSgeam's transpose differs from the host's: the benchmark's layout is wrong");
  cublasDestroy(handle);
  cudaFree(in);
  cudaFree(out);
  return 8.0 * static_cast<double>(count) / (t.median * 1e-3) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  std::string db_path = "transpose_bench.db";
  std::string kernel = "transpose_full";
  std::size_t budget = 0;
  bool odd = false;
  std::vector<std::string> shapes = {"4096x4096", "8192x8192", "16384x16384", "4000x3000"};
  CLI::App app{"transpose_bench: the tuned transpose against cublasSgeam and copy bandwidth, same run"};
  app.add_option("shapes", shapes, "MxN shapes to tune and compare")->capture_default_str();
  app.add_option("--db", db_path, "database the tuning results go to (resumed when it holds some)")->capture_default_str();
  app.add_option("--kernel", kernel, "transpose spec: transpose_full (whole space) or transpose (compact)")
      ->capture_default_str();
  app.add_option("--budget", budget, "most configurations per shape (0: the whole space)")->capture_default_str();
  const cutune::bench::FlushOption flush(app);
  app.add_flag("--odd", odd, "also the awkward shapes: " + fmt::format("{}", fmt::join(kOddShapes, " ")));
  CLI11_PARSE(app, argc, argv);
  if (odd) shapes.insert(shapes.end(), kOddShapes.begin(), kOddShapes.end());
  try {

    cutune::Device device;
    cutune::bench::share_context(device);
    cutune::Database db(db_path);
    const cutune::KernelSpec spec = cutune::load_kernel(kernel);
    std::vector<Row> rows;
    for (const auto& text : shapes) {
      const cutune::Shape shape = spec.parse_shape(text);
      const cutune::ShapeReport report = cutune::bench::tune_shape(device, db, spec, shape, "transpose_bench", budget, {},
                                                                            0.0, flush.get());
      cutune::Workbench bench(device, spec, shape, cutune::bench::timing(50, 5, flush.get()));
      const cutune::Result tuned = cutune::bench::time_best(device, bench, spec, report);
      const double copy = bench.copy_bandwidth(static_cast<std::int64_t>(spec.metric_amount(shape) / 2));
      const double sgeam = sgeam_gbs(bench, shape.dims[0], shape.dims[1]);
      rows.push_back({text, tuned.config, tuned.metric, copy, sgeam});
    }

    fmt::print("\n{} on {} ({}, {} SMs), median of 50 runs, L2 before each: {}, GB/s counting read + write\n", kernel,
               device.identity().name, device.identity().arch(), device.identity().sm_count, flush.name(spec));
    fmt::print("{:<13} {:>8} {:>8} {:>8} {:>9} {:>9}  {}\n", "shape", "tuned", "copy", "sgeam", "vs copy", "vs sgeam",
               "best configuration");
    for (const auto& r : rows) {
      fmt::print("{:<13} {:>8.0f} {:>8.0f} {:>8.0f} {:>8.1f}% {:>8.2f}x  {}\n", r.shape, r.tuned_gbs, r.copy_gbs,
                 r.sgeam_gbs, 100.0 * r.tuned_gbs / r.copy_gbs, r.tuned_gbs / r.sgeam_gbs, r.config);
    }
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
