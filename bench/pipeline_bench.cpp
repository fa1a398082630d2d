// The tuned host pipeline against the serial copy-compute-copy baseline and the transfer-only bound, in one run.
//
// Usage: pipeline_bench [--db FILE] [--sizes 64,256,1024] [--kernels saxpy_pipeline,poly_pipeline] [--budget 40]
//                       [--repeats 10]
// Sizes are MiB per array (x in, y out, floats; 4096 for 4 GiB). Each kernel and size is tuned first (resuming from
// FILE), then, in this process, with one CUDA context kept alive as an application would: the tuned pipeline
// through the runtime API on pinned arrays and streams of its own; the serial baseline (one whole-array copy in, the
// same kernel at the same configuration over the whole array, one copy out, on one stream); each copy alone (the
// transfer-only bound is the longer one, as copies in and out use separate engines); both copies at once (the
// duplex figure: what the link gives when both directions run); the kernel alone on device-resident data. Every
// figure is the median of --repeats runs timed with CUDA events, after two warm-ups; host memory is not touched
// between runs, so no run finds data in a cache.
#include <CLI/CLI.hpp>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cutune/runtime_pipeline.hpp"
#include "cutune/templates.hpp"

namespace {

using cutune::bench::check;

constexpr float kA = 0.75f, kB = 0.5f;  // the templates' scalars

struct Row {
  std::string kernel, config;
  std::int64_t mib = 0;
  double pipeline_ms, serial_ms, h2d_ms, d2h_ms, duplex_ms, compute_ms;
};

// Median of `repeats` runs of `enqueue` on `stream`, each bracketed by events, after two warm-ups; ms.
double time_ms(cudaStream_t stream, int repeats, const std::function<void()>& enqueue) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < 2; ++i) enqueue();
  std::vector<double> samples;
  for (int i = 0; i < repeats; ++i) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    enqueue();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    samples.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return cutune::summarize(samples).median;
}

// y = f(x) at a sample of indices, in double as the reference kernel computes it: the pipeline's output is checked
// before its time counts.
void check_sample(const cutune::KernelSpec& spec, const float* x, const float* y, std::int64_t n, const char* what) {
  int steps = 1;
  for (const auto& option : spec.compile_options)
    if (option.starts_with("-DSTEPS=")) steps = std::stoi(option.substr(8));
  for (std::int64_t i = 0; i < n; i += std::max<std::int64_t>(1, n / 4099)) {
    double v = x[i];
    for (int s = 0; s < steps; ++s) v = std::fma(static_cast<double>(kA), v, static_cast<double>(kB));
    if (!(std::fabs(y[i] - v) <= 1e-5 + 1e-5 * std::fabs(v))) {
      throw cutune::Error(fmt::format("{}: {} differs from the reference at index {}: {} against {}", spec.name, what, i,
                                      y[i], v));
    }
  }
}

