// Tests of space enumeration: order, constraint pruning, device limits and counts checked by hand.
#include "cutune/space.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cutune/error.hpp"

namespace {

using cutune::check_launch;
using cutune::DeviceLimits;
using cutune::InputError;
using cutune::KernelSpec;
using cutune::Launch;
using cutune::Shape;
using cutune::Space;

// A one-dimensional spec (shape ["N"]) around the given parameters, constraints and geometry (JSON fragments).
KernelSpec make_spec(const std::string& parameters, const std::string& constraints, const std::string& block,
                     const std::string& shared_memory = "0", const std::string& grid = "[1]") {
  const std::string text = R"json({
    "name": "k", "source": "k.cu", "kernel": "k", "shape": ["N"],
    "parameters": )json" + parameters +
                           R"json(,
    "constraints": )json" + constraints +
                           R"json(,
    "block": )json" + block +
                           R"json(,
    "grid": )json" + grid + R"json(,
    "shared_memory": )json" +
                           shared_memory + R"json(,
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
    "reference": {"kernel": "k_reference", "block": [256], "grid": ["ceil_div(N, 256)"]},
    "metric": {"bytes": "4 * N"}
  })json";
  return KernelSpec::from_json(text, "", "k.cu");
}

std::vector<std::string> formatted(const KernelSpec& spec, const Space& space) {
  std::vector<std::string> out;
  for (const auto& c : space.configs()) out.push_back(spec.format(c));
  return out;
}

TEST(SpaceEnumerate, CartesianOrderLastParameterFastest) {
  const auto spec = make_spec(R"json({"A": [1, 2], "B": [10, 20, 30]})json", "[]", "[32]");
  const auto space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  EXPECT_EQ(space.cartesian_size(), 6u);
  EXPECT_EQ(space.removed_by_constraints(), 0u);
  EXPECT_EQ(space.removed_by_device(), 0u);
  EXPECT_EQ(formatted(spec, space),
            (std::vector<std::string>{"A=1,B=10", "A=1,B=20", "A=1,B=30", "A=2,B=10", "A=2,B=20", "A=2,B=30"}));
}

TEST(SpaceEnumerate, ConstraintsRemoveWholeSubtrees) {
  // 4 x 3 x 2 = 24 points. A % B == 0 keeps 7 (A, B) pairs: 5 pairs x 2 values of C = 10 removed.
  // C == 1 needs A > 2: of the 7 pairs, (1,1), (2,1), (2,2) lose C = 1: 3 more removed.
  const auto spec = make_spec(R"json({"A": [1, 2, 3, 4], "B": [1, 2, 3], "C": [0, 1]})json",
                              R"json(["A % B == 0", "C == 0 or A > 2"])json", R"json(["32 * A", "B"])json");
  const auto space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  EXPECT_EQ(space.cartesian_size(), 24u);
  EXPECT_EQ(space.size(), 11u);
  EXPECT_EQ(space.removed_by_constraints(), 13u);
  EXPECT_EQ(space.removed_by_device(), 0u);
  EXPECT_EQ(formatted(spec, space),
            (std::vector<std::string>{"A=1,B=1,C=0", "A=2,B=1,C=0", "A=2,B=2,C=0", "A=3,B=1,C=0", "A=3,B=1,C=1",
                                      "A=3,B=3,C=0", "A=3,B=3,C=1", "A=4,B=1,C=0", "A=4,B=1,C=1", "A=4,B=2,C=0",
                                      "A=4,B=2,C=1"}));
}

TEST(SpaceEnumerate, ConstraintWithoutParametersIsCheckedOnce) {
  const auto spec = make_spec(R"json({"A": [1, 2, 3], "B": [1, 2]})json", R"json(["1 > 2"])json", "[32]");
  const auto space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  EXPECT_EQ(space.size(), 0u);
  EXPECT_EQ(space.removed_by_constraints(), 6u);
}

