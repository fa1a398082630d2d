// Host-only tests of the FP8 GEMMs (templates/gemm_fp8/: gemm_fp8 and its e5m2, f16 and f32 variants): their shape
// rules, launch, tensor maps, and NVRTC compiles of a sample for sm_90a (the target every configuration needs).
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <map>
#include <set>
#include <stdexcept>

#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "cutune/tensor_map.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

// The shape the samples compile at: configurations specialized for their shape (SHAPED=1) need one.
const Shape kOddShape{{1000, 1000, 1024}};

const std::vector<std::string> kKernels = {"gemm_fp8", "gemm_fp8_e5m2", "gemm_fp8_f16", "gemm_fp8_f32",
                                           "gemm_fp8_blockscaled"};

using testing::value;

std::vector<Config> configs_at(const KernelSpec& spec, const char* shape) {
  return Space::enumerate(spec, spec.parse_shape(shape), DeviceLimits{}).configs();
}

// Block scales (BLOCK_SCALE=1): a scale of A per row and block of K, of B per 128 x 128 block; one slab per block of
// K, so every configuration promotes each slab.
TEST(GemmFp8Space, BlockScalesAreSizedByBlocksOfK) {
  const KernelSpec spec = load_kernel("gemm_fp8_blockscaled");
  const Shape shape = spec.parse_shape("1000x300x1040");  // 9 blocks of K (the last one 16 deep), 3 of N
  const Config c = spec.default_config();
  for (const auto& a : spec.arguments) {
    if (a.name == "scale_a") EXPECT_EQ(a.size.eval(spec.scope(c, &shape)).as_int(), 9 * 1000);
    if (a.name == "scale_b") EXPECT_EQ(a.size.eval(spec.scope(c, &shape)).as_int(), 3 * 9);
  }
  for (const Config& config : configs_at(spec, "1000x300x1040")) {
    EXPECT_EQ(value(spec, config, "PROMOTE"), 1);
    EXPECT_LE(value(spec, config, "BN"), 128);
  }
}

// TMA reads rows of 16-byte multiples: K must be a multiple of 16 (M and N anything); SWAP=1 only for M <= 128, TMA
// stores of D only where N is a multiple of 8.
TEST(GemmFp8Space, ShapesTmaAllows) {
  for (const auto& name : kKernels) {
    const KernelSpec spec = load_kernel(name);
    EXPECT_TRUE(configs_at(spec, "64x64x8").empty()) << name;
    EXPECT_TRUE(configs_at(spec, "1000x1000x1000").empty()) << name;
    EXPECT_FALSE(configs_at(spec, "1000x1000x1024").empty()) << name;
    for (const Config& c : configs_at(spec, "1000x1001x1024")) EXPECT_EQ(value(spec, c, "EPI"), 0) << name;
    bool swapped = false;
    for (const Config& c : configs_at(spec, "16x4096x4096")) swapped |= value(spec, c, "SWAP") == 1;
    EXPECT_EQ(swapped, name != "gemm_fp8_blockscaled") << name;  // block scales: untransposed tiles only
    for (const Config& c : configs_at(spec, "256x4096x4096")) EXPECT_EQ(value(spec, c, "SWAP"), 0) << name;
  }
}

// B's tensor map runs along K first (B is N x K); with multicast each block loads half of B's rows.
TEST(GemmFp8Space, TensorMapsAreKMajor) {
  const KernelSpec spec = load_kernel("gemm_fp8");
  const Shape shape = spec.parse_shape("4096x2048x1024");
  const std::string text = "BM=128,BN=256,STAGES=4,WG=2,SWAP=0,PROMOTE=0,CM=2,CN=1,MC=1,PERSIST=0,STREAMK=0,"
                           "PINGPONG=0,SPLITK=1,GROUP_M=1,EPI=1,EPI_SLICE=1,SHAPED=0,RASTER=0,KSUM=0";
  ASSERT_EQ(invalid_config(spec, text, "4096x2048x1024"), std::nullopt);
  const Config mc = spec.parse_config(text);
  for (const auto& a : spec.arguments) {
    if (a.name == "b_map") {
      const auto layout = tensor_map_layout(spec, a, mc, shape);
      EXPECT_EQ(layout.dims[0], 1024u);
      EXPECT_EQ(layout.dims[1], 2048u);
      EXPECT_EQ(layout.box[0], 128u);
      EXPECT_EQ(layout.box[1], 128u);
    }
  }
  // The producer warpgroup and two consumers; the ring, EPI_SLICE 1's two boxes per consumer, and slack.
  const auto launch = spec.resolve(spec.launch, mc, shape, 132);
  EXPECT_EQ(launch.block[0], 384);
  EXPECT_EQ(launch.shared_memory, std::int64_t{4} * (128 + 256) * 128 + 128 * 256 + 1024 + 128);
}

