// Tests of replaying strategies on recorded spaces and of the exact statistics of random sampling.
#include "cutune/replay.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "cutune/error.hpp"

namespace {

using cutune::Config;
using cutune::InputError;
using cutune::RecordedSpace;
using cutune::ReplayOptions;
using cutune::Space;
using cutune::Value;

// One parameter X = 0..n-1 whose time is times[X].
RecordedSpace one_dimensional(const std::vector<std::optional<double>>& times) {
  std::vector<Value> values;
  std::vector<Config> configs;
  for (std::size_t i = 0; i < times.size(); ++i) {
    values.emplace_back(static_cast<std::int64_t>(i));
    configs.push_back(Config{{values.back()}});
  }
  return {Space::from_configs({values}, configs), times};
}

TEST(ReplayRandom, ExpectedEvaluationsWithoutReplacement) {
  // 10 configurations, 2 within 5% of the optimum (1.0 and 1.04), 1 within 1%: (n + 1) / (k + 1).
  const auto r = one_dimensional({3.0, 1.04, 2.0, std::nullopt, 1.0, 5.0, 1.2, 7.0, std::nullopt, 1.5});
  EXPECT_DOUBLE_EQ(r.optimum_ms(), 1.0);
  EXPECT_EQ(r.failed(), 2u);
  EXPECT_DOUBLE_EQ(cutune::random_expected_evals(r, 0.05), 11.0 / 3.0);
  EXPECT_DOUBLE_EQ(cutune::random_expected_evals(r, 0.01), 11.0 / 2.0);
}

TEST(ReplayRandom, MedianBestMatchesEnumerationOfAllSamples) {
  const std::vector<std::optional<double>> times = {3.0, 1.04, 2.0, std::nullopt, 1.0, 5.0, 1.2, std::nullopt};
  const auto r = one_dimensional(times);
  const std::size_t n = times.size();
  for (std::size_t budget = 1; budget <= n; ++budget) {
    // Every subset of `budget` configurations is equally likely: enumerate them through bit masks.
    std::vector<double> bests;
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
      if (static_cast<std::size_t>(__builtin_popcount(mask)) != budget) continue;
      double best = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i)
        if ((mask >> i & 1u) && times[i]) best = std::min(best, *times[i]);
      bests.push_back(best);
    }
    std::sort(bests.begin(), bests.end());
    // The lower median: the smallest value at or below which at least half of the samples lie.
    const double median = bests[(bests.size() + 1) / 2 - 1];
    const auto got = cutune::random_median_relative_best(r, budget);
    if (std::isinf(median)) {
      EXPECT_FALSE(got) << "budget " << budget;
    } else {
      ASSERT_TRUE(got) << "budget " << budget;
      EXPECT_DOUBLE_EQ(*got, median) << "budget " << budget;
    }
  }
}

TEST(Replay, ExhaustiveIsExactAndCapsAtBudgetPlusOne) {
  // The optimum is the 7th configuration in order, a within-5% one the 3rd.
  const auto r = one_dimensional({4.0, 2.0, 1.03, std::nullopt, 3.0, 1.5, 1.0, 2.5});
  ReplayOptions options;
  options.budgets = {2, 5, 8};
  options.seeds = 5;
  const auto result = cutune::replay("exhaustive", r, options);
  EXPECT_EQ(result.strategy, "exhaustive");
  EXPECT_EQ(result.space_size, 8u);
  EXPECT_EQ(result.failed, 1u);
  EXPECT_DOUBLE_EQ(result.optimum_ms, 1.0);
  ASSERT_EQ(result.budgets.size(), 3u);
  EXPECT_DOUBLE_EQ(*result.budgets[0].median_relative_best, 2.0);
  EXPECT_DOUBLE_EQ(*result.budgets[1].median_relative_best, 1.03);
  EXPECT_DOUBLE_EQ(*result.budgets[2].median_relative_best, 1.0);
  EXPECT_DOUBLE_EQ(result.median_evals_to_5pct, 3.0);
  EXPECT_DOUBLE_EQ(result.median_evals_to_1pct, 7.0);

  options.budgets = {4};
  const auto short_run = cutune::replay("exhaustive", r, options);
  EXPECT_DOUBLE_EQ(short_run.median_evals_to_1pct, 5.0);  // not reached within 4: budget + 1
  EXPECT_DOUBLE_EQ(short_run.median_evals_to_5pct, 3.0);
}