TEST(SpaceEnumerate, PrunedPrefixesAreNeverEvaluated) {
  // 12 // A divides by zero for A = 0: the first constraint must cut A = 0 before the second sees it.
  const auto spec =
      make_spec(R"json({"A": [0, 3, 4, 5], "B": [1, 2, 3, 4]})json", R"json(["A != 0", "12 // A >= B"])json", "[32]");
  const auto space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  // A=3: B <= 4 -> 4 kept; A=4: B <= 3 -> 3; A=5: B <= 2 -> 2.
  EXPECT_EQ(space.size(), 9u);
  EXPECT_EQ(space.removed_by_constraints(), 4u + 0u + 1u + 2u);
}

TEST(SpaceEnumerate, DeviceLimitsOnThreadsAndSharedMemory) {
  // 5 x 3 = 15 points; (T=64, S=2) is removed by the constraint. T = 1024 exceeds 512 threads (3 points);
  // S * T * 64 bytes > 40000 removes (512, 2); (1024, 1) and (1024, 2) are already gone.
  const auto spec = make_spec(R"json({"T": [64, 128, 256, 512, 1024], "S": [0, 1, 2]})json",
                              R"json(["S <= 1 or T >= 128"])json", R"json(["T"])json", R"json("S * T * 64")json");
  DeviceLimits limits;
  limits.max_threads_per_block = 512;
  limits.max_shared_per_block_optin = 40000;
  const auto space = Space::enumerate(spec, std::nullopt, limits);
  EXPECT_EQ(space.cartesian_size(), 15u);
  EXPECT_EQ(space.removed_by_constraints(), 1u);
  EXPECT_EQ(space.removed_by_device(), 4u);
  EXPECT_EQ(space.size(), 10u);
  EXPECT_EQ(formatted(spec, space).back(), "T=512,S=1");
  // With the default limits only the constraint removes anything.
  EXPECT_EQ(Space::enumerate(spec, std::nullopt, DeviceLimits{}).size(), 14u);
}

TEST(SpaceEnumerate, BlockDimensionLimitsAndNonPositiveBlocks) {
  const auto spec = make_spec(R"json({"X": [0, 32, 64], "Z": [1, 64, 128]})json", "[]", R"json(["X", 1, "Z"])json");
  const auto space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  // X = 0 is not launchable (3 points); every Z > 1 gives at least 32 * 64 = 2048 threads (4 more).
  EXPECT_EQ(space.removed_by_device(), 7u);
  EXPECT_EQ(formatted(spec, space), (std::vector<std::string>{"X=32,Z=1", "X=64,Z=1"}));
}

TEST(SpaceEnumerate, GridIsCheckedOnlyWithAShape) {
  const auto spec =
      make_spec(R"json({"T": [32, 64, 128]})json", "[]", R"json(["T"])json", "0", R"json([1, "ceil_div(N, T)"])json");
  DeviceLimits limits;
  limits.max_grid = {2147483647, 100, 100};
  // ceil(5000 / 32) = 157 > 100; 79 and 40 fit.
  const auto with_shape = Space::enumerate(spec, Shape{{5000}}, limits);
  EXPECT_EQ(with_shape.removed_by_device(), 1u);
  EXPECT_EQ(formatted(spec, with_shape), (std::vector<std::string>{"T=64", "T=128"}));
  const auto without = Space::enumerate(spec, std::nullopt, limits);
  EXPECT_EQ(without.size(), 3u);
  EXPECT_EQ(without.removed_by_device(), 0u);
}

TEST(SpaceEnumerate, ShapeConstraintsApplyWithAShape) {
  const auto spec = make_spec(R"json({"T": [32, 64, 128]})json", R"json(["N % T == 0"])json", R"json(["T"])json");
  EXPECT_EQ(Space::enumerate(spec, Shape{{4096}}, DeviceLimits{}).size(), 3u);
  const auto small = Space::enumerate(spec, Shape{{96}}, DeviceLimits{});
  EXPECT_EQ(formatted(spec, small), (std::vector<std::string>{"T=32"}));
  EXPECT_EQ(small.removed_by_constraints(), 2u);
  // Without a shape the constraint on the shape is left out: every configuration valid at some shape.
  EXPECT_EQ(Space::enumerate(spec, std::nullopt, DeviceLimits{}).size(), 3u);
  const auto block_spec = make_spec(R"json({"T": [32]})json", "[]", R"json(["min(N, T)"])json");
  EXPECT_THROW(Space::enumerate(block_spec, std::nullopt, DeviceLimits{}), InputError);
  const auto shared_spec = make_spec(R"json({"T": [32]})json", "[]", R"json(["T"])json", R"json("N * 4")json");
  EXPECT_THROW(Space::enumerate(shared_spec, std::nullopt, DeviceLimits{}), InputError);
  EXPECT_THROW(Space::enumerate(spec, Shape{{1, 2}}, DeviceLimits{}), InputError);
}

TEST(SpaceEnumerate, LargeSpaceMatchesBruteForce) {
  // 10^6 cartesian points; the counts are checked against plain nested loops.
  std::string parameters = "{";
  for (const char* name : {"A", "B", "C", "D", "E", "F"}) {
    parameters += std::string(parameters.size() > 1 ? ", " : "") + "\"" + name + "\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
  }
  parameters += "}";
  const auto spec =
      make_spec(parameters, R"json(["A * B <= 40", "C + D + E < 20", "F % 2 == 0 or A < 5", "E != D"])json",
                R"json(["32 * A", "B"])json", R"json("A * B * C * 256")json");
  DeviceLimits limits;
  limits.max_threads_per_block = 512;
  limits.max_shared_per_block_optin = 100 * 1024;
  const auto space = Space::enumerate(spec, std::nullopt, limits);

  std::uint64_t kept = 0, by_constraints = 0, by_device = 0;
  for (int a = 1; a <= 10; ++a)
    for (int b = 1; b <= 10; ++b)
      for (int c = 1; c <= 10; ++c)
        for (int d = 1; d <= 10; ++d)
          for (int e = 1; e <= 10; ++e)
            for (int f = 1; f <= 10; ++f) {
              if (!(a * b <= 40 && c + d + e < 20 && (f % 2 == 0 || a < 5) && e != d)) {
                ++by_constraints;
              } else if (32 * a * b > 512 || a * b * c * 256 > 100 * 1024) {
                ++by_device;
              } else {
                ++kept;
              }
            }
  EXPECT_EQ(space.cartesian_size(), 1000000u);
  EXPECT_EQ(space.size(), kept);
  EXPECT_EQ(space.removed_by_constraints(), by_constraints);
  EXPECT_EQ(space.removed_by_device(), by_device);
  EXPECT_GT(kept, 0u);
}

TEST(SpaceLaunch, CheckLaunchReasons) {
  DeviceLimits limits;
  limits.max_threads_per_block = 512;
  Launch ok;
  ok.block = {256, 2, 1};
  ok.grid = {100, 1, 1};
  ok.shared_memory = 1024;
  EXPECT_EQ(check_launch(ok, limits, true), std::nullopt);

  Launch l = ok;
  l.block = {1024, 1, 1};
  EXPECT_EQ(check_launch(l, limits, false), "1024 threads per block > 512");
  l.block = {0, 1, 1};
  EXPECT_EQ(check_launch(l, limits, false), "block.x = 0 is not positive");
  l.block = {1, 1, 65};
  EXPECT_EQ(check_launch(l, limits, false), "block.z = 65 > 64");
  l = ok;
  l.shared_memory = 227 * 1024 + 1;
  EXPECT_EQ(check_launch(l, limits, false), "232449 bytes of dynamic shared memory > 232448");
  l.shared_memory = 227 * 1024;
  EXPECT_EQ(check_launch(l, limits, false), std::nullopt);  // the opt-in maximum is allowed
  l.shared_memory = -1;
  EXPECT_EQ(check_launch(l, limits, false), "dynamic shared memory of -1 bytes is negative");
  l = ok;
  l.grid = {1, 65536, 1};
  EXPECT_EQ(check_launch(l, limits, true), "grid.y = 65536 > 65535");
  EXPECT_EQ(check_launch(l, limits, false), std::nullopt);
  l.grid = {1, 1, 0};
  EXPECT_EQ(check_launch(l, limits, true), "grid.z = 0 is not positive");
}

}  // namespace