// A sample holding every value of every parameter compiles for sm_90a, for each output type and B's e5m2: no spills,
// no serialized wgmmas or waits ptxas adds for them, and two consumer warpgroups that hold 128 accumulators or more
// (with PROMOTE's partial sums) get exactly the 168 registers a thread that setmaxnreg needs at launch.
TEST(GemmFp8Compile, SampleCompilesForSm90a) {
  CompilePool pool;
  struct Job {
    const KernelSpec* spec;
    Config config;
    std::future<CompileOutput> out;
  };
  std::vector<KernelSpec> specs;
  for (const auto& name : kKernels) specs.push_back(load_kernel(name));
  std::vector<Job> jobs;
  for (const KernelSpec& spec : specs) {
    const std::vector<Config> all = Space::enumerate(spec, std::nullopt, DeviceLimits{}).configs();
    ASSERT_FALSE(all.empty()) << spec.name;
    const std::size_t count = spec.name == "gemm_fp8" ? 16 : 4;
    const std::vector<Config> sample = testing::sample_configs(spec, all, count);
    if (spec.name == "gemm_fp8") {
      for (const auto& p : spec.parameters) {
        std::set<std::int64_t> seen, every;
        for (const Config& c : sample) seen.insert(value(spec, c, p.name));
        for (const Config& c : all) every.insert(value(spec, c, p.name));
        EXPECT_EQ(seen, every) << p.name;
      }
    }
    for (const Config& c : sample)
      jobs.push_back({&spec, c, pool.submit([&spec, c] { return compile_config(spec, c, "sm_90", &kOddShape); })});
  }
  std::size_t reallocating = 0;
  for (auto& job : jobs) {
    const CompileOutput out = job.out.get();
    const std::string text = job.spec->name + " " + job.spec->format(job.config);
    ASSERT_TRUE(out.ok) << text << "\n" << out.log;
    EXPECT_EQ(out.lowered_name, "gemm_fp8");
    EXPECT_LE(out.spill_bytes, value(*job.spec, job.config, "STREAMK") > 0 ? 64 : 0) << text;
    EXPECT_EQ(out.log.find("wgmma"), std::string::npos) << text << "\n" << out.log;
    EXPECT_EQ(out.log.find("warpgroup.wait is injected"), std::string::npos) << text << "\n" << out.log;
    const std::int64_t wg = value(*job.spec, job.config, "WG"), pingpong = value(*job.spec, job.config, "PINGPONG");
    const std::int64_t bm = value(*job.spec, job.config, "BM"), bn = value(*job.spec, job.config, "BN");
    const bool swap = value(*job.spec, job.config, "SWAP") == 1;
    const std::int64_t readers = pingpong ? 1 : wg;
    const std::int64_t tiles = (swap ? bn : bm) / (64 * readers), width = swap ? bm : bn;
    // Accumulators, and with PROMOTE one buffer of partial sums, or two where all three fit (gemm_fp8.cu's kOverlap).
    const std::int64_t accs = tiles * width / 2, promote = value(*job.spec, job.config, "PROMOTE");
    const bool overlap = value(*job.spec, job.config, "PERSIST") != 2 &&
                         3 * accs <= (job.spec->name == "gemm_fp8_f32" ? 144 : 192);
    const std::int64_t registers = (promote == 0 ? 1 : overlap ? 3 : 2) * accs;
    if (wg == 2 && registers >= 128) {
      EXPECT_EQ(out.registers, 168) << text;
      ++reallocating;
    } else {
      EXPECT_LE(out.registers, wg == 2 ? 168 : 255) << text;
    }
  }
  EXPECT_GT(reallocating, 0u);
}

}  // namespace
}  // namespace cutune
