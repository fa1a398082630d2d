// Host tests of the tile widths that are not multiples of 64 (BN 80 to 224 in steps of 16, untransposed wgmma tiles;
// TF32's BM, wgmma's N of its transposed product, 80 to 240): where the 16-bit, FP8 and TF32 spaces hold them, the
// boxes and swizzle of the tensor maps that the kernels' descriptors and staged stores agree with, the shared memory
// of B's whole boxes, and NVRTC builds of the heaviest variants of each width for sm_90a without spills or serialized
// wgmmas (no GPU needed).
#include <gtest/gtest.h>

#include <cstdio>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "cutune/tensor_map.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

using testing::value;

// The columns of a box along N (B's and C's): 64 where the width allows, else 32 or 16.
unsigned box_columns(std::int64_t bn) { return bn % 64 == 0 ? 64 : bn % 32 == 0 ? 32 : 16; }

const Argument& argument(const KernelSpec& spec, const std::string& name) {
  for (const Argument& a : spec.arguments)
    if (a.name == name) return a;
  throw std::logic_error("no argument " + name);
}

// Every multiple of 16 from 64 to 256 but 240 is a width of the untransposed wgmma tiles at 4096^3; the others (PATH 0,
// SWAP=1) keep the powers of two and 192; EPI_VEC 8's quad gather and the epilogue slices keep their widths.
TEST(GemmWidthsSpace, StepsOf16OnTheUntransposedWgmmaTiles) {
  for (const char* name : {"gemm_bf16", "gemm_f16"}) {
    const KernelSpec spec = load_kernel(name);
    const Space space = Space::enumerate(spec, spec.parse_shape("4096x4096x4096"), DeviceLimits{});
    std::set<std::int64_t> untransposed;
    for (const Config& c : space.configs()) {
      const std::int64_t bn = value(spec, c, "BN");
      const bool wgmma = value(spec, c, "PATH") == 1 && value(spec, c, "SWAP") == 0;
      if (wgmma) untransposed.insert(bn);
      if (bn % 64 == 0 || bn == 32) continue;
      EXPECT_TRUE(wgmma) << name << " " << spec.format(c);
      if (value(spec, c, "EPI_VEC") == 8) EXPECT_EQ(bn % 32, 0) << name << " " << spec.format(c);
      EXPECT_EQ(value(spec, c, "EPI_SLICE"), 0) << name << " " << spec.format(c);
    }
    std::set<std::int64_t> steps;
    for (std::int64_t bn = 64; bn <= 256; bn += 16) steps.insert(bn);
    steps.erase(240);
    EXPECT_EQ(untransposed, steps) << name;
  }
}

// B's map loads 64-column boxes (128-byte swizzle), ceil(BN / 64) of them per stage, the last one read in part; C's map
// stores boxes of W columns (64, 32 or 16: the largest that divides BN) with a swizzle span of 2 W bytes (one box row).
// The launch's shared memory holds the ring of such stages and C's staged rows.
TEST(GemmWidthsSpace, BoxesAndSwizzleFollowTheWidth) {
  const KernelSpec spec = load_kernel("gemm_bf16");
  const Shape shape = spec.parse_shape("300x1000x520");
  for (const std::int64_t bn : {64, 80, 96, 112, 160, 176, 192, 208, 224}) {
    const std::string text = "PATH=1,BM=128,BN=" + std::to_string(bn) +
                             ",BK=64,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=1,GROUP_M=1,EPI_VEC=64,"
                             "ALIGNED=1,WG=2,CM=1,CN=1,SWAP=0,PERSIST=0,MC=0,STREAMK=0,EPI_SLICE=0,PINGPONG=0,"
                             "SHAPED=0,RASTER=0,KSUM=0";
    const Config c = spec.parse_config(text);
    const unsigned w = box_columns(bn);
    const TensorMapLayout b = tensor_map_layout(spec, argument(spec, "b_map"), c, shape);
    EXPECT_EQ(b.box[0], 64u) << text;
    EXPECT_EQ(b.box[1], 64u) << text;
    EXPECT_EQ(b.swizzle, 128) << text;
    const std::int64_t boxes = (bn + 63) / 64, stage = 128 * 128 + boxes * static_cast<std::int64_t>(b.box_bytes());
    EXPECT_EQ(spec.resolve(spec.launch, c, shape, 132).shared_memory, 4 * stage + 128 * bn * 2 + 1024 + 128) << text;
    const TensorMapLayout cm = tensor_map_layout(spec, argument(spec, "c_map"), c, shape);
    EXPECT_EQ(cm.box[0], w) << text;
    EXPECT_EQ(cm.box[1], 64u) << text;  // each of the two consumer warpgroups' rows
    EXPECT_EQ(cm.swizzle, static_cast<int>(2 * w)) << text;
  }
}

