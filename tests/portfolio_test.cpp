// Tests of the default strategy (portfolio) on a space large enough for its model and both of its rules to act:
// determinism per seed, batches, a run resumed midway, start configurations, and a space where all but one fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "cutune/error.hpp"
#include "cutune/replay.hpp"
#include "cutune/strategy.hpp"

namespace cutune {
namespace {

// Four parameters (8 × 8 × 4 × 3 values) with a constraint (A + B <= 10: 54 × 12 = 648 of 768 points), a narrow
// valley whose floor is the unique optimum (A=5, B=3, C=2, D=1), and failures where A = 7 and B >= 2.
struct Sample {
  RecordedSpace recorded;
  std::size_t optimum = 0;
};

Sample make_sample() {
  std::vector<std::vector<Value>> values(4);
  for (int a = 0; a < 8; ++a) values[0].push_back(a), values[1].push_back(a);
  for (int c = 0; c < 4; ++c) values[2].push_back(c);
  for (int d = 0; d < 3; ++d) values[3].push_back(d);
  std::vector<Config> configs;
  Sample s;
  double best = INFINITY;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 3; ++d) {
          if (a + b > 10) continue;
          configs.push_back(Config{{a, b, c, d}});
          if (a == 7 && b >= 2) {
            s.recorded.times_ms.push_back(std::nullopt);
            continue;
          }
          const double t = 1.0 + 0.2 * std::abs(a - 5) + 0.3 * (b - 3) * (b - 3) + 0.1 * std::abs(c - 2) + 0.05 * (d != 1) +
                           0.02 * ((a + c) % 3);
          if (t < best) best = t, s.optimum = configs.size() - 1;
          s.recorded.times_ms.push_back(t);
        }
  s.recorded.space = Space::from_configs(values, configs);
  return s;
}

// Asks `batch` at a time and tells each outcome, for at most `budget` evaluations; the configurations, in order told.
std::vector<std::size_t> run(Strategy& strategy, const Sample& s, std::size_t batch, std::size_t budget) {
  std::vector<std::size_t> order;
  while (order.size() < budget) {
    const auto asked = strategy.ask(std::min(batch, budget - order.size()));
    if (asked.empty()) break;
    for (std::size_t i : asked) strategy.tell(i, s.recorded.times_ms[i]), order.push_back(i);
  }
  return order;
}

std::size_t position_of(const std::vector<std::size_t>& order, std::size_t config) {
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), config) - order.begin());
}

TEST(Portfolio, IsTheDefault) { EXPECT_EQ(kDefaultStrategy, "portfolio"); }

TEST(Portfolio, SameSeedSameProposalsOtherSeedOthers) {
  const Sample s = make_sample();
  ASSERT_EQ(s.recorded.space.size(), 648u);
  for (std::size_t batch : {1u, 3u}) {
    auto a = make_strategy("portfolio", s.recorded.space, 11), b = make_strategy("portfolio", s.recorded.space, 11);
    const auto first = run(*a, s, batch, 120);
    EXPECT_EQ(first, run(*b, s, batch, 120)) << "batch " << batch;
    auto c = make_strategy("portfolio", s.recorded.space, 12);
    EXPECT_NE(first, run(*c, s, batch, 120)) << "batch " << batch;
  }
  // replay_order() is the same run, and replay() gives the same medians on any number of threads.
  ReplayOptions options;
  options.budgets = {50, 100};
  options.seeds = 6;
  options.threads = 1;
  const ReplayResult one = replay("portfolio", s.recorded, options);
  options.threads = 3;
  const ReplayResult three = replay("portfolio", s.recorded, options);
  EXPECT_EQ(one.evals_to_5pct, three.evals_to_5pct);
  EXPECT_EQ(one.evals_to_1pct, three.evals_to_1pct);
}

TEST(Portfolio, FindsTheOptimumFarSoonerThanRandomSamplingInEveryBatchSize) {
  const Sample s = make_sample();
  // Random sampling needs (648 + 1) / 2 = 324.5 evaluations on average to draw the unique optimum.
  for (std::size_t batch : {1u, 2u, 4u, 8u}) {
    std::vector<std::size_t> found;
    for (std::uint64_t seed = 1; seed <= 9; ++seed) {
      auto strategy = make_strategy("portfolio", s.recorded.space, seed);
      found.push_back(position_of(run(*strategy, s, batch, 200), s.optimum) + 1);  // 201: not found
    }
    std::nth_element(found.begin(), found.begin() + 4, found.end());
    EXPECT_LE(found[4], 60u) << "median evaluations to the optimum with batch " << batch;
  }
}

TEST(Portfolio, BatchesCoverTheSpaceOnceAndMeetTheBudgetExactly) {
  const Sample s = make_sample();
  for (std::size_t batch : {2u, 4u, 7u}) {
    auto strategy = make_strategy("portfolio", s.recorded.space, 5);
    const auto order = run(*strategy, s, batch, 10000);
    EXPECT_EQ(order.size(), s.recorded.space.size()) << "batch " << batch;
    EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), order.size()) << "batch " << batch;
    EXPECT_EQ(replay_order("portfolio", s.recorded, 101, batch, 5).size(), 101u) << "batch " << batch;
  }
}

