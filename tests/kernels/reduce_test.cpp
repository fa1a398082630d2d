// Host-only tests of the reduce templates: built-in names, exact space counts, constraints and geometry, and NVRTC
// compiles for sm_90 of a sample of each space that covers every value of every parameter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

// Every reduce kernel: name, -DOP, -DTYPE, whether it is the deterministic restriction of another, and its space's
// sizes (see ReduceSpace.ExactCounts).
struct ReduceKernel {
  const char* name;
  const char* op;
  const char* type;
  const char* restricts;  // the full kernel whose deterministic (COMBINE 0 and 2) configurations it holds, or null
  std::size_t cartesian, valid, valid_large;
};
constexpr ReduceKernel kKernels[] = {
    {"reduce", "-DOP=0", "-DTYPE=float", nullptr, 6480, 3024, 2880},
    {"reduce_det", "-DOP=0", "-DTYPE=float", "reduce", 4320, 2064, 1920},
    {"reduce_max", "-DOP=1", "-DTYPE=float", nullptr, 6480, 3024, 2880},
    {"reduce_sum_f64", "-DOP=0", "-DTYPE=double", nullptr, 4320, 2064, 1920},
    {"reduce_sum_f64_det", "-DOP=0", "-DTYPE=double", "reduce_sum_f64", 2160, 1104, 960},
    {"reduce_max_f64", "-DOP=1", "-DTYPE=double", nullptr, 4320, 2064, 1920},
};

std::set<std::string> formatted(const KernelSpec& spec, const Space& space) {
  std::set<std::string> out;
  for (const auto& c : space.configs()) out.insert(spec.format(c));
  return out;
}

TEST(ReduceTemplates, AllAreBuiltIn) {
  const auto names = builtin_kernels();
  for (const auto& k : kKernels) {
    EXPECT_NE(std::find(names.begin(), names.end(), k.name), names.end()) << k.name;
    const KernelSpec spec = load_kernel(k.name);
    EXPECT_EQ(spec.name, k.name);
    EXPECT_EQ(spec.kernel, "reduce");
    EXPECT_EQ(spec.reference_kernel, "reduce_reference");
    EXPECT_EQ(spec.shape_names, (std::vector<std::string>{"N"}));
    EXPECT_EQ(spec.compile_options, (std::vector<std::string>{k.op, k.type})) << k.name;
    EXPECT_EQ(spec.source_name, "reduce.cu");
    EXPECT_EQ(spec.hash.size(), 16u);
    // The CLI's example shape parses, and so does the longest array.
    EXPECT_EQ(spec.parse_shape("268435456").dims, (std::vector<std::int64_t>{268435456}));
    EXPECT_EQ(spec.parse_shape("2147483647").dims, (std::vector<std::int64_t>{2147483647}));
  }
}

TEST(ReduceTemplates, ShareOneSource) {
  const KernelSpec first = load_kernel("reduce");
  for (const auto& k : kKernels) {
    const KernelSpec spec = load_kernel(k.name);
    EXPECT_EQ(spec.source, first.source) << k.name;
    for (const auto& k2 : kKernels) {
      if (std::string(k.name) != k2.name) {
        EXPECT_NE(spec.hash, load_kernel(k2.name).hash) << k.name << " " << k2.name;
      }
    }
  }
}

