// The default strategy's first guess (the configuration nearest every parameter's highest value) and the refinement
// steps that alternate with its initial design: where the fast configurations lie near the top of the ranges, as in
// most GPU kernels' spaces, it gets there in a few evaluations instead of after the design.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "cutune/replay.hpp"
#include "cutune/strategy.hpp"
#include "hashed_noise.hpp"
#include "search/first_guess.hpp"

namespace cutune {
namespace {

// A deterministic factor in [0.97, 1.03) per configuration: the spread of real measurements.
double noise(std::uint64_t k) { return test::hashed_noise(k, 0.97, 0.06); }

// Six parameters of values 0-3 whose sum is at most 17 (the six highest together are not valid, as a tile and a
// vector width too large for the registers): 4,095 configurations. Times grow with each parameter's distance from
// the optimum (2, 3, 3, 3, 3, 2): at the top of most ranges, one below it on the first and the last. The first guess
// (2, 3, 3, 3, 3, 3) is 9% slower; a handful of configurations are within 5% of the optimum.
RecordedSpace high_space() {
  const int optimum[6] = {2, 3, 3, 3, 3, 2};
  const double weight[6] = {0.08, 0.07, 0.06, 0.05, 0.04, 0.09};
  std::vector<std::vector<Value>> values(6);
  for (auto& v : values) v = {0, 1, 2, 3};
  std::vector<Config> configs;
  RecordedSpace recorded;
  for (int code = 0; code < 4096; ++code) {
    int at[6], sum = 0;
    for (int p = 0; p < 6; ++p) sum += at[p] = (code >> (2 * p)) & 3;
    if (sum > 17) continue;
    double t = 1.0;
    for (int p = 0; p < 6; ++p) t += weight[p] * std::abs(at[p] - optimum[p]);
    configs.push_back(Config{{at[0], at[1], at[2], at[3], at[4], at[5]}});
    recorded.times_ms.push_back(t * noise(configs.size()));
  }
  recorded.space = Space::from_configs(values, configs);
  return recorded;
}

// How many parameters of configurations a and b differ, and by how many levels in all.
std::pair<int, int> moves(const Space& space, std::size_t a, std::size_t b) {
  int changed = 0, levels = 0;
  for (std::size_t p = 0; p < space.configs()[a].values.size(); ++p) {
    const auto d = std::abs(space.configs()[a].values[p].as_double() - space.configs()[b].values[p].as_double());
    changed += d > 0;
    levels += static_cast<int>(d);
  }
  return {changed, levels};
}

TEST(FirstGuess, TheValidConfigurationNearestEveryHighestValue) {
  const RecordedSpace recorded = high_space();
  const detail::SpaceIndex index(recorded.space);
  const std::uint32_t corner = detail::highest_corner(index, {});
  // Sum 17 is the most the constraint allows: one parameter one below its highest; the lowest index of those six.
  int sum = 0;
  for (const auto& v : recorded.space.configs()[corner].values) sum += static_cast<int>(v.as_double());
  EXPECT_EQ(sum, 17);
  for (std::uint32_t c = 0; c < corner; ++c) {
    int other = 0;
    for (const auto& v : recorded.space.configs()[c].values) other += static_cast<int>(v.as_double());
    EXPECT_LT(other, 17) << "a tie went to a higher index";
  }
  // Among given configurations only.
  const std::vector<std::uint32_t> among = {0, 7, 100, 42};
  std::uint32_t best = 0;
  for (std::uint32_t c : among)
    if (moves(recorded.space, c, corner).second < moves(recorded.space, best, corner).second) best = c;
  EXPECT_EQ(detail::highest_corner(index, among), best);
}

TEST(FirstGuess, TheDefaultStartsThereAndClimbsFromTheBestEveryOtherDesignPoint) {
  const RecordedSpace recorded = high_space();
  const detail::SpaceIndex index(recorded.space);
  const std::size_t corner = detail::highest_corner(index, {});
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    auto strategy = make_strategy("portfolio", recorded.space, seed);
    std::vector<std::size_t> order;
    for (int k = 0; k < 8; ++k) {
      const auto asked = strategy->ask(1);
      ASSERT_EQ(asked.size(), 1u);
      order.push_back(asked[0]);
      strategy->tell(asked[0], recorded.times_ms[asked[0]]);
    }
    EXPECT_EQ(order[0], corner) << "seed " << seed;
    // The third, fifth and seventh: a one- or two-parameter step from the best told before them. With two outcomes
    // the model cannot tell the corner's neighbours apart but on one parameter: the step moves a value by one level.
    EXPECT_EQ(moves(recorded.space, order[2], order[0]), std::make_pair(1, 1)) << "seed " << seed;
    for (std::size_t k : {4u, 6u}) {
      std::size_t best = order[0];
      for (std::size_t j = 0; j < k; ++j)
        if (*recorded.times_ms[order[j]] < *recorded.times_ms[best]) best = order[j];
      EXPECT_LE(moves(recorded.space, order[k], best).first, 2) << "seed " << seed << ", evaluation " << k + 1;
    }
  }
}

TEST(FirstGuess, TheDefaultIsWithinFivePercentInAFewEvaluations) {
  // Random sampling needs about 2,000 evaluations on average; before the first guess the default needed a median of 25
  // over these seeds (the space written as a Kernel Tuner cache and replayed).
  const RecordedSpace recorded = high_space();
  ReplayOptions options;
  options.budgets = {100};
  options.seeds = 25;
  const ReplayResult result = replay("portfolio", recorded, options);
  EXPECT_GT(result.random_evals_to_5pct, 1000.0);
  EXPECT_LE(result.median_evals_to_5pct, 12.0);
}

}  // namespace
}  // namespace cutune
