// Host-only tests of the tensor-core GEMM's wgmma + TMA path (PATH=1 of gemm_bf16 and gemm_f16, gemm_wgmma.cu): its
// space and shape rules, its tensor maps, where it is pruned by target, and NVRTC compiles of a sample for sm_90a.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <set>
#include <stdexcept>

#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/target.hpp"
#include "cutune/templates.hpp"
#include "cutune/tensor_map.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

const std::vector<std::string> kKernels = {"gemm_bf16", "gemm_f16"};
// The parameters PATH 1 tunes; the others are pinned to one value for it.
const std::vector<std::string> kTuned = {"BM", "BN", "STAGES", "SPLITK", "GROUP_M", "EPI_VEC", "WG", "CM", "CN"};

std::int64_t value(const KernelSpec& spec, const Config& c, const std::string& name) {
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    if (spec.parameters[p].name == name) return c.values[p].as_int();
  throw std::logic_error("no parameter " + name);
}

std::vector<Config> wgmma_configs(const KernelSpec& spec, const char* shape, const DeviceLimits& limits = {}) {
  const Space space = Space::enumerate(spec, shape ? std::optional(spec.parse_shape(shape)) : std::nullopt, limits);
  return testing::configs_with(spec, space, "PATH", 1);
}

TEST(GemmWgmmaSpace, EveryValueOfEveryParameterAppears) {
  for (const auto& name : kKernels) {
    const KernelSpec spec = load_kernel(name);
    const std::vector<Config> all = wgmma_configs(spec, nullptr);
    EXPECT_EQ(all.size(), 3000u) << name;  // pinned: a change to the rules must be deliberate
    std::map<std::string, std::set<std::int64_t>> seen;
    for (const Config& c : all) {
      for (const auto& p : spec.parameters) seen[p.name].insert(value(spec, c, p.name));
      const std::int64_t bm = value(spec, c, "BM"), bn = value(spec, c, "BN"), wg = value(spec, c, "WG");
      EXPECT_EQ(bm % (64 * wg), 0);
      EXPECT_LE(bm / (64 * wg) * bn, 256);  // at most 128 accumulators per thread
      EXPECT_EQ(required_targets(spec, c), std::vector<std::string>{"sm_90a"});
      const Launch l = spec.resolve(spec.launch, c, spec.parse_shape("4096x4096x4096"));
      EXPECT_EQ(l.threads(), 128 * (wg + 1));
      EXPECT_LE(l.shared_memory, 227 * 1024);
      EXPECT_EQ(l.cluster_size(), value(spec, c, "CM") * value(spec, c, "CN"));
      EXPECT_EQ(l.grid[0] % l.cluster_size(), 0);
    }
    EXPECT_EQ(seen["BM"], (std::set<std::int64_t>{64, 128, 256})) << name;
    EXPECT_EQ(seen["BN"], (std::set<std::int64_t>{64, 128, 192, 256})) << name;
    EXPECT_EQ(seen["BK"], (std::set<std::int64_t>{64})) << name;
    EXPECT_EQ(seen["STAGES"], (std::set<std::int64_t>{2, 3, 4, 5})) << name;
    EXPECT_EQ(seen["SPLITK"], (std::set<std::int64_t>{1, 2, 4, 8, 16})) << name;
    EXPECT_EQ(seen["GROUP_M"], (std::set<std::int64_t>{1, 8})) << name;
    EXPECT_EQ(seen["WG"], (std::set<std::int64_t>{1, 2})) << name;
    EXPECT_EQ(seen["CM"], (std::set<std::int64_t>{1, 2})) << name;
    EXPECT_EQ(seen["CN"], (std::set<std::int64_t>{1, 2})) << name;
    EXPECT_EQ(seen["EPI_VEC"], (std::set<std::int64_t>{2, 8})) << name;
    for (const char* pinned : {"WARPS_M", "WARPS_N", "SWIZZLE", "PREFETCH", "ALIGNED"}) {
      EXPECT_EQ(seen[pinned].size(), 1u) << name << " " << pinned;
    }
  }
}

