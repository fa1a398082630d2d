// Tests of the search strategies on small synthetic spaces with constraints, failures and a known optimum.
#include "cutune/strategy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cutune/error.hpp"
#include "cutune/space.hpp"

namespace {

using cutune::Config;
using cutune::InputError;
using cutune::Space;
using cutune::Strategy;
using cutune::Value;

// A sparse space: A in {1, 2, 4, 8, 16}, B in {1..6}, C in {0, 1}, keeping only A * B <= 32 (48 of 60 points).
struct Synthetic {
  Space space;
  std::vector<std::optional<double>> times;
  std::size_t optimum = 0;
};

Synthetic make_synthetic() {
  const std::vector<std::vector<Value>> values = {{1, 2, 4, 8, 16}, {1, 2, 3, 4, 5, 6}, {0, 1}};
  std::vector<Config> configs;
  for (const Value& a : values[0])
    for (const Value& b : values[1])
      for (const Value& c : values[2])
        if (a.as_int() * b.as_int() <= 32) configs.push_back(Config{{a, b, c}});
  Synthetic s;
  s.space = Space::from_configs(values, configs);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const auto a = configs[i].values[0].as_int(), b = configs[i].values[1].as_int(), c = configs[i].values[2].as_int();
    // Failures at the large corner; a smooth bowl elsewhere whose minimum (A=4, B=3, C=1) is unique.
    if (a == 16 && c == 1) {
      s.times.push_back(std::nullopt);
      continue;
    }
    const double t = 1.0 + std::pow(std::log2(static_cast<double>(a)) - 2.0, 2) + 0.5 * std::pow(b - 3.0, 2) + (c ? 0.0 : 0.25);
    s.times.push_back(t);
    if (t < best) best = t, s.optimum = i;
  }
  return s;
}

// Asks `batch` at a time and tells every outcome, until the strategy proposes nothing; returns the order asked.
std::vector<std::size_t> run_to_end(Strategy& strategy, const Synthetic& s, std::size_t batch) {
  std::vector<std::size_t> order;
  while (true) {
    const auto asked = strategy.ask(batch);
    EXPECT_LE(asked.size(), batch);
    if (asked.empty()) break;
    for (std::size_t i : asked) {
      EXPECT_LT(i, s.space.size());
      order.push_back(i);
    }
    for (std::size_t i : asked) strategy.tell(i, s.times[i]);
    if (order.size() > 10 * s.space.size()) break;  // a strategy that repeats forever must not hang the test
  }
  return order;
}

class StrategyEach : public ::testing::TestWithParam<std::string> {};

TEST_P(StrategyEach, ProposesEveryConfigurationExactlyOnce) {
  const Synthetic s = make_synthetic();
  ASSERT_EQ(s.space.size(), 48u);
  for (std::size_t batch : {1u, 3u, 8u}) {
    auto strategy = cutune::make_strategy(GetParam(), s.space, 7);
    const auto order = run_to_end(*strategy, s, batch);
    EXPECT_EQ(order.size(), s.space.size()) << "batch " << batch;
    EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), s.space.size()) << "repeated a configuration";
  }
}

TEST_P(StrategyEach, FindsTheOptimumWithinTheSpaceSize) {
  const Synthetic s = make_synthetic();
  auto strategy = cutune::make_strategy(GetParam(), s.space, 3);
  const auto order = run_to_end(*strategy, s, 1);
  EXPECT_NE(std::find(order.begin(), order.end(), s.optimum), order.end());
}

TEST_P(StrategyEach, SameSeedSameProposals) {
  const Synthetic s = make_synthetic();
  auto a = cutune::make_strategy(GetParam(), s.space, 42);
  auto b = cutune::make_strategy(GetParam(), s.space, 42);
  EXPECT_EQ(run_to_end(*a, s, 2), run_to_end(*b, s, 2));
  if (GetParam() != "exhaustive") {
    auto c = cutune::make_strategy(GetParam(), s.space, 43);
    auto d = cutune::make_strategy(GetParam(), s.space, 42);
    EXPECT_NE(run_to_end(*c, s, 1), run_to_end(*d, s, 1)) << "the seed changes nothing";
  }
}

