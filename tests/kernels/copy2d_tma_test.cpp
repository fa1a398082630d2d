// Host tests of the copy2d_tma template: its space on Hopper and elsewhere, and NVRTC compiles of a covering sample.
#include <gtest/gtest.h>

#include <future>

#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "cutune/tensor_map.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

TEST(Copy2dTma, SpaceNeedsHopperAndRowsOf16Bytes) {
  const KernelSpec spec = load_kernel("copy2d_tma");
  EXPECT_EQ(tensor_map_arguments(spec), (std::vector<std::size_t>{2, 3}));
  const Space hopper = Space::enumerate(spec, spec.parse_shape("4096x4096"), limits_of_compute_capability(90));
  EXPECT_EQ(hopper.size(), 1176u);
  EXPECT_EQ(hopper.removed_by_target(), 0u);
  // Tensor maps need compute capability 9.0: nothing is left on an A100, and it says why.
  const Space ampere = Space::enumerate(spec, spec.parse_shape("4096x4096"), limits_of_compute_capability(80));
  EXPECT_EQ(ampere.size(), 0u);
  EXPECT_EQ(ampere.removed_by_target(), 1176u);
  // Rows of 4098 floats are not a multiple of 16 bytes: TMA cannot describe them.
  EXPECT_EQ(Space::enumerate(spec, spec.parse_shape("4096x4098"), DeviceLimits{}).size(), 0u);
  // Odd row counts are fine: the last boxes are partly outside the tensor, and clusters round the grid up.
  const Space odd = Space::enumerate(spec, spec.parse_shape("33x100"), DeviceLimits{});
  EXPECT_EQ(odd.size(), 1176u);
  for (const Config& c : odd.configs()) {
    const Launch l = spec.resolve(spec.launch, c, spec.parse_shape("33x100"), 132);
    ASSERT_EQ(l.grid[0] % l.cluster[0], 0) << spec.format(c);
    ASSERT_EQ(l.grid[1] % l.cluster[1], 0) << spec.format(c);
  }
}

// Every value of every parameter compiles, for sm_90 and for sm_90a (a GPU of compute capability 9.0 runs both).
TEST(Copy2dTma, CoveringSampleCompilesForHopper) {
  const KernelSpec spec = load_kernel("copy2d_tma");
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  const std::vector<Config> sample = testing::sample_space(spec, space, 12);
  CompilePool pool;
  std::vector<std::future<CompileOutput>> futures;
  for (const Config& c : sample) {
    futures.push_back(pool.submit([&spec, c] { return compile(spec, spec.kernel, spec.defines(c), "sm_90a"); }));
  }
  futures.push_back(pool.submit([&spec] { return compile_config(spec, spec.default_config(), "sm_90"); }));
  futures.push_back(pool.submit([&spec] { return compile_reference(spec, "sm_90"); }));
  for (std::size_t i = 0; i < futures.size(); ++i) {
    const CompileOutput out = futures[i].get();
    EXPECT_TRUE(out.ok) << (i < sample.size() ? spec.format(sample[i]) : "default or reference") << "\n" << out.log;
    EXPECT_EQ(out.spill_bytes, 0);
  }
}

}  // namespace
}  // namespace cutune