Row measure(cutune::Runtime& runtime, const cutune::KernelSpec& spec, std::int64_t mib, int repeats) {
  const std::int64_t n = mib * (1LL << 20) / static_cast<std::int64_t>(sizeof(float));
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  const std::string shape = std::to_string(n);
  cutune::RuntimePipeline pipeline = runtime.pipeline(spec.name, shape);
  const cutune::RuntimeKernel& kernel = runtime.kernel(spec.name, shape);  // the same configuration, whole array

  float *x = nullptr, *y = nullptr, *dx = nullptr, *dy = nullptr;
  check(cudaMallocHost(&x, bytes), "cudaMallocHost");
  check(cudaMallocHost(&y, bytes), "cudaMallocHost");
  check(cudaMalloc(&dx, bytes), "cudaMalloc");
  check(cudaMalloc(&dy, bytes), "cudaMalloc");
  std::mt19937 random(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < n; ++i) x[i] = uniform(random);
  std::vector<cudaStream_t> streams(cutune::PipelineSpec::kMaxStreams);
  for (auto& s : streams) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  const std::vector<void*> all(streams.begin(), streams.end());
  cudaStream_t s0 = streams[0];
  const void* x_in = x;
  void* y_out = y;

  Row row{spec.name, kernel.choice().result.config, mib, 0, 0, 0, 0, 0, 0};
  std::fill(y, y + n, std::nanf(""));
  row.pipeline_ms = time_ms(s0, repeats, [&] { pipeline(all, y_out, x_in, kA, kB, n); });
  check_sample(spec, x, y, n, "the pipeline's output");
  std::fill(y, y + n, std::nanf(""));
  row.serial_ms = time_ms(s0, repeats, [&] {
    check(cudaMemcpyAsync(dx, x, bytes, cudaMemcpyHostToDevice, s0), "cudaMemcpyAsync");
    kernel(s0, dy, static_cast<const float*>(dx), kA, kB, n);
    check(cudaMemcpyAsync(y, dy, bytes, cudaMemcpyDeviceToHost, s0), "cudaMemcpyAsync");
  });
  check_sample(spec, x, y, n, "the serial baseline's output");
  row.h2d_ms = time_ms(s0, repeats, [&] { check(cudaMemcpyAsync(dx, x, bytes, cudaMemcpyHostToDevice, s0), "H2D"); });
  row.d2h_ms = time_ms(s0, repeats, [&] { check(cudaMemcpyAsync(y, dy, bytes, cudaMemcpyDeviceToHost, s0), "D2H"); });
  // Both directions at once, each on its own stream and copy engine: what the link gives a pipeline that keeps both
  // busy (on PCIe the two directions share host memory and the root complex, so this can exceed the larger one).
  cudaStream_t s1 = streams[1];
  cudaEvent_t begun = nullptr, ended = nullptr;
  check(cudaEventCreateWithFlags(&begun, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventCreateWithFlags(&ended, cudaEventDisableTiming), "cudaEventCreate");
  row.duplex_ms = time_ms(s0, repeats, [&] {
    check(cudaEventRecord(begun, s0), "cudaEventRecord");
    check(cudaStreamWaitEvent(s1, begun, 0), "cudaStreamWaitEvent");
    check(cudaMemcpyAsync(dx, x, bytes, cudaMemcpyHostToDevice, s0), "H2D");
    check(cudaMemcpyAsync(y, dy, bytes, cudaMemcpyDeviceToHost, s1), "D2H");
    check(cudaEventRecord(ended, s1), "cudaEventRecord");
    check(cudaStreamWaitEvent(s0, ended, 0), "cudaStreamWaitEvent");
  });
  cudaEventDestroy(begun);
  cudaEventDestroy(ended);
  row.compute_ms = time_ms(s0, repeats, [&] { kernel(s0, dy, static_cast<const float*>(dx), kA, kB, n); });

  for (auto& s : streams) cudaStreamDestroy(s);
  cudaFreeHost(x);
  cudaFreeHost(y);
  cudaFree(dx);
  cudaFree(dy);
  return row;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pipeline_bench: the tuned host pipeline against serial copy-compute-copy and the transfer-only bound"};
  std::string db_path = "pipeline_bench.db", sizes = "64,256,1024", kernels = "saxpy_pipeline,poly_pipeline";
  std::size_t budget = 40;
  int repeats = 10;
  app.add_option("--db", db_path, "tuning database (resumed)")->capture_default_str();
  app.add_option("--sizes", sizes, "MiB per array, comma-separated (4096 for 4 GiB)")->capture_default_str();
  app.add_option("--kernels", kernels, "pipeline kernels, comma-separated")->capture_default_str();
  app.add_option("--budget", budget, "configurations tuned per kernel and size")->capture_default_str();
  app.add_option("--repeats", repeats, "timed runs per figure (median)")->check(CLI::Range(1, 1000))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    cutune::Device device;
    cutune::bench::share_context(device);
    std::vector<Row> rows;
    for (const std::string& name : split(kernels)) {
      const cutune::KernelSpec spec = cutune::load_kernel(name);
      for (const std::string& size : split(sizes)) {
        const std::int64_t mib = std::stoll(size);
        const cutune::Shape shape{{mib * (1LL << 20) / 4}};
        {
          cutune::Database db(db_path);
          const auto report = cutune::bench::tune_shape(device, db, spec, shape, "pipeline_bench", budget);
          fmt::print(stderr, "{} {} MiB: tuned {} configurations, best {} ({:.3f} ms)\n", name, mib,
                     report.evaluated + report.resumed, report.best->config, report.best->median_ms);
        }
        cutune::Runtime runtime({.database = db_path, .device = device.ordinal(), .flush = std::nullopt});
        rows.push_back(measure(runtime, spec, mib, repeats));
      }
    }
    fmt::print("\n{:<15} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} {:>11} {:>10} {:>11} {:>9}  {}\n", "kernel",
               "MiB", "pipe ms", "serial ms", "bound ms", "H2D ms", "D2H ms", "duplex ms", "comp ms", "H2D GB/s",
               "serial/pipe", "pipe/bound", "pipe/duplex", "comp/xfer", "tuned configuration");
    for (const Row& r : rows) {
      const double bound = std::max(r.h2d_ms, r.d2h_ms);
      const double gbs = static_cast<double>(r.mib) * (1 << 20) / (r.h2d_ms * 1e-3) / 1e9;
      fmt::print("{:<15} {:>6} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>8.2f} {:>8.1f} {:>10.2f}x {:>10.3f} "
                 "{:>11.3f} {:>9.2f}  {}\n",
                 r.kernel, r.mib, r.pipeline_ms, r.serial_ms, bound, r.h2d_ms, r.d2h_ms, r.duplex_ms, r.compute_ms, gbs,
                 r.serial_ms / r.pipeline_ms, r.pipeline_ms / bound, r.pipeline_ms / r.duplex_ms,
                 r.compute_ms / (r.h2d_ms + r.d2h_ms), r.config);
    }
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "pipeline_bench: {}\n", e.what());
    return 1;
  }
}