TEST_P(StrategyEach, AskZeroAndEmptySpace) {
  const Synthetic s = make_synthetic();
  auto strategy = cutune::make_strategy(GetParam(), s.space, 1);
  EXPECT_TRUE(strategy->ask(0).empty());
  const Space empty = Space::from_configs({{1, 2}}, {});
  auto none = cutune::make_strategy(GetParam(), empty, 1);
  EXPECT_TRUE(none->ask(4).empty());
}

TEST_P(StrategyEach, EveryConfigurationFailing) {
  Synthetic s = make_synthetic();
  std::fill(s.times.begin(), s.times.end(), std::nullopt);
  auto strategy = cutune::make_strategy(GetParam(), s.space, 5);
  EXPECT_EQ(run_to_end(*strategy, s, 4).size(), s.space.size());
}

INSTANTIATE_TEST_SUITE_P(Strategy, StrategyEach, ::testing::ValuesIn(cutune::strategy_names()),
                         [](const auto& info) { return info.param; });

TEST(StrategyRegistry, NamesAndDefault) {
  const auto names = cutune::strategy_names();
  for (const char* expected : {"exhaustive", "random", "annealing", "genetic", "local_search", "bayes", "portfolio"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  EXPECT_NE(std::find(names.begin(), names.end(), std::string(cutune::kDefaultStrategy)), names.end());
  const Synthetic s = make_synthetic();
  try {
    cutune::make_strategy("simplex", s.space, 1);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown strategy 'simplex'"), std::string::npos) << e.what();
  }
}

TEST(StrategyTell, RejectsIndicesNeverAskedOrToldTwice) {
  const Synthetic s = make_synthetic();
  auto strategy = cutune::make_strategy("random", s.space, 1);
  const auto asked = strategy->ask(1);
  ASSERT_EQ(asked.size(), 1u);
  const std::size_t other = asked[0] == 0 ? 1 : 0;
  EXPECT_THROW(strategy->tell(other, 1.0), InputError);
  EXPECT_THROW(strategy->tell(s.space.size(), 1.0), InputError);
  strategy->tell(asked[0], 1.0);
  EXPECT_THROW(strategy->tell(asked[0], 1.0), InputError);
}

// Local strategies move between neighbours; on a space of one long chain (only one parameter varies at a time)
// they must still walk through the valid configurations and not stall on the invalid gaps of the grid.
TEST(StrategySparse, ChainThroughInvalidGaps) {
  std::vector<Value> levels;
  for (int v = 0; v < 40; ++v) levels.push_back(v);
  std::vector<Config> configs;
  std::vector<std::optional<double>> times;
  for (int x = 0; x < 40; ++x) {
    for (int y = 0; y < 40; ++y) {
      if (y != x && y != x + 1) continue;  // 79 valid points of 1600: a staircase
      configs.push_back(Config{{x, y}});
      times.push_back(1.0 + std::abs(x - 31) + std::abs(y - 31));
    }
  }
  const Space space = Space::from_configs({levels, levels}, configs);
  const auto optimum = static_cast<std::size_t>(std::min_element(times.begin(), times.end()) - times.begin());
  for (const auto& name : cutune::strategy_names()) {
    auto strategy = cutune::make_strategy(name, space, 11);
    std::size_t evals = 0;
    bool found = false;
    while (!found) {
      const auto asked = strategy->ask(1);
      ASSERT_EQ(asked.size(), 1u) << name << " stopped before the optimum";
      strategy->tell(asked[0], times[asked[0]]);
      ++evals;
      found = asked[0] == optimum;
    }
    EXPECT_LE(evals, space.size()) << name;
  }
}

TEST(SpaceFromConfigs, CountsAndErrors) {
  const Space space = Space::from_configs({{1, 2, 3}, {10, 20}}, {Config{{1, 10}}, Config{{3, 20}}});
  EXPECT_EQ(space.size(), 2u);
  EXPECT_EQ(space.cartesian_size(), 6u);
  EXPECT_EQ(space.removed_by_constraints(), 4u);
  EXPECT_EQ(space.removed_by_device(), 0u);
  EXPECT_THROW(Space::from_configs({{1, 2}}, {Config{{1}}, Config{{1}}}), InputError);        // duplicate
  EXPECT_THROW(Space::from_configs({{1, 2}}, {Config{{3}}}), InputError);                     // value not listed
  EXPECT_THROW(Space::from_configs({{1, 2}, {1}}, {Config{{1}}}), InputError);                // arity
}

}  // namespace