// TMA needs rows of a multiple of 16 bytes: K and N multiples of 8. Elsewhere PATH 0 is left, and PATH 1 is present
// at every shape that allows it, however small.
TEST(GemmWgmmaSpace, ShapesFollowTmaAlignment) {
  const KernelSpec spec = load_kernel("gemm_bf16");
  for (const char* shape : {"1x1x1", "127x257x511", "33x4096x7", "4096x4097x4096", "5x7x9", "8x8x9"}) {
    EXPECT_TRUE(wgmma_configs(spec, shape).empty()) << shape;
    EXPECT_GT(Space::enumerate(spec, spec.parse_shape(shape), DeviceLimits{}).size(), 100u) << shape;
  }
  for (const char* shape : {"1x8x8", "127x256x512", "33x4096x8", "4096x16x4096", "16x4096x4096", "64x4096x4096",
                            "4096x4096x64", "4096x4096x4096", "8192x8192x8192"}) {
    EXPECT_FALSE(wgmma_configs(spec, shape).empty()) << shape;
  }
  // Clusters only where C has two tiles along their direction; split-K only with enough slabs.
  for (const Config& c : wgmma_configs(spec, "64x4096x4096")) EXPECT_EQ(value(spec, c, "CM"), 1);
  for (const Config& c : wgmma_configs(spec, "1x8x8")) EXPECT_EQ(value(spec, c, "SPLITK"), 1);
  std::set<std::int64_t> split;
  for (const Config& c : wgmma_configs(spec, "64x4096x4096")) split.insert(value(spec, c, "SPLITK"));
  EXPECT_EQ(split.size(), 5u);
}

// PATH 1 compiles for sm_90a and runs on compute capability 9.0 only; PATH 0 everywhere.
TEST(GemmWgmmaSpace, PrunedByTargetElsewhere) {
  const KernelSpec spec = load_kernel("gemm_f16");
  const Shape shape = spec.parse_shape("4096x4096x4096");
  const Space hopper = Space::enumerate(spec, shape, limits_of_compute_capability(90));
  const std::size_t wgmma = testing::configs_with(spec, hopper, "PATH", 1).size();
  EXPECT_GT(wgmma, 100u);
  EXPECT_EQ(hopper.removed_by_target(), 0u);
  // Elsewhere every PATH 1 configuration goes "by target", before the launch limits are looked at.
  KernelSpec path1 = spec;
  path1.restrict_to("PATH == 1");
  const Space hopper1 = Space::enumerate(path1, shape, limits_of_compute_capability(90));
  EXPECT_EQ(hopper1.size(), wgmma);
  for (int cc : {80, 89, 100}) {
    const Space other = Space::enumerate(spec, shape, limits_of_compute_capability(cc));
    EXPECT_TRUE(testing::configs_with(spec, other, "PATH", 1).empty()) << cc;
    EXPECT_EQ(other.size(), hopper.size() - wgmma) << cc;
    EXPECT_EQ(other.removed_by_target(), wgmma + hopper1.removed_by_device()) << cc;
  }
  const Config c = wgmma_configs(spec, "4096x4096x4096").front();
  EXPECT_EQ(compile_arch(spec, c, "sm_90"), "sm_90a");
  EXPECT_EQ(compile_arch(spec, spec.default_config(), "sm_90"), "sm_90");
}

