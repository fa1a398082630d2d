// Tuned tensor-core GEMMs (gemm_tf32, gemm_bf16, gemm_f16) against cuBLAS with the same types, timed the same way.
//
// Usage: gemm_tc_bench [--types tf32,bf16,f16] [--shapes MxNxK,...] [--db FILE] [--budget N] [--time SECONDS]
//                      [--strategy S] [--where EXPR]...
// Each shape is tuned first (resuming from FILE; N configurations per shape, or SECONDS of wall time, with the
// default strategy or S), then the best configuration and cublasGemmEx on the same row-major A, B, C are timed with
// the same method: warm-up, L2 flush before each run, CUDA events, median of 50. cuBLAS computes in FP32 with the
// inputs' type (TF32: CUBLAS_COMPUTE_32F_FAST_TF32), alpha = 1, beta = 0, like the tuned kernel's verification runs.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
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
using cutune::bench::Element;

struct Row {
  std::string kernel, shape, config;
  double tuned, cublas;  // GFLOP/s
  std::size_t tried;
};

// cublasGemmEx on row-major matrices (computed as the column-major C^T = B^T A^T), timed on the workbench and
// checked at sampled elements against a double-precision host product of the same (rounded) inputs.
double cublas_gflops(cutune::Workbench& bench, const Element& e, std::int64_t m, std::int64_t n, std::int64_t k) {
  const auto count = [](std::int64_t r, std::int64_t c) { return static_cast<std::size_t>(r * c); };
  std::mt19937 rng(7);
  const std::vector<unsigned char> a = cutune::bench::random_elements(e, count(m, k), rng);
  const std::vector<unsigned char> b = cutune::bench::random_elements(e, count(k, n), rng);
  std::vector<unsigned char> c(count(m, n) * e.bytes);
  const cutune::bench::DeviceBuffer da(a), db(b), dc(c);
  const cutune::bench::Cublas handle;
  auto enqueue = [&](void* stream) {
    check(cublasSetStream(handle.get(), static_cast<cudaStream_t>(stream)), "cublasSetStream");
    cutune::bench::gemm_row_major(handle.get(), e, m, n, k, da.get(), db.get(), dc.get());
  };
  const cutune::Timing t = cutune::summarize(bench.time(enqueue));
  c = dc.download();
  // A layout check, not a precision test: TF32 or 16-bit outputs differ from the exact product by far less than this.
  for (std::int64_t i = 0; i < m; i += std::max<std::int64_t>(1, m / 7)) {
    for (std::int64_t j = 0; j < n; j += std::max<std::int64_t>(1, n / 5)) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p)
        sum += double(e.load(a.data(), count(i, k) + p)) * e.load(b.data(), count(p, n) + j);
      if (std::abs(sum - e.load(c.data(), count(i, n) + j)) > 2e-2 * std::sqrt(double(k)) + 1e-2 * std::abs(sum)) {
        throw cutune::Error(fmt::format("cublasGemmEx differs from the host product at ({}, {}): the layout is wrong", i, j));
      }
    }
  }
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return flops / (t.median * 1e-3) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tuned tensor-core GEMMs against cuBLAS (same types, FP32 compute), timed the same way"};
  std::vector<std::string> types = {"tf32", "bf16", "f16"};
  std::vector<std::string> shapes = {"1024x1024x1024", "2048x2048x2048",   "4096x4096x4096", "8192x8192x8192",
                                     "1000x1000x1000", "64x4096x4096",     "4096x4096x64",   "8192x8192x256",
                                     "127x257x511",    "16x4096x4096",     "4096x11008x4096", "4096x4096x11008"};
  std::string db_path = "gemm_tc_bench.db", strategy;
  std::size_t budget = 200;
  double seconds = 0.0;
  std::vector<std::string> where;
  app.add_option("--types", types, "element types: tf32, bf16, f16")->delimiter(',');
  app.add_option("--shapes", shapes, "shapes MxNxK")->delimiter(',');
  app.add_option("--db", db_path, "results database (tuning resumes from it)");
  app.add_option("--budget", budget, "configurations tuned per shape (0: the whole space)");
  app.add_option("--time", seconds, "wall time of tuning per shape, seconds (0: no limit)");
  app.add_option("--strategy", strategy, "search strategy (default: the tuner's)");
  app.add_option("--where", where, "an extra constraint on the configurations (repeatable)");
  const cutune::bench::FlushOption flush_option(app);
  CLI11_PARSE(app, argc, argv);
  const std::optional<cutune::L2Flush> flush = flush_option.get();

  try {
    cutune::Device device;
    cutune::bench::share_context(device);
    cutune::Database db(db_path);
    std::vector<Row> rows;
    std::string_view convention = cutune::to_string(cutune::L2Flush::Read);  // the built-in specs name none
    for (const auto& type : types) {
      const std::string kernel = "gemm_" + type;
      const Element e = cutune::bench::element(kernel);
      cutune::KernelSpec spec = cutune::load_kernel(kernel);
      for (const auto& w : where) spec.restrict_to(w);
      convention = cutune::to_string(spec.l2_flush(flush));
      for (const auto& text : shapes) {
        const cutune::Shape shape = spec.parse_shape(text);
        const cutune::ShapeReport report =
            cutune::bench::tune_shape(device, db, spec, shape, "gemm_tc_bench", budget, strategy, seconds, flush);
        cutune::Workbench bench(device, spec, shape, cutune::bench::timing(50, 5, flush));
        const cutune::Result tuned = cutune::bench::time_best(device, bench, spec, report);
        const double cublas = cublas_gflops(bench, e, shape.dims[0], shape.dims[1], shape.dims[2]);
        rows.push_back({kernel, text, tuned.config, tuned.metric, cublas, report.evaluated + report.resumed});
        fmt::print("{} {} tuned {:.1f} TFLOP/s, cuBLAS {:.1f} ({} tried in {:.0f} s): {}\n", kernel, text,
                   tuned.metric / 1e3, cublas / 1e3, rows.back().tried, report.seconds, tuned.config);
      }
    }

    fmt::print("\nTensor-core GEMM on {} ({}, {} SMs), median of 50 runs, L2 flush {}, TFLOP/s\n",
               device.identity().name, device.identity().arch(), device.identity().sm_count, convention);
    fmt::print("{:<10} {:<16} {:>7} {:>7} {:>6} {:>6}  {}\n", "kernel", "shape", "tuned", "cuBLAS", "ratio", "tried",
               "best configuration");
    for (const auto& r : rows) {
      fmt::print("{:<10} {:<16} {:>7.1f} {:>7.1f} {:>6.2f} {:>6}  {}\n", r.kernel, r.shape, r.tuned / 1e3,
                 r.cublas / 1e3, r.tuned / r.cublas, r.tried, r.config);
    }
    return 0;
  } catch (const std::exception& ex) {
    fmt::print(stderr, "error: {}\n", ex.what());
    return 1;
  }
}
