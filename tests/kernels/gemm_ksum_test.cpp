// Host tests of split-K through distributed shared memory (KSUM=1): where the spaces of the wgmma GEMMs hold it, the
// launch it resolves to (a cluster of the tile's two slices along grid.z), room in the ring for a partial tile, and
// NVRTC builds for sm_90a of the heaviest variants without spills or serialized wgmmas (no GPU needed).
#include <gtest/gtest.h>

#include <cstdio>
#include <future>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

using testing::value;

// Shared memory of the ring's stages: a partial tile (4 bytes an element) must fit there.
std::int64_t ring_bytes(const KernelSpec& spec, const Config& c) {
  const std::int64_t bm = value(spec, c, "BM"), bn = value(spec, c, "BN");
  const std::int64_t padded = bn + (bn % 64 == 0 ? 0 : 64 - bn % 64);
  return value(spec, c, "STAGES") * (bm + (spec.name == "gemm_bf16" || spec.name == "gemm_f16" ? padded : bn)) * 128;
}

// At 1000^3 (and a skinny shape for the swapped 16-bit tiles) each spec holds KSUM=1 configurations, and only with
// PATH 1, two slices (more measured slower than the workspace's sum on the H200), no other cluster, no persistent blocks and a ring that holds the partial tile; their
// launch is a cluster of SPLITK blocks along z over a grid of SPLITK slices.
TEST(GemmKsumSpace, ClustersOfTheSlicesOfATile) {
  for (const char* name : {"gemm_bf16", "gemm_f16", "gemm_tf32", "gemm_fp8"}) {
    const KernelSpec spec = load_kernel(name);
    for (const char* text : {"1000x1000x1024", "64x4096x4096"}) {
      const Shape shape = spec.parse_shape(text);
      int found = 0;
      for (const Config& c : Space::enumerate(spec, shape, DeviceLimits{}).configs()) {
        if (value(spec, c, "KSUM") == 0) continue;
        ++found;
        const std::string what = std::string(name) + " " + spec.format(c);
        const std::int64_t slices = value(spec, c, "SPLITK");
        EXPECT_EQ(slices, 2) << what;
        if (spec.name != "gemm_fp8") EXPECT_EQ(value(spec, c, "PATH"), 1) << what;  // FP8 has the wgmma path only
        EXPECT_EQ(value(spec, c, "CM") * value(spec, c, "CN"), 1) << what;
        EXPECT_EQ(value(spec, c, "PERSIST"), 0) << what;
        EXPECT_GE(ring_bytes(spec, c), 4 * value(spec, c, "BM") * value(spec, c, "BN")) << what;
        const Launch launch = spec.resolve(spec.launch, c, shape, 132);
        EXPECT_EQ(launch.cluster[0], 1) << what;
        EXPECT_EQ(launch.cluster[1], 1) << what;
        EXPECT_EQ(launch.cluster[2], slices) << what;
        EXPECT_EQ(launch.grid[2], slices) << what;
      }
      EXPECT_GT(found, 0) << name << " at " << text;
    }
  }
}

// Compiles each text for sm_90a on a pool: built, no spills, no serialized wgmmas, and two consumer warpgroups within
// the 168 registers a thread gets at launch.
void expect_clean_compiles(const KernelSpec& spec, const std::vector<std::string>& texts) {
  CompilePool pool;
  std::vector<std::future<CompileOutput>> outs;
  for (const std::string& text : texts) {
    const Config c = spec.parse_config(text);
    outs.push_back(pool.submit([&spec, c] { return compile_config(spec, c, "sm_90", nullptr); }));
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const CompileOutput out = outs[i].get();
    const Config c = spec.parse_config(texts[i]);
    ASSERT_TRUE(out.ok) << texts[i] << "\n" << out.log;
    EXPECT_EQ(out.spill_bytes, 0) << texts[i];
    EXPECT_EQ(out.log.find("wgmma"), std::string::npos) << texts[i] << "\n" << out.log;
    if (value(spec, c, "WG") == 2) EXPECT_LE(out.registers, 168) << texts[i];
    std::printf("%3d registers, %3d spilled bytes  %s\n", out.registers, out.spill_bytes, texts[i].c_str());
  }
}

// The heaviest tiles each kernel sums through the cluster: two consumer warpgroups of 128 accumulators (128 x 256,
// 16-bit), one warpgroup's 128 x 128, the swapped skinny tile, TF32's and FP8's largest.
TEST(GemmKsumCompile, HeaviestTilesCompileForSm90a) {
  const std::string common16 = "PATH=1,BK=64,WARPS_M=2,WARPS_N=2,PREFETCH=1,SWIZZLE=1,GROUP_M=1,ALIGNED=1,CM=1,CN=1,"
                               "MC=0,PERSIST=0,STREAMK=0,EPI_SLICE=0,PINGPONG=0,SHAPED=0,RASTER=0,KSUM=1,";
  expect_clean_compiles(load_kernel("gemm_bf16"),
                        {common16 + "BM=128,BN=256,STAGES=4,SPLITK=2,EPI_VEC=64,WG=2,SWAP=0",
                         common16 + "BM=128,BN=128,STAGES=3,SPLITK=2,EPI_VEC=8,WG=1,SWAP=0",
                         common16 + "BM=128,BN=160,STAGES=4,SPLITK=2,EPI_VEC=64,WG=2,SWAP=0",
                         common16 + "BM=64,BN=128,STAGES=6,SPLITK=2,EPI_VEC=8,WG=1,SWAP=1"});
  expect_clean_compiles(load_kernel("gemm_tf32"),
                        {"PATH=1,BM=128,BN=128,BK=32,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=2,"
                         "GROUP_M=1,EPI_VEC=64,ALIGNED=1,WG=2,CM=1,CN=1,PERSIST=0,STREAMK=0,PINGPONG=0,SHAPED=0,"
                         "RASTER=0,KSUM=1"});
  expect_clean_compiles(load_kernel("gemm_fp8"),
                        {"BM=128,BN=128,STAGES=4,WG=2,SWAP=0,PROMOTE=1,CM=1,CN=1,MC=0,PERSIST=0,STREAMK=0,PINGPONG=0,"
                         "SPLITK=2,GROUP_M=1,EPI=1,EPI_SLICE=0,SHAPED=0,RASTER=0,KSUM=1"});
}

}  // namespace
}  // namespace cutune