// The double kernels: 4 BLOCK x 4 ITEMS x 3 VEC x 5 GRID x 3 SCHEME x 2 COMBINE x 3 CLUSTER = 4320 combinations.
// Without clusters: a single block (GRID=1) has no combine step, so its 4 x 4 x 3 x 3 = 144 COMBINE=1 twins are
// removed: 1296. Clusters of 8 and 16 come with warp shuffles (SCHEME=0) and several blocks (GRID > 1): 4 x 4 x 3 x 4
// x 2 x 2 = 768, 2064 in all. The deterministic one has COMBINE=0 only: 720 + 384 = 1104 of 2160. The float kernels
// add COMBINE=2 (slots), which a single block does not need either: 6480 combinations, 144 + 1728 + 1152 = 3024
// valid; their deterministic one has COMBINE 0 and 2, the double kernels' counts. Nothing exceeds compute capability
// 9.0's limits. Beyond 2^20 elements a single block is hopeless (one SM cannot pull the bandwidth), so its 144
// configurations go.
TEST(ReduceSpace, ExactCounts) {
  for (const auto& k : kKernels) {
    const KernelSpec spec = load_kernel(k.name);
    const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
    EXPECT_EQ(space.cartesian_size(), k.cartesian) << k.name;
    EXPECT_EQ(space.size(), k.valid) << k.name;
    EXPECT_EQ(space.removed_by_constraints(), k.cartesian - k.valid) << k.name;
    EXPECT_EQ(space.removed_by_device(), 0u) << k.name;
    EXPECT_EQ(formatted(spec, space).size(), space.size()) << k.name;
    for (std::int64_t n : {1LL, 1000000LL, 1LL << 20}) {
      EXPECT_EQ(Space::enumerate(spec, Shape{{n}}, DeviceLimits{}).size(), space.size()) << k.name << " N=" << n;
    }
    for (std::int64_t n : {(1LL << 20) + 1, 1LL << 28, 2147483647LL}) {
      const Space large = Space::enumerate(spec, Shape{{n}}, DeviceLimits{});
      EXPECT_EQ(large.size(), k.valid_large) << k.name << " N=" << n;
      for (const auto& c : large.configs()) ASSERT_NE(c.values[3].as_int(), 1) << k.name << " N=" << n;
    }
  }
}

TEST(ReduceSpace, ConstraintsAndDefault) {
  const KernelSpec spec = load_kernel("reduce");
  const auto configs = formatted(spec, Space::enumerate(spec, std::nullopt, DeviceLimits{}));
  EXPECT_EQ(spec.format(spec.default_config()), "BLOCK=256,ITEMS=4,VEC=4,GRID=1024,SCHEME=0,COMBINE=0,CLUSTER=1");
  EXPECT_TRUE(configs.count(spec.format(spec.default_config())));
  EXPECT_TRUE(configs.count("BLOCK=1024,ITEMS=8,VEC=4,GRID=1,SCHEME=2,COMBINE=0,CLUSTER=1"));    // one block
  EXPECT_FALSE(configs.count("BLOCK=1024,ITEMS=8,VEC=4,GRID=1,SCHEME=2,COMBINE=1,CLUSTER=1"));   // one block, atomics
  EXPECT_TRUE(configs.count("BLOCK=128,ITEMS=1,VEC=1,GRID=2048,SCHEME=1,COMBINE=1,CLUSTER=1"));
  EXPECT_TRUE(configs.count("BLOCK=256,ITEMS=4,VEC=4,GRID=256,SCHEME=0,COMBINE=1,CLUSTER=16"));  // a cluster's combine
  EXPECT_FALSE(configs.count("BLOCK=256,ITEMS=4,VEC=4,GRID=256,SCHEME=1,COMBINE=0,CLUSTER=8"));  // clusters: shuffles
  EXPECT_FALSE(configs.count("BLOCK=256,ITEMS=4,VEC=4,GRID=1,SCHEME=0,COMBINE=0,CLUSTER=8"));    // clusters: GRID > 1
  EXPECT_THROW(spec.parse_config("BLOCK=64,ITEMS=4,VEC=4,GRID=1024,SCHEME=0,COMBINE=0,CLUSTER=1"), InputError);
  EXPECT_THROW(load_kernel("reduce_det").parse_config("BLOCK=256,ITEMS=4,VEC=4,GRID=1024,SCHEME=0,COMBINE=1,CLUSTER=1"),
               InputError);
  EXPECT_TRUE(configs.count("BLOCK=256,ITEMS=4,VEC=4,GRID=256,SCHEME=0,COMBINE=2,CLUSTER=16"));  // slots
  EXPECT_FALSE(configs.count("BLOCK=256,ITEMS=4,VEC=4,GRID=1,SCHEME=0,COMBINE=2,CLUSTER=1"));    // one block, slots
  EXPECT_THROW(load_kernel("reduce_sum_f64").parse_config("BLOCK=256,ITEMS=4,VEC=4,GRID=1024,SCHEME=0,COMBINE=2,CLUSTER=1"),
               InputError);  // slots hold floats only
}