// Compiles each configuration text of `spec` for sm_90a (a shape-specialized one at `shape`) on a pool, and checks
// what every width must meet: built, no spills but stream-K's fixup's (64 bytes, as the other widths), no serialized
// wgmmas, and for two consumer warpgroups at most the 168 registers a thread gets at launch.
void expect_clean_compiles(const KernelSpec& spec, const std::vector<std::string>& texts, const Shape& shape) {
  CompilePool pool;
  std::vector<std::future<CompileOutput>> outs;
  for (const std::string& text : texts) {
    const Config c = spec.parse_config(text);
    const Shape* at = value(spec, c, "SHAPED") ? &shape : nullptr;
    outs.push_back(pool.submit([&spec, c, at] { return compile_config(spec, c, "sm_90", at); }));
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const CompileOutput out = outs[i].get();
    const Config c = spec.parse_config(texts[i]);
    ASSERT_TRUE(out.ok) << texts[i] << "\n" << out.log;
    EXPECT_LE(out.spill_bytes, value(spec, c, "STREAMK") > 0 ? 64 : 0) << texts[i];
    EXPECT_EQ(out.log.find("wgmma"), std::string::npos) << texts[i] << "\n" << out.log;
    if (value(spec, c, "WG") == 2) EXPECT_LE(out.registers, 168) << texts[i];
    std::printf("%3d registers, %3d spilled bytes  %s\n", out.registers, out.spill_bytes, texts[i].c_str());
  }
}

// For each width that is not a multiple of 64, the heaviest variants compile for sm_90a (the kernel's static_asserts
// check the descriptors and that the staged writes of C are free of bank conflicts): two consumer warpgroups sharing a
// 128-row tile with TMA stores, persistent and stream-K, and ping-pong; one warpgroup's 128 x BN tile. No spills but
// stream-K's fixup's (as the other widths), no serialized wgmmas, at most the 168 registers at launch of two warpgroups
// (240 columns, whose 120 accumulators spill from them, are left out).
TEST(GemmWidthsCompile, EveryWidthCompilesForSm90a) {
  const KernelSpec spec = load_kernel("gemm_bf16");
  std::vector<std::string> texts;
  for (std::int64_t bn = 80; bn <= 224; bn += 16) {
    if (bn % 64 == 0) continue;
    const std::string n = std::to_string(bn);
    std::vector<std::string> variants = {
        "BM=128,WG=2,EPI_VEC=64,PERSIST=1,STREAMK=1,PINGPONG=0,SHAPED=0,SPLITK=1",
        "BM=128,WG=2,EPI_VEC=64,PERSIST=1,STREAMK=0,PINGPONG=0,SHAPED=1,SPLITK=1",
        std::string("BM=128,WG=2,EPI_VEC=") + (bn % 32 == 0 ? "8" : "2") +
            ",PERSIST=0,STREAMK=0,PINGPONG=0,SHAPED=0,SPLITK=1"};
    if (bn <= 128) {
      variants.push_back("BM=128,WG=1,EPI_VEC=64,PERSIST=1,STREAMK=0,PINGPONG=0,SHAPED=0,SPLITK=1");
      variants.push_back("BM=64,WG=2,EPI_VEC=64,PERSIST=1,STREAMK=0,PINGPONG=1,SHAPED=0,SPLITK=1");
    }
    // Split-K's sum: not where two warpgroups hold 112 accumulators each (the spec leaves those out: they spill).
    if (bn != 224) variants.push_back("BM=128,WG=2,EPI_VEC=64,PERSIST=0,STREAMK=0,PINGPONG=0,SHAPED=0,SPLITK=16");
    if (bn < 112) variants.push_back("BM=256,WG=2,EPI_VEC=64,PERSIST=0,STREAMK=0,PINGPONG=0,SHAPED=0,SPLITK=16");
    // Two m64 tiles a warpgroup (256 rows): persistent, but stream-K only with one (the spec leaves it out: it spills).
    if (bn < 128) {
      variants.push_back("BM=256,WG=2,EPI_VEC=64,PERSIST=1,STREAMK=0,PINGPONG=0,SHAPED=0,SPLITK=1");
      variants.push_back(std::string("BM=256,WG=2,EPI_VEC=") + (bn % 32 == 0 ? "8" : "2") +
                         ",PERSIST=1,STREAMK=0,PINGPONG=0,SHAPED=1,SPLITK=1");
    }
    for (const std::string& v : variants) {
      texts.push_back("PATH=1,BN=" + n + ",BK=64,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,GROUP_M=8,ALIGNED=1," +
                      "CM=1,CN=1,SWAP=0,MC=0,EPI_SLICE=0,RASTER=0,KSUM=0," + v);
    }
  }
  expect_clean_compiles(spec, texts, Shape{{1000, 1000, 1000}});
}

