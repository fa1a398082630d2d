// Host-only tests of the tensor-core GEMM templates (gemm_tc_shared.cu, gemm_tc.cu): their spaces and shape rules,
// and NVRTC compiles of a sample of each for sm_80 and sm_90.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/target.hpp"
#include "cutune/templates.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

// The shape the samples compile at: configurations specialized for their shape (SHAPED=1) need one.
const Shape kOddShape{{1000, 1000, 1000}};

// The tensor-core kernels: one source, one spec per element type.
const std::vector<std::string> kKernels = {"gemm_tf32", "gemm_bf16", "gemm_f16"};

using testing::value;

Config with(const KernelSpec& spec, Config c, const std::string& name, std::int64_t v) {
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    if (spec.parameters[p].name == name) c.values[p] = Value(v);
  return c;
}

std::size_t count(const KernelSpec& spec, const char* shape) {
  return Space::enumerate(spec, spec.parse_shape(shape), DeviceLimits{}).size();
}

TEST(GemmTcSpace, BuiltInsShareOneSource) {
  for (const auto& name : kKernels) {
    const KernelSpec spec = load_kernel(name);
    // The shared part, then PATH 0; the 16-bit kernels add the wgmma path's files after them (gemm_wgmma_test.cpp).
    EXPECT_EQ(spec.source_name.substr(0, 28), "gemm_tc_shared.cu+gemm_tc.cu");
    EXPECT_EQ(spec.kernel, "gemm_tc");
    EXPECT_EQ(spec.shape_names, (std::vector<std::string>{"M", "N", "K"}));
    EXPECT_DOUBLE_EQ(spec.metric_amount(spec.parse_shape("1000x1000x1000")), 2e9);
    // The tolerance covers the FP32 accumulation, which grows like K^1.5, and stays far below what one missing
    // k-slab does to an element (a standard deviation of sqrt(16 / 9) = 1.33 at least).
    const double small = spec.tolerance_at(spec.parse_shape("1x1x1")).atol;
    const double big = spec.tolerance_at(spec.parse_shape("4096x4096x11008")).atol;
    EXPECT_LT(small, 1e-4) << name;
    EXPECT_GT(big, 10 * small) << name;
    EXPECT_LT(big, 0.15) << name;
    // A 16-bit output: one unit in the last place of the reference (2^-7 BF16, 2^-10 FP16) on top.
    const double rtol = spec.tolerance_at(spec.parse_shape("1x1x1")).rtol;
    EXPECT_DOUBLE_EQ(rtol, name == "gemm_bf16" ? 0x1p-7 : name == "gemm_f16" ? 0x1p-10 : 1e-6) << name;
  }
}

// Counts pin the spaces: a change to a template's parameters or constraints must be deliberate.
TEST(GemmTcSpace, ThousandsOfConfigurations) {
  struct Counts {
    const char* kernel;
    std::size_t any, cube, odd, decode, one;
  };
  // SHAPED (a binary for the shape or for every shape) doubles every count. RASTER=1 (the serpentine tile order) doubles
  // PATH 1's untransposed tiles where C has at least 256 of them: in all (no shape) 10696 for TF32 and 20792 for the
  // 16-bit kernels, 3496 and 10568 at 4096³, none at the odd, decode and tiny shapes. TF32's PERSIST=1, STREAMK 1 and 2 and EPI_VEC=64 (TMA stores) add 1970 in all, 914 at 4096³, 345 at the decode
  // shape; PINGPONG=1 198 (persistent, so not at the odd and decode shapes). KSUM=1 (split-K summed through the
  // cluster's shared memory) adds 1128 in all and 282 at the decode shape to TF32, 3880 and 846 to the 16-bit kernels
  // (split-K is left out at 4096³, and the odd shape's N leaves PATH 0 only). TF32's PATH 1 rows that are not
  // multiples of 64 (BM 80 to 240 in steps of 16) add 46992 in all, 15152 at 4096³ and 3986 at the decode shape; two
  // warpgroups of two chunks (BN 256) at 80 and 96 rows, left out (ptxas serializes their wgmmas), remove 2792, 528
  // and 302.
  for (const Counts& c : {Counts{"gemm_tf32", 2 * 117428 + 10696 + 1128 + 46992 - 2792, 2 * 6116 + 3496 + 15152 - 528,
                                 2 * 5760, 2 * 14965 + 282 + 3986 - 302, 2 * 360},
                          // The 16-bit SWAP=1 (M <= 128 only) adds 7080 in all, 640 at the decode shape; PERSIST 1
                          // and 2 add 720 (at 4096³ too), MC=1 252, EPI_VEC=64 (TMA stores) 1754, EPI_SLICE=1 864;
                          // STREAMK 1 and 2 and EPI_SLICE=2 add 1786 at 4096³, 542 at the decode shape; PINGPONG=1
                          // 868 (persistent, so not at the odd and decode shapes). The tile widths that are not
                          // multiples of 64 (PATH 1, SWAP=0) add 33224 in all, 16616 at 4096³, 2058 at the decode shape;
                          // no stream-K with two blocks an SM and quad-gathered stores (its fixup spills) removes 208,
                          // 208 and 26.
                          Counts{"gemm_bf16", 2 * 134116 + 20792 + 33224 - 208 + 3880, 2 * 10468 + 10568 + 16616 - 208,
                                 2 * 5424, 2 * 17592 + 2058 - 26 + 846, 2 * 336},
                          Counts{"gemm_f16", 2 * 134116 + 20792 + 33224 - 208 + 3880, 2 * 10468 + 10568 + 16616 - 208,
                                 2 * 5424, 2 * 17592 + 2058 - 26 + 846, 2 * 336}}) {
    const KernelSpec spec = load_kernel(c.kernel);
    EXPECT_EQ(Space::enumerate(spec, std::nullopt, DeviceLimits{}).size(), c.any) << c.kernel;
    EXPECT_EQ(count(spec, "4096x4096x4096"), c.cube) << c.kernel;
    EXPECT_EQ(count(spec, "127x257x511"), c.odd) << c.kernel;
    EXPECT_EQ(count(spec, "16x4096x4096"), c.decode) << c.kernel;
    EXPECT_EQ(count(spec, "1x1x1"), c.one) << c.kernel;
  }
  // TF32's PATH 0 alone: the mma.sync kernel's space.
  KernelSpec path0 = load_kernel("gemm_tf32");
  path0.restrict_to("PATH == 0 and SHAPED == 0");
  EXPECT_EQ(Space::enumerate(path0, std::nullopt, DeviceLimits{}).size(), 112080u);
  EXPECT_EQ(count(path0, "4096x4096x4096"), 4368u);
  EXPECT_EQ(count(path0, "127x257x511"), 5760u);
  EXPECT_EQ(count(path0, "16x4096x4096"), 13972u);
  EXPECT_EQ(count(path0, "1x1x1"), 360u);
}