// Deterministic mode is the full kernel's space without the atomics (COMBINE=1): the same configurations, compiled
// from the same source with the same options, so a deterministic kernel's binaries are its full kernel's.
TEST(ReduceSpace, DeterministicKernelsAreTheLastBlockCombineOfTheFullOnes) {
  for (const auto& k : kKernels) {
    if (k.restricts == nullptr) continue;
    const KernelSpec det = load_kernel(k.name), full = load_kernel(k.restricts);
    const auto det_configs = formatted(det, Space::enumerate(det, std::nullopt, DeviceLimits{}));
    std::set<std::string> full_last_block;
    for (const auto& c : formatted(full, Space::enumerate(full, std::nullopt, DeviceLimits{})))
      if (c.find(",COMBINE=1,") == std::string::npos) full_last_block.insert(c);
    EXPECT_EQ(det_configs, full_last_block) << k.name;
    EXPECT_EQ(det.source, full.source);
    EXPECT_EQ(det.compile_options, full.compile_options);
    EXPECT_EQ(det.default_config(), full.default_config());
  }
}

TEST(ReduceSpace, GeometryAndWorkspaceFitEveryConfigurationAndLength) {
  for (const char* name : {"reduce", "reduce_max_f64"}) {
    const KernelSpec spec = load_kernel(name);
    const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
    const auto arg = [&](const std::string& n) {
      return *std::find_if(spec.arguments.begin(), spec.arguments.end(), [&](const Argument& a) { return a.name == n; });
    };
    const Argument partials = arg("partials"), state = arg("state"), out = arg("out");
    EXPECT_EQ(partials.type, ElementType::Float64);
    EXPECT_EQ(partials.fill, Fill::Zero);
    EXPECT_EQ(state.type, ElementType::Int64);
    EXPECT_EQ(state.fill, Fill::Zero);
    EXPECT_FALSE(partials.output || state.output);
    EXPECT_TRUE(out.output);
    EXPECT_EQ(out.fill, Fill::Poison);
    for (std::int64_t n : {1LL, 2LL, 33LL, 4097LL, (1LL << 20) + 7, 1LL << 28, 2147483647LL}) {
      const Shape shape{{n}};
      for (const auto& c : space.configs()) {
        const Launch l = spec.resolve(spec.launch, c, shape, 132);
        const auto scope = spec.scope(c, &shape);
        const std::int64_t block = c.values[0].as_int(), items = c.values[1].as_int(), vec = c.values[2].as_int();
        const std::int64_t grid_cap = c.values[3].as_int(), scheme = c.values[4].as_int();
        const std::int64_t cluster = c.values[6].as_int();
        ASSERT_EQ(l.block[0], block);
        // Whole clusters: the blocks past the last tile add the identity.
        const std::int64_t blocks = std::min((n + block * items * vec - 1) / (block * items * vec), grid_cap);
        ASSERT_EQ(l.grid[0], (blocks + cluster - 1) / cluster * cluster) << spec.format(c);
        ASSERT_EQ(l.cluster[0], cluster) << spec.format(c);
        ASSERT_EQ(l.grid[0] % cluster, 0) << spec.format(c);
        ASSERT_GE(l.grid[0], 1);
        // One partial per cluster (per block without clusters).
        ASSERT_LE(l.grid[0] / cluster, partials.size.eval(scope).as_int()) << "partials too small: " << spec.format(c) << " N=" << n;
        ASSERT_EQ(l.shared_memory, scheme == 2 ? block * 8 : 0) << spec.format(c);
        ASSERT_FALSE(check_launch(l, DeviceLimits{}, true)) << spec.format(c) << " N=" << n;
      }
    }
  }
}