TEST(Portfolio, ManyAskedBeforeAnyOutcomeIsTold) {
  // A whole batch asked at once after the initial design, with nothing told: every proposal distinct and unasked.
  const Sample s = make_sample();
  auto strategy = make_strategy("portfolio", s.recorded.space, 3);
  const auto first = run(*strategy, s, 1, 30);
  std::set<std::size_t> seen(first.begin(), first.end());
  std::vector<std::size_t> pending;
  for (int k = 0; k < 4; ++k)
    for (std::size_t i : strategy->ask(8)) pending.push_back(i);
  EXPECT_EQ(pending.size(), 32u);
  for (std::size_t i : pending) EXPECT_TRUE(seen.insert(i).second) << i << " proposed twice";
  for (std::size_t i : pending) strategy->tell(i, s.recorded.times_ms[i]);
  EXPECT_FALSE(strategy->ask(1).empty());
}

TEST(Portfolio, ResumedMidwayNeverRepeatsAndStillFindsTheOptimum) {
  const Sample s = make_sample();
  auto first = make_strategy("portfolio", s.recorded.space, 21);
  const auto before = run(*first, s, 2, 40);  // the run that was interrupted
  std::vector<std::size_t> afters[2];
  for (auto& after : afters) {
    // The resumed run hears every stored outcome first, as `tune` does, then goes on with the same seed.
    auto resumed = make_strategy("portfolio", s.recorded.space, 21);
    for (std::size_t i : before) resumed->observe(i, s.recorded.times_ms[i]);
    after = run(*resumed, s, 2, s.recorded.space.size());
    EXPECT_EQ(after.size(), s.recorded.space.size() - before.size());
    for (std::size_t i : after) EXPECT_EQ(std::count(before.begin(), before.end(), i), 0) << i << " measured again";
    const bool known = std::count(before.begin(), before.end(), s.optimum) > 0;
    if (!known) EXPECT_LT(position_of(after, s.optimum), 150u);
  }
  EXPECT_EQ(afters[0], afters[1]) << "a resumed run depends on its seed and what it observed only";
}

TEST(Portfolio, StartConfigurationsFirstAndLearntFrom) {
  const Sample s = make_sample();
  const std::vector<std::size_t> start = {s.optimum, 17, s.optimum, 400};
  auto strategy = start_first(make_strategy("portfolio", s.recorded.space, 4), start);
  const auto order = run(*strategy, s, 4, s.recorded.space.size());
  ASSERT_GE(order.size(), 3u);
  EXPECT_EQ(std::vector<std::size_t>(order.begin(), order.begin() + 3), (std::vector<std::size_t>{s.optimum, 17, 400}));
  EXPECT_EQ(order.size(), s.recorded.space.size());
  EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), order.size());
}

TEST(Portfolio, EveryConfigurationButOneFails) {
  Sample s = make_sample();
  const std::size_t only = 300;
  for (std::size_t i = 0; i < s.recorded.times_ms.size(); ++i)
    if (i != only) s.recorded.times_ms[i] = std::nullopt;
  ASSERT_TRUE(s.recorded.times_ms[only]);
  for (std::size_t batch : {1u, 4u}) {
    auto strategy = make_strategy("portfolio", s.recorded.space, 8);
    const auto order = run(*strategy, s, batch, 10000);
    EXPECT_EQ(order.size(), s.recorded.space.size()) << "stops proposing while configurations are left";
    EXPECT_LT(position_of(order, only), order.size());
    EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), order.size());
  }
  // Found first thing: the model and its rules then run with one success among failures.
  auto strategy = start_first(make_strategy("portfolio", s.recorded.space, 8), {only});
  EXPECT_EQ(run(*strategy, s, 3, 10000).size(), s.recorded.space.size());
}

TEST(Portfolio, ReplayWithAnotherGpusWinnerFirst) {
  // replay()'s start configurations (tune replay --start-from): the optimum asked first is told at evaluation 1, or
  // within the first batch, whose outcomes arrive in a seeded random order.
  const Sample s = make_sample();
  ReplayOptions options;
  options.budgets = {20};
  options.seeds = 3;
  options.start = {s.optimum, 5};
  for (std::size_t batch : {1u, 4u}) {
    options.batch = batch;
    const ReplayResult r = replay("portfolio", s.recorded, options);
    ASSERT_EQ(r.evals_to_1pct.size(), 3u);
    for (double evals : r.evals_to_1pct) EXPECT_LE(evals, static_cast<double>(batch)) << "batch " << batch;
  }
  options.start = {s.recorded.space.size()};
  EXPECT_THROW(replay("portfolio", s.recorded, options), InputError);
}

}  // namespace
}  // namespace cutune