// Shape rules: alignment-dependent choices follow K and N, split-K and small tiles open up where they help, and every
// shape keeps configurations.
TEST(GemmTcSpace, ShapeRules) {
  for (const auto& name : kKernels) {
    const KernelSpec spec = load_kernel(name);
    const std::int64_t chunk = name == "gemm_tf32" ? 4 : 8;  // elements per 16 bytes
    for (const char* text : {"1x1x1", "1x1x3", "3x1x1", "127x257x511", "33x4096x7", "4096x16x4096", "64x4096x4096",
                             "4096x4096x64", "1000x1000x1000", "8192x8192x8192", "5x7x9", "4096x4097x4096"}) {
      const Shape shape = spec.parse_shape(text);
      const Space space = Space::enumerate(spec, shape, DeviceLimits{});
      EXPECT_GT(space.size(), 100u) << name << " " << text;
      const std::int64_t M = shape.dims[0], N = shape.dims[1], K = shape.dims[2];
      const bool aligned = K % chunk == 0 && N % chunk == 0;
      std::set<std::int64_t> seen_aligned, seen_epi;
      for (const auto& c : space.configs()) {
        seen_aligned.insert(value(spec, c, "ALIGNED"));
        if (value(spec, c, "PATH") == 0) seen_epi.insert(value(spec, c, "EPI_VEC"));  // PATH 1: gemm_wgmma_test
        const Launch l = spec.resolve(spec.launch, c, shape, 132);
        EXPECT_LE(l.shared_memory, 227 * 1024);
        EXPECT_GE(l.threads(), 64);
        EXPECT_LE(l.threads(), value(spec, c, "PATH") == 0 ? 256 : 384);
        if (M >= 2048) EXPECT_GE(value(spec, c, "BM"), 64);
      }
      // 16-byte loads exactly where K and N allow them; element loads only where they do not.
      EXPECT_EQ(seen_aligned, (std::set<std::int64_t>{aligned ? 1 : 0})) << name << " " << text;
      // Scalar stores only for odd N; pairs for even N; 16-byte rows where N is a multiple of a chunk.
      std::set<std::int64_t> epi;
      if (N % 2 == 1) epi.insert(1);
      if (N % 2 == 0) epi.insert(2);
      if (N % chunk == 0) epi.insert(chunk);
      EXPECT_EQ(seen_epi, epi) << name << " " << text;
    }
    // Split-K only where there are few tiles and enough K.
    std::map<std::int64_t, std::size_t> split_big, split_skinny;
    const Space big = Space::enumerate(spec, spec.parse_shape("4096x4096x4096"), DeviceLimits{});
    const Space skinny = Space::enumerate(spec, spec.parse_shape("64x4096x4096"), DeviceLimits{});
    for (const auto& c : big.configs()) ++split_big[value(spec, c, "SPLITK")];
    for (const auto& c : skinny.configs()) ++split_skinny[value(spec, c, "SPLITK")];
    EXPECT_EQ(split_skinny.size(), 5u) << name;
    EXPECT_LT(split_big[16], split_skinny[16]) << name;
  }
}

