// What the runtime API costs an application: a best-configuration lookup on an open database, and the time to
// a ready-to-launch kernel from a warm cubin cache (targets: at most 10 us and 2 ms).
//
// Usage: runtime_bench [--lookups N]   The lookup part runs anywhere; the kernel part needs a GPU.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cutune/cubin_cache.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/runtime.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Row {
  std::string what;
  double p50_us = 0.0;
  double p99_us = 0.0;
  std::size_t samples = 0;
};

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

// `untimed` runs before each timed call of `body`.
Row time_each(const std::string& what, int n, const std::function<void(int)>& body,
              const std::function<void(int)>& untimed = {}) {
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (untimed) untimed(i);
    const auto start = Clock::now();
    body(i);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return {what, quantile(us, 0.5), quantile(us, 0.99), us.size()};
}

cutune::DeviceIdentity device(const std::string& name, int cc_major, int sm_count) {
  cutune::DeviceIdentity d;
  d.name = name;
  d.cc_major = cc_major;
  d.sm_count = sm_count;
  return d;
}

// A database as a cluster's merged results look: 3 devices x 12 shapes x up to 200 configurations of one kernel,
// added in one transaction (as a merge does).
void fill(cutune::Database& db, const cutune::KernelSpec& spec, const std::vector<cutune::DeviceIdentity>& devices) {
  std::mt19937 random(1);
  std::uniform_real_distribution<double> ms(0.05, 2.0);
  // Valid configurations only: rows of a built-in kernel's version are checked against its spec when added.
  const cutune::Space space = cutune::Space::enumerate(spec, std::nullopt, cutune::DeviceLimits{});
  std::vector<cutune::RunRecord> runs;
  for (const auto& d : devices) {
    cutune::RunRecord run;
    run.uid = "bench-" + d.name;
    run.device = d;
    run.kernel = {spec.name, spec.hash};
    run.started_at = "2025-01-01T00:00:00.000000Z";
    for (int s = 0; s < 12; ++s) {
      const std::string shape = std::to_string(512 << (s % 6)) + "x" + std::to_string(1024 << (s / 6));
      for (std::size_t c = 0; c < std::min<std::size_t>(200, space.size()); ++c) {
        cutune::Measurement m{shape, {}, run.started_at};
        m.result.config = spec.format(space.configs()[c]);
        m.result.median_ms = ms(random);
        m.result.samples_ms.assign(20, m.result.median_ms);
        run.measurements.push_back(std::move(m));
      }
    }
    runs.push_back(std::move(run));
  }
  db.add_runs(runs);
}

void print(const std::vector<Row>& rows) {
  fmt::print("{:<70} {:>10} {:>10} {:>8}\n", "measure", "p50 us", "p99 us", "n");
  for (const auto& r : rows) fmt::print("{:<70} {:>10.2f} {:>10.2f} {:>8}\n", r.what, r.p50_us, r.p99_us, r.samples);
}