TEST(Replay, FailuresFirstGiveNoBest) {
  const auto r = one_dimensional({std::nullopt, std::nullopt, std::nullopt, 2.0, 1.0});
  ReplayOptions options;
  options.budgets = {2, 5};
  options.seeds = 3;
  const auto result = cutune::replay("exhaustive", r, options);
  EXPECT_FALSE(result.budgets[0].median_relative_best);  // only failures after 2 evaluations
  EXPECT_DOUBLE_EQ(*result.budgets[1].median_relative_best, 1.0);
}

TEST(Replay, DeterministicAcrossThreadCounts) {
  std::vector<std::optional<double>> times;
  for (int i = 0; i < 300; ++i) times.push_back(i % 17 == 5 ? std::nullopt : std::optional<double>(1.0 + (i * 37 % 300) / 10.0));
  const auto r = one_dimensional(times);
  for (const auto& name : {"random", "genetic", "bayes"}) {
    ReplayOptions options;
    options.budgets = {10, 40};
    options.seeds = 8;
    options.threads = 1;
    const auto a = cutune::replay(name, r, options);
    options.threads = 3;
    const auto b = cutune::replay(name, r, options);
    EXPECT_EQ(a.median_evals_to_5pct, b.median_evals_to_5pct) << name;
    EXPECT_EQ(a.median_evals_to_1pct, b.median_evals_to_1pct) << name;
    EXPECT_EQ(a.budgets[0].median_relative_best, b.budgets[0].median_relative_best) << name;
    EXPECT_LE(a.median_evals_to_1pct, 41.0) << name;
  }
}

// A stop request (Ctrl-C, SIGTERM) ends the replay before the next seed, with Interrupted; seeds already run count.
TEST(Replay, AStopRequestEndsItBeforeTheNextSeed) {
  std::vector<std::optional<double>> times;
  for (int i = 0; i < 100; ++i) times.push_back(1.0 + i);
  const auto r = one_dimensional(times);
  ReplayOptions options;
  options.budgets = {10, 40};
  options.seeds = 50;
  options.threads = 1;
  std::atomic<int> asked{0};
  options.stop = [&asked] { return ++asked > 3; };
  EXPECT_THROW(cutune::replay("random", r, options), cutune::Interrupted);
  EXPECT_EQ(asked.load(), 4);  // three seeds ran, the fourth was not started
  options.stop = [] { return false; };
  EXPECT_NO_THROW(cutune::replay("random", r, options));
}

TEST(Replay, RejectsBadInput) {
  const auto r = one_dimensional({1.0, 2.0});
  ReplayOptions options;
  options.budgets = {5, 3};
  EXPECT_THROW(cutune::replay("random", r, options), InputError);
  options.budgets = {};
  EXPECT_THROW(cutune::replay("random", r, options), InputError);
  options.budgets = {3};
  EXPECT_THROW(cutune::replay("nope", r, options), InputError);
  EXPECT_THROW(cutune::replay("random", one_dimensional({std::nullopt, std::nullopt}), options), InputError);
}

TEST(Replay, DoublingBudgets) {
  EXPECT_EQ(cutune::doubling_budgets(800), (std::vector<std::size_t>{25, 50, 100, 200, 400, 800}));
  EXPECT_EQ(cutune::doubling_budgets(300), (std::vector<std::size_t>{25, 50, 100, 200, 300}));
  EXPECT_EQ(cutune::doubling_budgets(10), (std::vector<std::size_t>{10}));
}

}  // namespace
