// What the launch geometry says of each configuration before compiling (launch_inputs()), and how the default
// strategy uses it: its initial design is drawn from the configurations the inputs favour.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "cutune/error.hpp"
#include "cutune/launch_inputs.hpp"
#include "cutune/replay.hpp"
#include "cutune/strategy.hpp"
#include "cutune/templates.hpp"
#include "search/design_inputs.hpp"

namespace cutune {
namespace {

std::int64_t value_of(const KernelSpec& spec, const Config& c, const std::string& name) {
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    if (spec.parameters[p].name == name) return c.values[p].as_int();
  ADD_FAILURE() << "no parameter " << name;
  return -1;
}

std::size_t input(const SearchInputs& inputs, const std::string& name) {
  for (std::size_t k = 0; k < inputs.names.size(); ++k)
    if (inputs.names[k] == name) return k;
  ADD_FAILURE() << "no input " << name;
  return 0;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

TEST(LaunchInputs, GemmTilesWavesAndTheLastWavesFill) {
  KernelSpec spec = load_kernel("gemm_bf16");
  spec.restrict_to("PATH == 1 and STREAMK == 0 and SPLITK == 1");
  const Shape shape = spec.parse_shape("8192x8192x256");
  const DeviceLimits limits;  // 132 SMs
  const Space space = Space::enumerate(spec, shape, limits);
  ASSERT_GT(space.size(), 100u);
  const SearchInputs inputs = launch_inputs(spec, space.configs(), shape, limits);
  ASSERT_EQ(inputs.values.size(), inputs.names.size() * space.size());
  const std::size_t blocks = input(inputs, "blocks"), units = input(inputs, "units"), waves = input(inputs, "waves"),
                    resident = input(inputs, "resident"), slot_use = input(inputs, "slot_use"),
                    work = input(inputs, "work_per_unit");
  std::set<std::int64_t> persistent_seen;
  for (std::size_t c = 0; c < space.size(); ++c) {
    const Config& config = space.configs()[c];
    const std::int64_t cm = value_of(spec, config, "CM"), cn = value_of(spec, config, "CN");  // clusters round up
    const std::int64_t tiles = ceil_div(ceil_div(8192, value_of(spec, config, "BM")), cm) * cm *
                               ceil_div(ceil_div(8192, value_of(spec, config, "BN")), cn) * cn;
    const std::int64_t persist = value_of(spec, config, "PERSIST");
    ASSERT_EQ(inputs.at(c, units), static_cast<double>(tiles)) << spec.format(config);
    if (persist == 0) {
      ASSERT_EQ(inputs.at(c, blocks), static_cast<double>(tiles)) << spec.format(config);
    } else {
      ASSERT_LE(inputs.at(c, blocks), 132.0 * persist) << spec.format(config);  // a persistent grid: at most one wave
      persistent_seen.insert(persist);
    }
    ASSERT_DOUBLE_EQ(inputs.at(c, waves), inputs.at(c, units) / (132.0 * inputs.at(c, resident)));
    const double fill = inputs.at(c, waves) / std::ceil(inputs.at(c, waves));
    ASSERT_DOUBLE_EQ(inputs.at(c, slot_use), fill);
    ASSERT_GT(fill, 0.0);
    ASSERT_LE(fill, 1.0);
    ASSERT_DOUBLE_EQ(inputs.at(c, work), 2.0 * 8192 * 8192 * 256 / static_cast<double>(tiles));
  }
  EXPECT_FALSE(persistent_seen.empty());
}

TEST(LaunchInputs, ResidentBlocksFollowSharedMemoryAndThreads) {
  Launch launch;
  launch.block = {128, 1, 1};
  launch.shared_memory = 100 * 1024;
  const DeviceLimits limits;  // 227 KiB a block with opt-in: 228 KiB an SM
  EXPECT_EQ(resident_blocks_estimate(launch, limits), 2);
  launch.shared_memory = 0;
  EXPECT_EQ(resident_blocks_estimate(launch, limits), 16);  // 2048 threads an SM
  launch.block = {32, 1, 1};
  EXPECT_EQ(resident_blocks_estimate(launch, limits), 32);  // 32 blocks an SM
  launch.block = {1024, 1, 1};
  launch.shared_memory = 200 * 1024;
  EXPECT_EQ(resident_blocks_estimate(launch, limits), 1);
}

TEST(SearchInputs, TheLaunchFavoursFullWaves) {
  KernelSpec spec = load_kernel("gemm_bf16");
  spec.restrict_to("PATH == 1");
  const Shape shape = spec.parse_shape("1000x1000x1000");
  const Space space = Space::enumerate(spec, shape, DeviceLimits{});
  const SearchInputs inputs = launch_inputs(spec, space.configs(), shape, DeviceLimits{});
  ASSERT_EQ(inputs.favour_high, std::vector<std::size_t>{input(inputs, "slot_use")});
  ASSERT_EQ(inputs.favour_enough, std::vector<double>{0.9});
}

TEST(SearchInputs, FavouredAreAtOrAboveTheMedianOfEachFavouredInput) {
  const double nan = std::nan("");
  SearchInputs inputs{{"a", "b", "c"}, {}, {0, 2}};
  const std::vector<double> a = {5, 1, 5, 3, 4, 9}, c = {1, 1, 1, 1, nan, 0};
  for (std::size_t i = 0; i < a.size(); ++i) inputs.values.insert(inputs.values.end(), {a[i], 0.0, c[i]});
  // a's median is 5 (of 1 3 4 5 5 9), c's is 1: 0 and 2 qualify; 4 is unknown in c, 5 below c's median.
  EXPECT_EQ(detail::favoured_by(inputs, a.size()), (std::vector<std::uint32_t>{0, 2}));
  inputs.favour_enough = {4.0};  // a at 4 or more counts as favoured below a's median: 4 joins
  EXPECT_EQ(detail::favoured_by(inputs, a.size()), (std::vector<std::uint32_t>{0, 2}));  // (c: 4 unknown there)
  inputs.favour_high = {0};
  EXPECT_EQ(detail::favoured_by(inputs, a.size()), (std::vector<std::uint32_t>{0, 2, 4, 5}));
  inputs.favour_enough = {1.0};  // every value enough: it keeps every configuration, so it steers nothing
  EXPECT_TRUE(detail::favoured_by(inputs, a.size()).empty());
  inputs.favour_enough.clear();
  inputs.favour_high = {1};  // equal everywhere: it keeps every configuration, so it steers nothing
  EXPECT_TRUE(detail::favoured_by(inputs, a.size()).empty());
  inputs.favour_high.clear();
  EXPECT_TRUE(detail::favoured_by(inputs, a.size()).empty());
}

// 16 x 16 x 4 configurations; the time is lowest where x * y is nearest 60, and the input "fill" is highest there.
RecordedSpace product_space(SearchInputs& inputs) {
  std::vector<std::vector<Value>> values(3);
  for (int v = 1; v <= 16; ++v) values[0].push_back(v), values[1].push_back(v);
  for (int v = 0; v < 4; ++v) values[2].push_back(v);
  std::vector<Config> configs;
  RecordedSpace recorded;
  inputs = SearchInputs{{"fill"}, {}, {0}};
  for (int x = 1; x <= 16; ++x)
    for (int y = 1; y <= 16; ++y)
      for (int z = 0; z < 4; ++z) {
        configs.push_back(Config{{x, y, z}});
        recorded.times_ms.push_back(1.0 + std::abs(x * y - 60) / 60.0 + 0.01 * z);
        inputs.values.push_back(-std::abs(x * y - 60));
      }
  recorded.space = Space::from_configs(values, configs);
  return recorded;
}

TEST(SearchInputs, TheInitialDesignIsDrawnFromWhatTheInputsFavour) {
  SearchInputs inputs;
  const RecordedSpace recorded = product_space(inputs);
  const std::vector<std::uint32_t> favoured = detail::favoured_by(inputs, recorded.space.size());
  ASSERT_FALSE(favoured.empty());
  ASSERT_LT(favoured.size(), recorded.space.size() * 3 / 4);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto order = replay_order("portfolio", recorded, 8, 1, seed, {}, {}, inputs);
    ASSERT_EQ(order.size(), 8u);
    // The design points proper (the first and every other one after it; the others step around the best so far,
    // wherever its neighbours lie).
    for (std::size_t k = 0; k < order.size(); k += k == 0 ? 1 : 2) {
      EXPECT_TRUE(std::binary_search(favoured.begin(), favoured.end(), order[k])) << "seed " << seed << ": " << order[k];
    }
  }
  const auto without = replay_order("portfolio", recorded, 8, 1, 1);
  EXPECT_FALSE(std::all_of(without.begin(), without.end(),
                           [&](std::size_t c) { return std::binary_search(favoured.begin(), favoured.end(), c); }));
}

TEST(SearchInputs, EachConfigurationOnceAndTheSameProposalsPerSeed) {
  SearchInputs inputs;
  const RecordedSpace recorded = product_space(inputs);
  const auto first = replay_order("portfolio", recorded, recorded.space.size(), 1, 7, {}, {}, inputs);
  EXPECT_EQ(first.size(), recorded.space.size());
  EXPECT_EQ(std::set<std::size_t>(first.begin(), first.end()).size(), first.size());
  EXPECT_EQ(replay_order("portfolio", recorded, 50, 1, 7, {}, {}, inputs),
            std::vector<std::size_t>(first.begin(), first.begin() + 50));
}

TEST(SearchInputs, InputsOfAnotherSpaceAreRefused) {
  SearchInputs inputs;
  const RecordedSpace recorded = product_space(inputs);
  inputs.values.pop_back();
  try {
    make_strategy("portfolio", recorded.space, 1, Prior{}, inputs);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "search inputs hold 1023 values, not 1 for each of 1024 configurations");
  }
  inputs.values.push_back(0.0);
  inputs.favour_high = {1};
  EXPECT_THROW(make_strategy("portfolio", recorded.space, 1, Prior{}, inputs), InputError);
}

}  // namespace
}  // namespace cutune