// The FP8 GEMM's widths that are not multiples of 64 (B K-major: a box of BN rows by one 128-byte slab, any multiple
// of 8 rows) are in its space with SWAP=0, and the heaviest variants of each compile for sm_90a: two consumer
// warpgroups with the slab sums promoted (up to 192 columns) or carried (PROMOTE=0), TMA stores, persistent and
// stream-K, ping-pong, multicast of B's halves, split-K, stores from the registers where BN is a multiple of 32.
TEST(GemmWidthsCompile, EveryFp8WidthCompilesForSm90a) {
  const KernelSpec spec = load_kernel("gemm_fp8");
  std::set<std::int64_t> widths;
  for (const Config& c : Space::enumerate(spec, spec.parse_shape("4096x4096x4096"), DeviceLimits{}).configs()) {
    if (value(spec, c, "SWAP") == 0) widths.insert(value(spec, c, "BN"));
  }
  std::set<std::int64_t> steps;
  for (std::int64_t bn = 64; bn <= 256; bn += 16) steps.insert(bn);
  steps.erase(240);
  EXPECT_EQ(widths, steps);
  std::vector<std::string> texts;
  for (std::int64_t bn = 80; bn <= 224; bn += 16) {
    if (bn % 64 == 0) continue;
    const std::string promote = bn <= 192 ? "1" : "0";
    std::vector<std::string> variants = {
        "BM=128,WG=2,PROMOTE=" + promote + ",EPI=1,PERSIST=1,STREAMK=1,PINGPONG=0,CM=1,MC=0,SHAPED=0,SPLITK=1",
        "BM=128,WG=2,PROMOTE=" + promote + ",EPI=1,PERSIST=1,STREAMK=0,PINGPONG=0,CM=2,MC=1,SHAPED=1,SPLITK=1"};
    const std::string plain = "EPI=1,PERSIST=0,STREAMK=0,PINGPONG=0,CM=1,MC=0,SHAPED=0";
    if (bn <= 128) variants.push_back("BM=128,WG=1,PROMOTE=0," + plain + ",SPLITK=1");
    if (bn % 32 == 0) {
      variants.push_back("BM=128,WG=2,PROMOTE=" + promote + ",EPI=0,PERSIST=0,STREAMK=0,PINGPONG=0,CM=1,MC=0,SHAPED=0,"
                         "SPLITK=1");
    }
    if (bn <= 96) {
      variants.push_back("BM=64,WG=2,PROMOTE=1,EPI=1,PERSIST=1,STREAMK=0,PINGPONG=1,CM=1,MC=0,SHAPED=0,SPLITK=1");
    }
    // Split-K's sum: not where two warpgroups hold 104 accumulators or more (the spec leaves those out: they spill).
    if (bn <= 192) variants.push_back("BM=128,WG=2,PROMOTE=0," + plain + ",SPLITK=8");
    for (const std::string& v : variants) {
      texts.push_back("BN=" + std::to_string(bn) + ",STAGES=4,SWAP=0,CN=1,GROUP_M=8,EPI_SLICE=0,RASTER=0,KSUM=0," + v);
    }
  }
  expect_clean_compiles(spec, texts, Shape{{1000, 1000, 1024}});
}

