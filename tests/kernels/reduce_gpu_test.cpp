// GPU tests of the reduce templates: sampled configurations are right at lengths from 1 to 2^28 (and 2^31 - 1),
// at misaligned starts, with NaN and infinities; deterministic configurations give the same bits run after run;
// a short tuning run works end to end. Each skips with the reason when no GPU exists.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "gpu_support.hpp"
#include "cutune/measure.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "space_sample.hpp"
#include "cutune/tuner.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

// Each configuration runs twice per evaluation (verified run, then one more), so that one that leaves its
// workspace dirty fails on its own second run or on the next configuration's.
MeasureOptions twice() {
  MeasureOptions o;
  o.warmup = 0;
  o.repeats = 2;
  o.min_repeats = 1;
  o.max_measure_ms = 0;
  o.flush = cutune::L2Flush::None;
  return o;
}

// A temporary cubin cache, so that references and configurations compile once per test.
struct TempCache {
  fs::path dir = fs::temp_directory_path() / ("cutune_reduce_cache_" + std::to_string(::getpid()));
  CubinCache cache{dir};
  ~TempCache() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

// Configurations with their binaries for one spec, compiled in parallel.
struct Compiled {
  std::vector<Config> configs;
  std::vector<CompileOutput> outputs;
};

Compiled compile_all(const KernelSpec& spec, std::vector<Config> configs, const std::string& arch, CubinCache* cache) {
  CompilePool pool;
  std::vector<std::future<CompileOutput>> futures;
  for (const auto& c : configs) futures.push_back(pool.submit([&spec, c, &arch, cache] { return compile_config_cached(cache, spec, c, arch); }));
  Compiled out{std::move(configs), {}};
  for (auto& f : futures) out.outputs.push_back(f.get());
  return out;
}

// Evaluates every configuration on one workbench; reports each failure (the first 20 in full) and returns how many
// were right.
int evaluate_all(Workbench& bench, const KernelSpec& spec, const Compiled& compiled, const std::string& where) {
  int ok = 0, failures = 0;
  for (std::size_t i = 0; i < compiled.configs.size(); ++i) {
    const Result r = bench.evaluate(compiled.configs[i], compiled.outputs[i]);
    if (r.status == Status::Ok) {
      ++ok;
    } else if (++failures <= 20) {
      ADD_FAILURE() << spec.name << " " << where << " " << r.config << ": " << to_string(r.status) << ": " << r.message;
    }
    if (!bench.usable()) {
      ADD_FAILURE() << spec.name << " " << where << ": the CUDA context is unusable after " << r.config;
      break;
    }
  }
  if (failures > 20) ADD_FAILURE() << spec.name << " " << where << ": " << failures - 20 << " more failures";
  return ok;
}

constexpr const char* kFamilies[] = {"reduce", "reduce_max", "reduce_sum_f64", "reduce_max_f64"};

// ---------------------------------------------------------------------------------------------------------------
// Every length the issue names, for 200+ configurations of each family that cover every parameter value.

void check_lengths(const char* name) {
  Device device;
  TempCache cache;
  const KernelSpec spec = load_kernel(name);
  const Space space = Space::enumerate(spec, std::nullopt, device.limits());
  const bool slots = spec.compile_options.back() == "-DTYPE=float";  // float kernels add COMBINE=2
  ASSERT_EQ(space.size(), slots ? 3024u : 2064u);
  const Compiled compiled = compile_all(spec, testing::sample_space(spec, space, 200), device.identity().arch(), &cache.cache);
  for (std::int64_t n : {1LL, 2LL, 31LL, 32LL, 33LL, 1023LL, (1LL << 20) + 7, 1LL << 28}) {
    // Only what the tuner may pick at this length (no single block beyond 2^20: it would take seconds per run).
    std::set<std::string> valid;
    const Space at_length = Space::enumerate(spec, Shape{{n}}, device.limits());
    for (const auto& c : at_length.configs()) valid.insert(spec.format(c));
    Compiled here;
    for (std::size_t i = 0; i < compiled.configs.size(); ++i) {
      if (!valid.count(spec.format(compiled.configs[i]))) continue;
      here.configs.push_back(compiled.configs[i]);
      here.outputs.push_back(compiled.outputs[i]);
    }
    Workbench bench(device, spec, Shape{{n}}, twice());
    bench.prepare(&cache.cache);
    const int ok = evaluate_all(bench, spec, here, "N=" + std::to_string(n));
    EXPECT_EQ(ok, static_cast<int>(here.configs.size())) << name << " N=" << n;
    EXPECT_GE(here.configs.size(), 160u) << name << " N=" << n;
    if (!bench.usable()) return;
  }
}

TEST(ReduceGpu, SumFloatIsRightAtEveryLength) {
  REQUIRE_GPU();
  check_lengths("reduce");
}
TEST(ReduceGpu, MaxFloatIsRightAtEveryLength) {
  REQUIRE_GPU();
  check_lengths("reduce_max");
}
TEST(ReduceGpu, SumDoubleIsRightAtEveryLength) {
  REQUIRE_GPU();
  check_lengths("reduce_sum_f64");
}
TEST(ReduceGpu, MaxDoubleIsRightAtEveryLength) {
  REQUIRE_GPU();
  check_lengths("reduce_max_f64");
}

// Every cluster configuration (CLUSTER 8 and 16: one cluster, no global combine, up to many clusters combining
// through their first blocks, by any COMBINE, one after another on the same workspace) of a float sum and a double max, at lengths from one element to 2^24 + 3.
TEST(ReduceGpu, EveryClusterConfigurationIsRight) {
  REQUIRE_GPU();
  Device device;
  if (device.identity().cc_major < 9) GTEST_SKIP() << "clusters need compute capability 9.0";
  TempCache cache;
  for (const char* name : {"reduce", "reduce_max_f64"}) {
    const KernelSpec spec = load_kernel(name);
    const std::size_t cluster = spec.parameters.size() - 1;
    ASSERT_EQ(spec.parameters[cluster].name, "CLUSTER");
    std::vector<Config> clustered;
    const Space space = Space::enumerate(spec, std::nullopt, device.limits());
    for (const auto& c : space.configs())
      if (c.values[cluster].as_int() > 1) clustered.push_back(c);
    const std::size_t expected = std::string(name) == "reduce" ? 1152u : 768u;  // the float sum has COMBINE=2 too
    ASSERT_EQ(clustered.size(), expected) << name;
    const Compiled compiled = compile_all(spec, clustered, device.identity().arch(), &cache.cache);
    for (std::int64_t n : {1LL, 4097LL, 65536LL, (1LL << 20) + 7, (1LL << 24) + 3}) {
      Workbench bench(device, spec, Shape{{n}}, twice());
      bench.prepare(&cache.cache);
      EXPECT_EQ(evaluate_all(bench, spec, compiled, "N=" + std::to_string(n)), static_cast<int>(expected))
          << name << " N=" << n;
      if (!bench.usable()) return;
    }
  }
}

// The longest array (2^31 - 1 elements, 8 GiB of floats): 64-bit indexing in the kernel and its tail.
TEST(ReduceGpu, LongestArray) {
  REQUIRE_GPU();
  Device device;
  TempCache cache;
  for (const char* name : {"reduce", "reduce_max"}) {
    const KernelSpec spec = load_kernel(name);
    std::vector<Config> configs;
    // The last one, a single block, is outside the space at this length; it tests the longest loop.
    for (const char* text : {"BLOCK=256,ITEMS=4,VEC=4,GRID=1024,SCHEME=0,COMBINE=0,CLUSTER=1", "BLOCK=128,ITEMS=1,VEC=1,GRID=2048,SCHEME=1,COMBINE=1,CLUSTER=1",
                             "BLOCK=512,ITEMS=8,VEC=2,GRID=256,SCHEME=2,COMBINE=0,CLUSTER=1", "BLOCK=1024,ITEMS=8,VEC=4,GRID=1,SCHEME=0,COMBINE=0,CLUSTER=1"})
      configs.push_back(spec.parse_config(text));
    const Compiled compiled = compile_all(spec, configs, device.identity().arch(), &cache.cache);
    Workbench bench(device, spec, Shape{{2147483647}}, twice());
    bench.prepare(&cache.cache);
    EXPECT_EQ(evaluate_all(bench, spec, compiled, "N=2147483647"), 4) << name;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Probes: the reduce kernel at a misaligned start, and with NaN and infinities. The probe source is reduce.cu plus a
// wrapper that reduces N elements from element S - 1 of the buffer, and a reference that first writes special
// values into the input according to M (the workbench fills inputs once per shape and never again, so every
// configuration then reads them) and checks that its own result has the class the mode expects; when it does not,
// it writes 12345, so that every configuration fails (the reference, not the kernel, is wrong then). Output starts at zero, not NaN, so that a NaN result is never the untouched output.
//
//   M  written                      sum     max
//   1  nothing                      finite  finite
//   2  NaN at N/2                   NaN     NaN
//   3  NaN at N-1 (tail)            NaN     NaN
//   4  NaN at 0 (head)              NaN     NaN
//   5  +inf at 0, -inf at N-1       NaN     +inf
//   6  +inf at N/2                  +inf    +inf
//   7  -inf at N/2                  -inf    finite
//   8  -inf everywhere              -inf    -inf
//   9  NaN with its sign bit at N/2 NaN     NaN
constexpr const char* kProbeSource = R"(
template <typename U> __device__ U bits_as(unsigned long long b);
template <> __device__ float bits_as<float>(unsigned long long b) { return __int_as_float((int)(b >> 32)); }
template <> __device__ double bits_as<double>(unsigned long long b) { return __longlong_as_double((long long)b); }

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_probe(T* out, const T* in, long long n, double* partials, long long* state, long long shift, int mode) {
  reduce_body(out, in + shift, n, partials, state);
}

extern "C" __global__ void reduce_probe_reference(T* out, T* in, long long n, double*, long long*, long long shift,
                                                  int mode) {
  T* a = in + shift;
  const T nan = bits_as<T>(sizeof(T) == 4 ? 0x7fc0000000000000ull : 0x7ff8000000000000ull);
  const T negative_nan = bits_as<T>(sizeof(T) == 4 ? 0xffc0000000000000ull : 0xfff8000000000000ull);
  const T inf = bits_as<T>(sizeof(T) == 4 ? 0x7f80000000000000ull : 0x7ff0000000000000ull);
  if (threadIdx.x == 0) {
    if (mode == 2) a[n / 2] = nan;
    if (mode == 3) a[n - 1] = nan;
    if (mode == 4) a[0] = nan;
    if (mode == 5) { a[0] = inf; a[n - 1] = -inf; }
    if (mode == 6) a[n / 2] = inf;
    if (mode == 7) a[n / 2] = -inf;
    if (mode == 9) a[n / 2] = negative_nan;
  }
  if (mode == 8)
    for (long long i = threadIdx.x; i < n; i += blockDim.x) a[i] = -inf;
  __syncthreads();
  reference_block(out, a, n);
  if (threadIdx.x == 0) {
    const T r = out[0];
    const bool is_nan = r != r, plus_inf = r == inf, minus_inf = r == -inf;
    const bool finite = !is_nan && !plus_inf && !minus_inf;
    bool expected = finite;
    if (mode == 2 || mode == 3 || mode == 4 || mode == 9) expected = is_nan;
    if (mode == 5) expected = OP == 0 ? is_nan : plus_inf;
    if (mode == 6) expected = plus_inf;
    if (mode == 7) expected = OP == 0 ? minus_inf : finite;
    if (mode == 8) expected = minus_inf;
    if (!expected) out[0] = T(12345);
  }
}
)";

// The probe spec of a family: its parameters, constraints, geometry and tolerance, with shape N x S x M.
KernelSpec probe_spec(const KernelSpec& family) {
  auto j = nlohmann::ordered_json::parse(family.json);
  j["name"] = family.name + "_probe";
  j["kernel"] = "reduce_probe";
  j["shape"] = {"N", "S", "M"};
  for (auto& a : j["arguments"]) {
    if (a["name"] == "out") a["fill"] = "zero";
    if (a["name"] == "in") {
      a["type"] = a["type"].get<std::string>().substr(6);  // not const: the reference writes special values
      a["size"] = "N + S";
    }
  }
  j["arguments"].push_back({{"name", "shift"}, {"type", "long long"}, {"value", "S - 1"}});
  j["arguments"].push_back({{"name", "mode"}, {"type", "int"}, {"value", "M"}});
  j["reference"]["kernel"] = "reduce_probe_reference";
  return KernelSpec::from_json(j.dump(), family.source + kProbeSource, "reduce_probe.cu");
}

void run_probes(const char* name, const std::vector<Shape>& shapes) {
  Device device;
  TempCache cache;
  const KernelSpec family = load_kernel(name);
  const KernelSpec spec = probe_spec(family);
  const Space space = Space::enumerate(spec, std::nullopt, device.limits());
  const bool slots = spec.compile_options.back() == "-DTYPE=float";  // float kernels add COMBINE=2
  ASSERT_EQ(space.size(), slots ? 3024u : 2064u);
  const Compiled compiled = compile_all(spec, testing::sample_space(spec, space, 60), device.identity().arch(), &cache.cache);
  for (const auto& c : compiled.outputs) ASSERT_TRUE(c.ok) << c.log;
  for (const Shape& shape : shapes) {
    Workbench bench(device, spec, shape, twice());
    bench.prepare(&cache.cache);
    const int ok = evaluate_all(bench, spec, compiled, "shape " + shape.str() + " (N x S x M)");
    EXPECT_EQ(ok, static_cast<int>(compiled.configs.size())) << name << " " << shape.str();
    if (ok == 0) {
      ADD_FAILURE() << name << " " << shape.str() << ": every configuration failed; if none is wrong, the reference's own "
                    << "result had another class than mode M expects (it then writes 12345)";
    }
    if (!bench.usable()) return;
  }
}

std::vector<Shape> misaligned_shapes() {
  std::vector<Shape> shapes;
  for (std::int64_t n : {1LL, 2LL, 3LL, 5LL, 33LL, 1023LL, 4099LL, (1LL << 20) + 7})
    for (std::int64_t s : {2, 3, 4}) shapes.push_back(Shape{{n, s, 1}});
  return shapes;
}

std::vector<Shape> special_value_shapes() {
  std::vector<Shape> shapes;
  for (std::int64_t n : {2LL, 1023LL, (1LL << 20) + 7})
    for (std::int64_t s : {1, 2})
      for (std::int64_t m = 2; m <= 9; ++m) shapes.push_back(Shape{{n, s, m}});
  shapes.push_back(Shape{{1, 1, 2}});  // one element, NaN
  return shapes;
}

TEST(ReduceGpu, MisalignedStartsAreRight) {
  REQUIRE_GPU();
  for (const char* name : kFamilies) run_probes(name, misaligned_shapes());
}

TEST(ReduceGpu, NanAndInfinitiesPropagate) {
  REQUIRE_GPU();
  for (const char* name : kFamilies) run_probes(name, special_value_shapes());
}

// ---------------------------------------------------------------------------------------------------------------
// Determinism: each configuration is its own reference (its output at the first run, compared with tolerance 0 to
// three later verified runs, each after other runs of it). The deterministic kernels, and max in every configuration.

TEST(ReduceGpu, DeterministicKernelsGiveTheSameBitsEveryRun) {
  REQUIRE_GPU();
  Device device;
  TempCache cache;
  MeasureOptions options = twice();
  options.repeats = 3;
  for (const char* name : {"reduce_det", "reduce_sum_f64_det", "reduce_max", "reduce_max_f64"}) {
    const KernelSpec family = load_kernel(name);
    for (std::int64_t n : {(1LL << 24) + 3, 1000003LL}) {
      const Space space = Space::enumerate(family, Shape{{n}}, device.limits());
      const Compiled compiled = compile_all(family, testing::sample_space(family, space, 40), device.identity().arch(), &cache.cache);
      int same = 0;
      for (std::size_t i = 0; i < compiled.configs.size(); ++i) {
        const KernelSpec spec = testing::self_referenced(family, compiled.configs[i]);
        Workbench bench(device, spec, Shape{{n}}, options);
        bench.prepare(&cache.cache);  // the reference is this configuration: a cache hit
        bool all = true;
        for (int run = 0; run < 3; ++run) {
          const Result r = bench.evaluate(compiled.configs[i], compiled.outputs[i]);
          if (r.status != Status::Ok) {
            ADD_FAILURE() << name << " N=" << n << " " << r.config << " run " << run + 2 << " differs from run 1: "
                          << to_string(r.status) << ": " << r.message;
            all = false;
            break;
          }
        }
        same += all;
      }
      EXPECT_EQ(same, static_cast<int>(compiled.configs.size())) << name << " N=" << n;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// End to end: a short tuning run of `reduce` (as `tune --kernel reduce --shapes 1000000 --budget 24` would) stores
// correct results only.

TEST(ReduceGpu, ShortTuningRun) {
  REQUIRE_GPU();
  const fs::path db_path = fs::temp_directory_path() / ("cutune_reduce_tune_" + std::to_string(::getpid()) + ".db");
  TempCache cache;
  Device device;
  const KernelSpec spec = load_kernel("reduce");
  TuneOptions options;
  options.budget = 24;
  options.strategy = "random";
  options.measure.repeats = 5;
  options.final_candidates = 2;
  options.cache_dir = cache.dir.string();
  ShapeReport report;
  {
    Database db(db_path);
    report = Tuner(device, db, options).tune(spec, spec.parse_shape("1000000"));
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db_path.string() + suffix);
  EXPECT_EQ(report.space_size, 3024u);
  EXPECT_EQ(report.evaluated, 24u);
  EXPECT_EQ(report.failed, 0u);
  ASSERT_TRUE(report.best);
  EXPECT_EQ(report.best->status, Status::Ok);
  EXPECT_GT(report.best->metric, 0.0);
}

}  // namespace
}  // namespace cutune
