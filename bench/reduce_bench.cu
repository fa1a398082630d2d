// Tuned reductions (templates/reduce*) against cub::DeviceReduce::Sum and ::Max, timed the same way on the same input.
//
// Usage: reduce_bench [--db FILE] [--budget N] [--f64] [N ...]   (default lengths 2^10 2^16 2^20 2^24 2^28)
// For each kernel (reduce = float sum, reduce_max; with --f64 also reduce_sum_f64 and reduce_max_f64) and length,
// the length is tuned first (resuming from FILE; --budget configurations per length with the default strategy, 0
// or absent: the whole space). Then the best configuration (through the runtime API, as an application gets it)
// and CUB run on the same device array, one launch sequence each to a device-resident result (CUB: its two kernels,
// temporary storage allocated once beforehand), timed by the same method: 10 warm-up runs, then 100 runs each after
// an L2 flush (outside the timing), CUDA events, median. Both results are checked against a host double sum/max.
#include <CLI/CLI.hpp>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"

namespace {

using cutune::bench::check;

// Uniform in [-1, 1), from a hash of the index: the same input for the tuned kernel and CUB.
template <typename T>
__global__ void fill_uniform(T* p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint64_t x = (static_cast<std::uint64_t>(i) ^ seed) + 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    p[i] = static_cast<T>(static_cast<double>(x >> 11) * (1.0 / 4503599627370496.0) - 1.0);
  }
}

// Nothing: timed as the reductions are, it is the floor of any one-launch kernel (launch, events, an idle GPU after
// the L2 flush), against which the short lengths' times are read.
__global__ void empty_kernel() {}