// The kernel part, as an application meets it: the first Runtime of a process (which creates the device's primary
// context), then Runtimes made while the application's own context is alive (a program using the CUDA runtime
// holds the primary context), each from a cubin cache a previous process filled.
void time_kernels(const cutune::KernelSpec& spec, const fs::path& dir, int lookups, std::vector<Row>& rows) {
  const cutune::Device gpu(0);  // its identity only: no context yet
  const auto shape = spec.parse_shape("4096x4096");
  {
    cutune::Database db(dir / "gpu.db");
    cutune::Result r;
    r.config = "TILE=32,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
    r.median_ms = 0.1;
    db.record(db.begin_run(gpu.identity(), {spec.name, spec.hash}, "runtime_bench"), shape.str(), r);
    cutune::CubinCache cache(dir / "cubins");  // NVRTC needs no context: the cache is warm before any Runtime
    cutune::compile_config_cached(&cache, spec, spec.parse_config(r.config), gpu.identity().arch(), &shape);
  }
  cutune::RuntimeOptions options;
  options.database = dir / "gpu.db";
  options.cache_directory = dir / "cubins";
  {
    const auto start = Clock::now();
    cutune::Runtime first(options);
    const double ready_ms = first.kernel(spec, shape).ready_ms();
    const double total_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    rows.push_back({"first Runtime of the process + kernel() (makes the context)", total_us, total_us, 1});
    rows.push_back({"  of which kernel()", ready_ms * 1000.0, ready_ms * 1000.0, 1});
  }
  gpu.retain_context();  // the application's own context, alive from here on
  std::vector<double> ready_us;
  rows.push_back(time_each("new Runtime + kernel(), application context alive", 50, [&](int) {
    cutune::Runtime runtime(options);
    ready_us.push_back(runtime.kernel(spec, shape).ready_ms() * 1000.0);
  }));
  rows.push_back({"  of which kernel() (lookup, cache read, module load)", quantile(ready_us, 0.5),
                  quantile(ready_us, 0.99), ready_us.size()});
  cutune::Runtime runtime(options);
  runtime.kernel("transpose", "4096x4096");
  rows.push_back(time_each("kernel(): second request (in-memory map)", lookups,
                           [&](int) { runtime.kernel("transpose", "4096x4096"); }));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"runtime_bench: what a lookup and a ready-to-launch kernel cost an application"};
  int lookups = 20000;
  app.add_option("--lookups", lookups, "lookups timed per row")->check(CLI::Range(100, 100000000));
  CLI11_PARSE(app, argc, argv);
  const fs::path dir = fs::temp_directory_path() / ("cutune_runtime_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  int code = 0;
  try {
    const cutune::KernelSpec spec = cutune::load_kernel("transpose");
    const auto h200 = device("NVIDIA H200", 9, 132);
    const std::vector<cutune::DeviceIdentity> devices{h200, device("NVIDIA H100 80GB HBM3", 9, 132),
                                                      device("NVIDIA A100-SXM4-80GB", 8, 108)};
    std::vector<Row> rows;
    {
      cutune::Database db(dir / "bench.db");
      fill(db, spec, devices);
      const cutune::BestQuery exact{spec.name, spec.hash, h200, "2048x2048"};
      cutune::BestQuery nearest = exact;
      nearest.shape = "3000x2000";
      cutune::BestQuery same_arch = exact;
      same_arch.device = device("NVIDIA GH200 480GB", 9, 132);
      for (int i = 0; i < 100; ++i) db.best(exact);  // warm the page cache and the prepared statements
      rows.push_back(time_each("lookup: best(), exact shape", lookups, [&](int) { db.best(exact); }));
      rows.push_back(time_each("lookup: best_with_fallback(), exact shape", lookups,
                               [&](int) { db.best_with_fallback(exact); }));
      rows.push_back(time_each("lookup: best_with_fallback(), nearest tuned shape", lookups / 4,
                               [&](int) { db.best_with_fallback(nearest); }));
      rows.push_back(time_each("lookup: best_with_fallback(), same compute capability", lookups / 4,
                               [&](int) { db.best_with_fallback(same_arch); }));
      // A lookup's answer is remembered while the file is unchanged; these read the database again, as the first
      // lookup of a shape does, because another connection (another process, say) committed just before.
      cutune::Database writer(dir / "bench.db");
      const auto run = writer.begin_run(h200, {spec.name, spec.hash}, "runtime_bench");
      const auto commit = [&](int i) {
        cutune::Result r;
        r.config = spec.format(cutune::Space::enumerate(spec, std::nullopt, cutune::DeviceLimits{}).configs()[0]);
        r.median_ms = 100.0 + i;  // never the best
        writer.record(run, "7x7", r);
      };
      const int cold = lookups / 20;
      rows.push_back(time_each("lookup: best(), exact shape, file changed", cold, [&](int) { db.best(exact); },
                               commit));
      rows.push_back(time_each("lookup: best_with_fallback(), nearest tuned shape, file changed", cold,
                               [&](int) { db.best_with_fallback(nearest); }, commit));
      rows.push_back(time_each("lookup: best_with_fallback(), same compute capability, file changed", cold,
                               [&](int) { db.best_with_fallback(same_arch); }, commit));
      // What the first request of an untuned shape costs a Runtime besides the lookup: the 8 fastest results of each
      // tuned shape read, and each of those configurations predicted at the shape (runtime/fallback_model.hpp).
      rows.push_back(time_each("choose_config(), untuned shape (fallback model over 12 shapes)", 200, [&](int) {
        cutune::choose_config(&db, spec, h200, spec.parse_shape(nearest.shape));
      }));
      rows.push_back(time_each("open the database (as a new Runtime does)", 50,
                               [&](int) { cutune::Database again(dir / "bench.db"); }));
    }
    if (cutune::Device::count() == 0) {
      print(rows);
      fmt::print("ready-to-launch kernel: skipped ({})\n", cutune::Device::unavailable_reason());
    } else {
      time_kernels(spec, dir, lookups, rows);
      print(rows);
    }
  } catch (const cutune::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    code = 1;
  }
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  return code;
}
