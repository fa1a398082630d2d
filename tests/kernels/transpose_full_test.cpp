// Host-only tests of transpose_full, the transpose template's full space: exact counts, the geometry at odd and
// one-sided shapes, and NVRTC compiles for sm_90 of a sample that covers every parameter value.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <set>
#include <string>

#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

std::set<std::string> formatted(const KernelSpec& spec, const Space& space) {
  std::set<std::string> out;
  for (const auto& c : space.configs()) out.insert(spec.format(c));
  return out;
}

TEST(TransposeFullSpace, SharesTheSourceOfTranspose) {
  const KernelSpec full = load_kernel("transpose_full"), compact = load_kernel("transpose");
  EXPECT_EQ(full.source, compact.source);
  EXPECT_EQ(full.kernel, "transpose");
  EXPECT_EQ(full.shape_names, compact.shape_names);
  EXPECT_NE(full.hash, compact.hash);
}

// 6 TH x 6 TW x 3 VEC x 3 THREADS x 2 SMEM x 2 COALESCE x 3 ALIGN = 3888 combinations. Tiles of 1024 to 8192 floats
// whose (row, chunk) pairs divide among the threads: 175 tile, vector and thread choices; each staged in shared memory
// (chunks at the tile) or naive (two ways), and with VEC > 1 also staged with address-aligned chunks, reads only or
// reads and shifted writes (115 each): 755.
TEST(TransposeFullSpace, ExactCounts) {
  const KernelSpec spec = load_kernel("transpose_full");
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  EXPECT_EQ(space.cartesian_size(), 3888u);
  EXPECT_EQ(space.size(), 755u);
  EXPECT_EQ(space.removed_by_constraints(), 3888u - 755u);
  EXPECT_EQ(space.removed_by_device(), 0u);
  const auto configs = formatted(spec, space);
  EXPECT_EQ(configs.size(), 755u);
  EXPECT_EQ(spec.format(spec.default_config()), "TH=32,TW=32,VEC=4,THREADS=256,SMEM=1,COALESCE=0,ALIGN=1");
  EXPECT_TRUE(configs.count(spec.format(spec.default_config())));
  // transpose's winner at 4096^2 and 8192^2 (TILE=64,VEC=4,ROWS=16): the same code.
  EXPECT_TRUE(configs.count("TH=64,TW=64,VEC=4,THREADS=256,SMEM=1,COALESCE=0,ALIGN=0"));
  EXPECT_TRUE(configs.count("TH=8,TW=256,VEC=4,THREADS=512,SMEM=1,COALESCE=0,ALIGN=1"));   // wide and flat
  EXPECT_TRUE(configs.count("TH=256,TW=8,VEC=2,THREADS=128,SMEM=1,COALESCE=0,ALIGN=1"));   // tall and thin
  EXPECT_FALSE(configs.count("TH=16,TW=16,VEC=1,THREADS=128,SMEM=1,COALESCE=0,ALIGN=0"));  // 256 floats: too small
  EXPECT_FALSE(configs.count("TH=32,TW=32,VEC=4,THREADS=512,SMEM=1,COALESCE=0,ALIGN=1"));  // 256 chunks, 512 threads
  EXPECT_FALSE(configs.count("TH=32,TW=32,VEC=1,THREADS=256,SMEM=1,COALESCE=0,ALIGN=1"));  // aligned scalars: no
  EXPECT_FALSE(configs.count("TH=32,TW=32,VEC=4,THREADS=256,SMEM=0,COALESCE=0,ALIGN=1"));  // aligned needs the tile
  EXPECT_TRUE(configs.count("TH=128,TW=32,VEC=4,THREADS=512,SMEM=1,COALESCE=0,ALIGN=2"));  // shifted writes
  EXPECT_FALSE(configs.count("TH=32,TW=32,VEC=1,THREADS=256,SMEM=1,COALESCE=0,ALIGN=2"));  // shifted scalars: no
}

// One block per tile on a 1D grid (no 65535 limit on either side); a 1 x N or N x 1 copy gets one block per tile's
// worth of floats.
TEST(TransposeFullSpace, GeometryAtOddShapes) {
  const KernelSpec spec = load_kernel("transpose_full");
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  struct Case {
    std::int64_t m, n;
  };
  for (const Case& s : {Case{4097, 4097}, Case{4095, 4097}, Case{33, 100000}, Case{100000, 33}, Case{3000, 4001},
                        Case{1, 10000000}, Case{10000000, 1}, Case{1, 1}, Case{2, 2}}) {
    const Shape shape{{s.m, s.n}};
    const Space at_shape = Space::enumerate(spec, shape, DeviceLimits{});
    EXPECT_EQ(at_shape.size(), 755u) << shape.str();
    for (const auto& c : at_shape.configs()) {
      const std::int64_t th = c.values[0].as_int(), tw = c.values[1].as_int();
      const Launch l = spec.resolve(spec.launch, c, shape, 132);
      const bool copy = s.m == 1 || s.n == 1;
      const std::int64_t tiles = copy ? (s.m * s.n + th * tw - 1) / (th * tw)
                                      : ((s.n + tw - 1) / tw) * ((s.m + th - 1) / th);
      ASSERT_EQ(l.grid[0], tiles) << spec.format(c) << " at " << shape.str();
      ASSERT_EQ(l.grid[1], 1);
      ASSERT_EQ(l.block[0], c.values[3].as_int());
      const std::int64_t halo = c.values[6].as_int() == 2 ? c.values[2].as_int() - 1 : 0;  // ALIGN=2: VEC - 1 rows
      ASSERT_EQ(l.shared_memory, c.values[4].as_int() * (th + halo) * (tw + 1) * 4);
    }
  }
  // The reference's grid stays within 65535 rows of blocks at N x 1.
  const Launch r = spec.resolve(spec.reference_launch, spec.default_config(), Shape{{10000000, 1}}, 132);
  EXPECT_EQ(r.grid[1], 65535);
  EXPECT_FALSE(check_launch(r, DeviceLimits{}, true));
}

TEST(TransposeFullCompile, CoveringSampleCompilesForSm90) {
  const KernelSpec spec = load_kernel("transpose_full");
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  const auto sample = testing::sample_space(spec, space, 48);
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    for (const Value& v : spec.parameters[p].values)
      ASSERT_TRUE(std::any_of(sample.begin(), sample.end(), [&](const Config& c) { return c.values[p] == v; }))
          << spec.parameters[p].name << "=" << v.str();
  CompilePool pool;
  std::vector<std::future<CompileOutput>> outputs;
  for (const auto& c : sample) outputs.push_back(pool.submit([&spec, c] { return compile_config(spec, c, "sm_90"); }));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const CompileOutput out = outputs[i].get();
    ASSERT_TRUE(out.ok) << spec.format(sample[i]) << "\n" << out.log;
    EXPECT_EQ(out.lowered_name, "transpose");
    EXPECT_GT(out.cubin.size(), 1000u);
    if (out.log.find("Used ") != std::string::npos) EXPECT_EQ(out.spill_bytes, 0) << spec.format(sample[i]) << out.log;
  }
  const CompileOutput reference = compile_reference(spec, "sm_90");
  ASSERT_TRUE(reference.ok) << reference.log;
}

}  // namespace
}  // namespace cutune