// 120 configurations of the kernels (a sample of each holding every value of every parameter) compile for sm_90,
// without spilling; for sm_80, a configuration for each value of each parameter. NVRTC takes about a second per
// configuration, and the CI machine has two cores.
TEST(GemmTcCompile, SampleCompilesForSm90AndSm80) {
  const auto started = std::chrono::steady_clock::now();
  struct Job {
    const KernelSpec* spec;
    Config config;
    std::string arch;
    std::future<CompileOutput> out;
  };
  std::vector<KernelSpec> specs;
  for (const auto& name : kKernels) specs.push_back(load_kernel(name));
  CompilePool pool;
  std::vector<Job> jobs;
  auto submit = [&](const KernelSpec* s, const Config& c, const std::string& arch) {
    jobs.push_back({s, c, arch, pool.submit([s, c, arch] { return compile_config(*s, c, arch, &kOddShape); })});
  };
  std::size_t configurations = 0;
  for (const auto& spec : specs) {
    const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
    const std::size_t wanted = (120 + kKernels.size() - 1) / kKernels.size();  // CI has 2 cores: about 3 min
    const std::vector<Config> sample = testing::sample_space(spec, space, wanted);
    ASSERT_GE(sample.size(), wanted);
    configurations += sample.size();
    std::map<std::string, std::set<std::int64_t>> seen;
    for (const auto& c : sample) {
      bool news = false;  // the first configuration with some parameter's value: compiled for sm_80 too
      for (std::size_t p = 0; p < spec.parameters.size(); ++p)
        news |= seen[spec.parameters[p].name].insert(c.values[p].as_int()).second;
      submit(&spec, c, "sm_90");
      // Configurations of an sm_90a target (PATH 1) never run on sm_80.
      if (news && required_targets(spec, c).empty()) submit(&spec, c, "sm_80");
    }
    for (const auto& p : spec.parameters) EXPECT_EQ(seen[p.name].size(), p.values.size()) << spec.name << " " << p.name;
  }
  EXPECT_GE(configurations, 120u);
  // The constraints keep out the tiles whose registers do not fit; a few configurations may still move a word or
  // two through local memory (slow, not wrong: the tuner measures them), more would mean a rule is missing.
  std::size_t spilled = 0;
  for (auto& job : jobs) {
    const CompileOutput out = job.out.get();
    ASSERT_TRUE(out.ok) << job.spec->name << " " << job.spec->format(job.config) << " " << job.arch << "\n" << out.log;
    EXPECT_EQ(out.lowered_name, "gemm_tc");
    EXPECT_LE(out.registers, 255);
    EXPECT_LE(out.spill_bytes, 16) << job.spec->name << " " << job.spec->format(job.config) << " " << job.arch;
    if (out.spill_bytes > 0) {
      ++spilled;
      std::printf("spills: %s %s %s (%d bytes)\n", job.spec->name.c_str(), job.spec->format(job.config).c_str(),
                  job.arch.c_str(), out.spill_bytes);
    }
  }
  EXPECT_LE(spilled, jobs.size() / 50);
  for (const auto& spec : specs) {
    for (const char* arch : {"sm_90", "sm_80"}) {
      const CompileOutput reference = compile_reference(spec, arch);
      EXPECT_TRUE(reference.ok) << reference.log;
      EXPECT_NE(reference.cubin.find("gemm_tc_reference"), std::string::npos);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%zu configurations, %zu compiles on %u threads in %.0f s\n", configurations, jobs.size(),
              pool.threads(), seconds);
}

// The template's own checks reject what the constraints keep out.
TEST(GemmTcCompile, ExcludedCombinationsDoNotCompile) {
  const KernelSpec spec = load_kernel("gemm_tf32");
  const Config base = spec.default_config();
  const CompileOutput ok = compile_config(spec, base, "sm_90");
  ASSERT_TRUE(ok.ok) << ok.log;
  EXPECT_EQ(ok.cubin.find("gemm_tc_reference"), std::string::npos);
  // Warp tiles of 8 rows (BM=16 over 2 warps) are not whole mma tiles.
  const Config narrow = with(spec, with(spec, base, "BM", 16), "WARPS_M", 2);
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  EXPECT_EQ(std::find(space.configs().begin(), space.configs().end(), narrow), space.configs().end());
  EXPECT_FALSE(compile_config(spec, narrow, "sm_90").ok);
}

}  // namespace
}  // namespace cutune