// TF32's PATH 1 computes C^T = B^T A^T, so its tile width is BM (wgmma's N): every multiple of 16 from 64 to 256 at
// 4096^3 (BN stays 64, 128, 256); PATH 0 keeps its powers of two.
TEST(GemmWidthsSpace, Tf32RowsInStepsOf16OnPath1) {
  const KernelSpec spec = load_kernel("gemm_tf32");
  std::set<std::int64_t> path0, path1, columns;
  for (const Config& c : Space::enumerate(spec, spec.parse_shape("4096x4096x4096"), DeviceLimits{}).configs()) {
    (value(spec, c, "PATH") == 1 ? path1 : path0).insert(value(spec, c, "BM"));
    if (value(spec, c, "PATH") == 1) columns.insert(value(spec, c, "BN"));
  }
  std::set<std::int64_t> steps;
  for (std::int64_t bm = 64; bm <= 256; bm += 16) steps.insert(bm);
  EXPECT_EQ(path1, steps);
  EXPECT_EQ(path0, (std::set<std::int64_t>{64, 128, 256}));  // 16 and 32 only where M < 2048
  EXPECT_EQ(columns, (std::set<std::int64_t>{64, 128, 256}));
}

// TF32's A box is BK x BM (one 128-byte row of K per tile row: any multiple of 8 rows), B's 32 x BK whatever BM, and
// C's (EPI_VEC 64) 32 columns by all BM rows; the launch's shared memory holds the ring of BM + BN rows of 128 bytes
// per stage and each consumer warpgroup's two staged boxes of C.
TEST(GemmWidthsSpace, Tf32BoxesFollowTheRows) {
  const KernelSpec spec = load_kernel("gemm_tf32");
  const Shape shape = spec.parse_shape("300x1028x520");
  for (const std::int64_t bm : {80, 96, 112, 144, 160, 176, 208, 224, 240}) {
    const std::string text = "PATH=1,BM=" + std::to_string(bm) +
                             ",BN=128,BK=32,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=1,GROUP_M=1,"
                             "EPI_VEC=64,ALIGNED=1,WG=2,CM=1,CN=1,PERSIST=0,STREAMK=0,PINGPONG=0,SHAPED=0,RASTER=0,"
                             "KSUM=0";
    const Config c = spec.parse_config(text);
    const TensorMapLayout a = tensor_map_layout(spec, argument(spec, "a_map"), c, shape);
    EXPECT_EQ(a.box[0], 32u) << text;
    EXPECT_EQ(a.box[1], static_cast<unsigned>(bm)) << text;
    EXPECT_EQ(a.swizzle, 128) << text;
    const TensorMapLayout b = tensor_map_layout(spec, argument(spec, "b_map"), c, shape);
    EXPECT_EQ(b.box[0], 32u) << text;
    EXPECT_EQ(b.box[1], 32u) << text;
    EXPECT_EQ(a.box_bytes() + 128 / 32 * b.box_bytes(), static_cast<std::size_t>((bm + 128) * 128)) << text;
    const TensorMapLayout cm = tensor_map_layout(spec, argument(spec, "c_map"), c, shape);
    EXPECT_EQ(cm.box[0], 32u) << text;
    EXPECT_EQ(cm.box[1], static_cast<unsigned>(bm)) << text;
    EXPECT_EQ(cm.swizzle, 128) << text;
    EXPECT_EQ(spec.resolve(spec.launch, c, shape, 132).shared_memory, 4 * (bm + 128) * 128 + 2 * bm * 256 + 1024 + 128)
        << text;
  }
}