template <typename T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(std::size_t n) { check(cudaMalloc(&ptr, n * sizeof(T) + 1), "cudaMalloc"); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

struct Row {
  std::string kernel, config;
  std::int64_t n = 0;
  double tuned_us = 0, cub_us = 0, tuned_gbs = 0, cub_gbs = 0;
  std::size_t tried = 0;
};

// One kernel (sum or max of T) at one length: tune, then time the best configuration and CUB.
template <typename T>
Row run(const cutune::Device& device, cutune::Database& db, cutune::Runtime& runtime, const std::string& name,
        std::int64_t n, std::size_t budget, std::optional<cutune::L2Flush> flush) {
  const bool is_max = name.find("max") != std::string::npos;
  const cutune::KernelSpec spec = cutune::load_kernel(name);
  const cutune::Shape shape{{n}};
  const cutune::ShapeReport report = cutune::bench::tune_shape(device, db, spec, shape, "reduce_bench", budget, {},
                                                                          0.0, flush);

  DeviceArray<T> in(static_cast<std::size_t>(n)), out(1), cub_out(1);
  DeviceArray<double> partials(2048);
  DeviceArray<long long> state(2);
  check(cudaMemset(state.ptr, 0, 2 * sizeof(long long)), "cudaMemset");
  fill_uniform<T><<<1024, 256>>>(in.ptr, n, 0x5eedull + static_cast<std::uint64_t>(n));
  check(cudaGetLastError(), "fill_uniform");
  std::vector<T> host(static_cast<std::size_t>(n));
  check(cudaMemcpy(host.data(), in.ptr, host.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  double expected = is_max ? -INFINITY : 0.0;
  for (T x : host) expected = is_max ? std::max(expected, static_cast<double>(x)) : expected + static_cast<double>(x);

  const cutune::RuntimeKernel& tuned = runtime.kernel(spec, shape);
  if (spec.format(tuned.config()) != report.best->config) {
    std::fprintf(stderr, "note: the database's best configuration %s is not the run's winner %s\n",
                 spec.format(tuned.config()).c_str(), report.best->config.c_str());
  }
  std::size_t temp_bytes = 0;
  const int items = static_cast<int>(n);  // CUB's common use: 32-bit lengths
  if (is_max) {
    check(cub::DeviceReduce::Max(nullptr, temp_bytes, in.ptr, cub_out.ptr, items), "cub::DeviceReduce::Max");
  } else {
    check(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.ptr, cub_out.ptr, items), "cub::DeviceReduce::Sum");
  }
  DeviceArray<unsigned char> temp(temp_bytes);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  // The workbench is only the timer here (warm-up, L2 convention, events): both run on the arrays above.
  cutune::Workbench timer(device, spec, cutune::Shape{{1}}, cutune::bench::timing(100, 10, flush));
  // Explicit captures: nvcc 13 takes a [&] lambda that captures the RuntimeKernel for a non-copyable one.
  const cutune::RuntimeKernel* kernel = &tuned;
  const long long length = n;
  T *in_ptr = in.ptr, *out_ptr = out.ptr, *cub_ptr = cub_out.ptr;
  double* partials_ptr = partials.ptr;
  long long* state_ptr = state.ptr;
  unsigned char* temp_ptr = temp.ptr;
  const auto tuned_ms = cutune::summarize(timer.time([=](void* stream) {
    (*kernel)(stream, out_ptr, in_ptr, length, partials_ptr, state_ptr);
  }));
  const auto cub_ms = cutune::summarize(timer.time([=](void* stream) {
    std::size_t bytes = temp_bytes;
    const auto s = static_cast<cudaStream_t>(stream);
    if (is_max) {
      check(cub::DeviceReduce::Max(temp_ptr, bytes, in_ptr, cub_ptr, items, s), "cub::DeviceReduce::Max");
    } else {
      check(cub::DeviceReduce::Sum(temp_ptr, bytes, in_ptr, cub_ptr, items, s), "cub::DeviceReduce::Sum");
    }
  }));

  T got = 0, cub_got = 0;
  check(cudaMemcpy(&got, out.ptr, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaMemcpy(&cub_got, cub_out.ptr, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  const cutune::Tolerance tol = spec.tolerance_at(shape);
  const double want = static_cast<double>(static_cast<T>(expected));
  if (!(std::abs(static_cast<double>(got) - want) <= tol.atol + tol.rtol * std::abs(want))) {
    throw cutune::Error(name + " at N=" + std::to_string(n) + ": the tuned result " + std::to_string(got) +
                        " is not the host's " + std::to_string(want));
  }
  if (!(std::abs(static_cast<double>(cub_got) - want) <= 1e-5 * std::sqrt(static_cast<double>(n)) + 1e-6 * std::abs(want))) {
    throw cutune::Error(name + " at N=" + std::to_string(n) + ": CUB's result " + std::to_string(cub_got) +
                        " is not the host's " + std::to_string(want) + ": the benchmark is wrong");
  }

  Row row{name, report.best->config, n};
  row.tuned_us = tuned_ms.median * 1e3;
  row.cub_us = cub_ms.median * 1e3;
  const double bytes = static_cast<double>(n) * sizeof(T);
  row.tuned_gbs = bytes / (tuned_ms.median * 1e-3) / 1e9;
  row.cub_gbs = bytes / (cub_ms.median * 1e-3) / 1e9;
  row.tried = report.evaluated + report.resumed;
  std::printf("%s N=%lld: tuned %.0f GB/s, CUB %.0f GB/s (%.1f / %.1f us): %s\n", name.c_str(), static_cast<long long>(n),
              row.tuned_gbs, row.cub_gbs, row.tuned_us, row.cub_us, row.config.c_str());
  std::fflush(stdout);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::string db_path = "reduce_bench.db";
  std::size_t budget = 0;
  bool f64 = false;
  std::vector<std::int64_t> lengths = {1LL << 10, 1LL << 16, 1LL << 20, 1LL << 24, 1LL << 28};
  CLI::App app{"reduce_bench: the tuned reductions against CUB's DeviceReduce, same run"};
  app.add_option("lengths", lengths, "array lengths (elements)")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--db", db_path, "database the tuning results go to (resumed when it holds some)")->capture_default_str();
  app.add_option("--budget", budget, "most configurations per kernel and length (0: the whole space)")->capture_default_str();
  app.add_flag("--f64", f64, "also the double-precision sum and max");
  const cutune::bench::FlushOption flush_option(app);
  CLI11_PARSE(app, argc, argv);
  const std::optional<cutune::L2Flush> flush = flush_option.get();
  try {

    cutune::Device device;
    cutune::bench::share_context(device);
    std::vector<Row> rows;
    {
      cutune::Database db(db_path);
      cutune::Runtime runtime({.database = db_path, .device = device.ordinal(), .flush = flush});
      for (std::int64_t n : lengths) {
        rows.push_back(run<float>(device, db, runtime, "reduce", n, budget, flush));
        rows.push_back(run<float>(device, db, runtime, "reduce_max", n, budget, flush));
        if (f64) {
          rows.push_back(run<double>(device, db, runtime, "reduce_sum_f64", n, budget, flush));
          rows.push_back(run<double>(device, db, runtime, "reduce_max_f64", n, budget, flush));
        }
      }
    }

    const cutune::KernelSpec any = cutune::load_kernel("reduce");  // the workbench is only the timer
    cutune::Workbench timer(device, any, cutune::Shape{{1}}, cutune::bench::timing(100, 10, flush));
    const double floor_us = cutune::summarize(timer.time([](void* stream) {
                              empty_kernel<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>();
                            })).median * 1e3;
    std::printf("\nreduction on %s (%s, %d SMs), median of 100 runs, L2 before each: %s, GB/s counting the input once\n",
                device.identity().name.c_str(), device.identity().arch().c_str(), device.identity().sm_count,
                std::string(flush_option.name(any)).c_str());
    std::printf("%10s %-15s %8s %8s %6s %8s %8s %6s  %s\n", "N", "kernel", "tuned", "CUB", "ratio", "tuned us", "CUB us",
                "tried", "best configuration");
    for (const auto& r : rows) {
      // The targets: 1.5x CUB from 2^16 to 2^20 elements (launch-bound: one launch against two), 1.0x beyond.
      const double target = r.n >= (1LL << 24) ? 1.0 : (r.n >= (1LL << 16) ? 1.5 : 1.0);
      const double ratio = r.tuned_gbs / r.cub_gbs;
      std::printf("%10lld %-15s %8.0f %8.0f %5.2fx %8.1f %8.1f %6zu  %s%s\n", static_cast<long long>(r.n), r.kernel.c_str(),
                  r.tuned_gbs, r.cub_gbs, ratio, r.tuned_us, r.cub_us, r.tried, r.config.c_str(),
                  ratio >= target ? "" : (target == 1.0 ? "  (below the 1.0x target)" : "  (below the 1.5x target)"));
    }
    std::printf("an empty kernel, timed the same way: %.1f us (the floor of one launch)\n", floor_us);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