// The tensor maps follow the tile: A's box is BK x BM, B's 64 x BK, both with the 128-byte swizzle; PATH 0 reads none.
TEST(GemmWgmmaSpace, TensorMapsFollowTheTile) {
  const KernelSpec spec = load_kernel("gemm_bf16");
  const std::vector<std::size_t> maps = tensor_map_arguments(spec);
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(spec.arguments[maps[0]].name, "a_map");
  EXPECT_EQ(spec.arguments[maps[1]].name, "b_map");
  const Shape shape = spec.parse_shape("300x1024x520");
  const Config c = spec.parse_config("PATH=1,BM=256,BN=128,BK=64,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,"
                                     "SPLITK=1,GROUP_M=1,EPI_VEC=8,ALIGNED=1,WG=2,CM=1,CN=1");
  const TensorMapLayout a = tensor_map_layout(spec, spec.arguments[maps[0]], c, shape);
  EXPECT_EQ(a.type, ElementType::BFloat16);
  EXPECT_EQ(a.dims[0], 520u);  // K, innermost
  EXPECT_EQ(a.dims[1], 300u);
  EXPECT_EQ(a.strides[0], 1040u);
  EXPECT_EQ(a.box[0], 64u);
  EXPECT_EQ(a.box[1], 256u);
  EXPECT_EQ(a.swizzle, 128);
  EXPECT_EQ(spec.arguments[a.buffer_index].name, "A");
  const TensorMapLayout b = tensor_map_layout(spec, spec.arguments[maps[1]], c, shape);
  EXPECT_EQ(b.dims[0], 1024u);  // N, innermost
  EXPECT_EQ(b.dims[1], 520u);
  EXPECT_EQ(b.box[0], 64u);
  EXPECT_EQ(b.box[1], 64u);
  EXPECT_EQ(b.swizzle, 128);
  EXPECT_EQ(spec.arguments[b.buffer_index].name, "B");
  // What the producer expects per stage: one A box and BN / 64 B boxes.
  EXPECT_EQ(a.box_bytes() + 2 * b.box_bytes(), (256u + 128u) * 128u);
  EXPECT_TRUE(tensor_map_used(spec, spec.arguments[maps[0]], c));
  EXPECT_FALSE(tensor_map_used(spec, spec.arguments[maps[0]], spec.default_config()));
  // The float kernel has no PATH 1 and no maps: its arguments are unchanged.
  EXPECT_TRUE(tensor_map_arguments(load_kernel("gemm_tf32")).empty());
}

// A sample of PATH 1 holding every value of every tuned parameter compiles for sm_90a through NVRTC, without spills
// (the largest two-consumer tiles rely on setmaxnreg, and on the register count it needs at launch); the kernel's static_asserts check the descriptor encoding and that the
// accumulator layout covers each tile once. About 30 configurations per kernel, under a second each.
TEST(GemmWgmmaCompile, SampleCompilesForSm90a) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<KernelSpec> specs;
  for (const auto& name : kKernels) specs.push_back(load_kernel(name));
  CompilePool pool;
  struct Job {
    const KernelSpec* spec;
    Config config;
    std::future<CompileOutput> out;
  };
  std::vector<Job> jobs;
  for (const auto& spec : specs) {
    const std::vector<Config> sample = testing::sample_configs(spec, wgmma_configs(spec, nullptr), 16);
    std::map<std::string, std::set<std::int64_t>> seen;
    for (const Config& c : sample) {
      for (const auto& p : kTuned) seen[p].insert(value(spec, c, p));
      jobs.push_back({&spec, c, pool.submit([&spec, c] { return compile_config(spec, c, "sm_90"); })});
    }
    for (const auto& p : kTuned) {
      std::set<std::int64_t> all;
      for (const Config& c : wgmma_configs(spec, nullptr)) all.insert(value(spec, c, p));
      EXPECT_EQ(seen[p], all) << spec.name << " " << p;
    }
  }
  std::size_t reallocating = 0;
  for (auto& job : jobs) {
    const CompileOutput out = job.out.get();
    ASSERT_TRUE(out.ok) << job.spec->name << " " << job.spec->format(job.config) << "\n" << out.log;
    EXPECT_EQ(out.lowered_name, "gemm_tc");
    EXPECT_EQ(out.spill_bytes, 0) << job.spec->name << " " << job.spec->format(job.config);
    // Two consumer warpgroups of 128 accumulators reallocate registers (setmaxnreg), which only works from an
    // allocation of exactly 168 per thread at launch: fewer, and the consumers would wait forever for registers.
    const std::int64_t wg = value(*job.spec, job.config, "WG");
    if (wg == 2 && value(*job.spec, job.config, "BM") / 128 * value(*job.spec, job.config, "BN") == 256) {
      EXPECT_EQ(out.registers, 168) << job.spec->name << " " << job.spec->format(job.config);
      ++reallocating;
    } else {
      EXPECT_LE(out.registers, wg == 2 ? 168 : 255);
    }
    // ptxas says so when it must serialize the wgmmas (accumulators touched while they are in flight): slow.
    EXPECT_EQ(out.log.find("wgmma"), std::string::npos) << job.spec->format(job.config) << "\n" << out.log;
    EXPECT_NE(out.cubin.find("gemm_tc"), std::string::npos);
  }
  EXPECT_GT(reallocating, 0u);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%zu PATH 1 compiles for sm_90a on %u threads in %.0f s\n", jobs.size(), pool.threads(), seconds);
}

}  // namespace
}  // namespace cutune