// For each TF32 BM that is not a multiple of 64, the heaviest variants compile for sm_90a, each with the deepest ring
// (4, 3 or 2 stages) the space holds it with (the kernel's static_asserts check that the accumulators cover the tile
// once, that the staged writes of C meet at most two to a bank, and the fragment loads): two consumer warpgroups of
// two 64-column chunks each where the space has them (112 and 128 rows) with staged and element stores and split-K's
// sums, one chunk each with split-K's sum through the workspace or the cluster, shape-specialized TMA stores, and one
// warpgroup's whole tile of one or two chunks. EveryPersistentTf32TileCompilesForSm90a covers the persistent,
// stream-K and ping-pong tiles.
TEST(GemmWidthsCompile, EveryTf32WidthCompilesForSm90a) {
  const KernelSpec spec = load_kernel("gemm_tf32");
  KernelSpec path1 = spec;
  path1.restrict_to("PATH == 1");
  std::set<std::string> space;
  for (const Config& c : Space::enumerate(path1, std::nullopt, DeviceLimits{}).configs()) space.insert(spec.format(c));
  std::vector<std::string> texts;
  for (std::int64_t bm = 80; bm <= 240; bm += 16) {
    if (bm % 64 == 0) continue;
    std::vector<std::string> variants = {
        "BN=128,WG=2,EPI_VEC=64,SPLITK=16,KSUM=0,SHAPED=0",
        // KSUM's ring holds the other slice's partial tile: with C's boxes too, too much shared memory from 208 rows
        std::string("BN=128,WG=2,EPI_VEC=") + (bm < 208 ? "64" : "4") + ",SPLITK=2,KSUM=1,SHAPED=0",
        "BN=128,WG=2,EPI_VEC=64,SPLITK=1,KSUM=0,SHAPED=1", "BN=128,WG=2,EPI_VEC=4,SPLITK=1,KSUM=0,SHAPED=0",
        "BN=64,WG=1,EPI_VEC=1,SPLITK=1,KSUM=0,SHAPED=0"};
    if (bm <= 128) variants.push_back("BN=128,WG=1,EPI_VEC=64,SPLITK=16,KSUM=0,SHAPED=0");
    if (bm >= 112 && bm <= 128) {
      variants.push_back("BN=256,WG=2,EPI_VEC=4,SPLITK=1,KSUM=0,SHAPED=0");
      variants.push_back("BN=256,WG=2,EPI_VEC=1,SPLITK=1,KSUM=0,SHAPED=1");
      variants.push_back("BN=256,WG=2,EPI_VEC=1,SPLITK=16,KSUM=0,SHAPED=0");
      variants.push_back("BN=256,WG=2,EPI_VEC=1,SPLITK=2,KSUM=1,SHAPED=0");
    }
    for (const std::string& v : variants) {
      const std::string head = "PATH=1,BM=" + std::to_string(bm) + ",BK=32,WARPS_M=2,WARPS_N=2,STAGES=";
      const std::string tail = ",PREFETCH=1,SWIZZLE=1,GROUP_M=1,ALIGNED=1,CM=1,CN=1,PERSIST=0,STREAMK=0,PINGPONG=0,"
                               "RASTER=0," + v;
      std::string text;
      for (const char* stages : {"4", "3", "2"}) {
        const std::string candidate = head + stages + tail;
        if (text.empty() && space.count(spec.format(spec.parse_config(candidate)))) text = candidate;
      }
      if (text.empty()) ADD_FAILURE() << "not in the space with 2 to 4 stages: " << head << "*" << tail;
      else texts.push_back(text);
    }
  }
  expect_clean_compiles(spec, texts, Shape{{1000, 1000, 1000}});
}

}  // namespace
}  // namespace cutune