TEST(ReduceSpace, ToleranceScalesWithTheLength) {
  const Tolerance f_small = load_kernel("reduce").tolerance_at(Shape{{1023}});
  const Tolerance f_large = load_kernel("reduce").tolerance_at(Shape{{1 << 28}});
  EXPECT_NEAR(f_large.atol, 1e-6 * 16384, 1e-12);
  EXPECT_NEAR(f_small.atol, 1e-6 * std::sqrt(1023.0), 1e-12);
  EXPECT_DOUBLE_EQ(f_large.rtol, 2.5e-7);
  // Losing one element of size 0.05 out of 2^28 is caught (|sum| is about 0.58 * 2^14 there).
  EXPECT_LT(f_large.atol + f_large.rtol * 0.58 * 16384, 0.05);
  const Tolerance d = load_kernel("reduce_sum_f64").tolerance_at(Shape{{1 << 28}});
  EXPECT_NEAR(d.atol, 1e-16 * (1 << 28), 1e-20);
  EXPECT_EQ(d.rtol, 0.0);
  for (const char* exact : {"reduce_max", "reduce_max_f64"}) {
    const Tolerance t = load_kernel(exact).tolerance_at(Shape{{1 << 28}});
    EXPECT_EQ(t.atol, 0.0) << exact;
    EXPECT_EQ(t.rtol, 0.0) << exact;
  }
}

TEST(ReduceSpace, SampleCoversEveryValue) {
  const KernelSpec spec = load_kernel("reduce");
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  const auto sample = testing::sample_space(spec, space, 200);
  EXPECT_GE(sample.size(), 200u);
  std::set<std::string> distinct;
  for (const auto& c : sample) distinct.insert(spec.format(c));
  EXPECT_EQ(distinct.size(), sample.size());
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    for (const Value& v : spec.parameters[p].values)
      EXPECT_TRUE(std::any_of(sample.begin(), sample.end(), [&](const Config& c) { return c.values[p] == v; }))
          << spec.parameters[p].name << "=" << v.str();
}

// Each distinct binary family (sum/max x float/double; the deterministic kernels share their full kernel's) compiles
// for sm_90 at 80+ configurations covering every parameter value, with no local-memory spills; so do the references.
TEST(ReduceCompile, CoveringSampleOfEverySpaceCompilesForSm90) {
  CompilePool pool;
  struct Job {
    std::string what;
    std::future<CompileOutput> out;
    std::string expected_name;
  };
  std::vector<KernelSpec> specs;
  for (const auto& k : kKernels)
    if (k.restricts == nullptr) specs.push_back(load_kernel(k.name));
  std::vector<Job> jobs;
  for (const auto& spec : specs) {
    jobs.push_back({spec.name + " reference", pool.submit([&spec] { return compile_reference(spec, "sm_90"); }),
                    "reduce_reference"});
    const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
    for (const auto& c : testing::sample_space(spec, space, 80)) {
      jobs.push_back({spec.name + " " + spec.format(c), pool.submit([&spec, c] { return compile_config(spec, c, "sm_90"); }),
                      "reduce"});
    }
  }
  EXPECT_GE(jobs.size(), 4u * 81u);
  for (auto& job : jobs) {
    const CompileOutput out = job.out.get();
    ASSERT_TRUE(out.ok) << job.what << "\n" << out.log;
    EXPECT_EQ(out.lowered_name, job.expected_name) << job.what;
    EXPECT_GT(out.cubin.size(), 1000u) << job.what;
    if (out.log.find("Used ") != std::string::npos) {
      EXPECT_EQ(out.spill_bytes, 0) << job.what << "\n" << out.log;
    }
  }
}

}  // namespace
}  // namespace cutune
