// Tests of the prior from other GPUs in the search: their winners as first proposals, their times as features of the
// default strategy's model and the source of its initial design, in replay and on the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <vector>

#include "cli_support.hpp"
#include "cutune/error.hpp"
#include "cutune/prior.hpp"
#include "cutune/replay.hpp"
#include "cutune/strategy.hpp"
#include "search/prior_features.hpp"
#include "search/search_state.hpp"
#include "valley_sample.hpp"

namespace cutune::test {
namespace {

// Another GPU that ranks the valley's configurations as this one does (its times 1.3 times these; same failures).
Prior agreeing_prior(const Sample& s) {
  SiblingTimes other{"Other GPU", {}};
  for (std::size_t i = 0; i < s.recorded.times_ms.size(); ++i) {
    const auto& t = s.recorded.times_ms[i];
    other.times.emplace_back(i, t ? std::optional<double>(*t * 1.3) : std::nullopt);
  }
  return Prior{{other}};
}

TEST(PriorFirst, EachGpusFastestInTurnWithoutRepeatsOrFailures) {
  const Prior prior{{{"A", {{5, 2.0}, {3, 1.0}, {7, std::nullopt}, {9, 1.5}}},
                     {"B", {{3, 0.4}, {8, 0.5}, {1, 0.9}}},
                     {"C", {{6, 1.0}, {2, 1.0}}}}};
  EXPECT_EQ(prior_first(prior, 1), (std::vector<std::size_t>{3, 2}));  // B's 3 is A's; C's tie goes to the lower index
  EXPECT_EQ(prior_first(prior, 2), (std::vector<std::size_t>{3, 2, 9, 8, 6}));
  EXPECT_EQ(prior_first(prior, 3), (std::vector<std::size_t>{3, 2, 9, 8, 6, 5, 1}));  // A's failure never
  EXPECT_TRUE(prior_first(prior, 0).empty());
  EXPECT_TRUE(prior_first(Prior{}, 2).empty());
  // After the user's own start configurations, less those already there.
  EXPECT_EQ(with_prior_first({8, 4}, prior, 2), (std::vector<std::size_t>{8, 4, 3, 2, 9, 6}));
  EXPECT_EQ(with_prior_first({8, 4}, Prior{}, 2), (std::vector<std::size_t>{8, 4}));
}

TEST(PriorColumns, RankOfTheOtherGpusTimeFailuresLastGapsFilledBySeed) {
  const Sample s = make_sample();
  const detail::SpaceIndex index(s.recorded.space);
  const std::size_t n = index.size();
  EXPECT_TRUE(detail::prior_columns(index, Prior{}, 1).empty());

  const auto full = detail::prior_columns(index, agreeing_prior(s), 1);
  ASSERT_EQ(full.size(), n);
  EXPECT_EQ(full[s.optimum], 0);
  std::uint16_t slowest_working = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (s.recorded.times_ms[i]) slowest_working = std::max(slowest_working, full[i]);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_LT(full[i], detail::kPriorLevels);
    if (!s.recorded.times_ms[i]) EXPECT_GE(full[i], slowest_working) << i;
    for (std::size_t j = 0; j < n; j += 7) {
      if (s.recorded.times_ms[i] && s.recorded.times_ms[j] && *s.recorded.times_ms[i] < *s.recorded.times_ms[j]) {
        ASSERT_LE(full[i], full[j]) << i << " is faster than " << j;
      }
    }
  }
  const auto favourites = detail::prior_favourites(index, full, detail::kPriorLevels / 8);
  EXPECT_NEAR(static_cast<double>(favourites.size()), n / 8.0, 8.0);
  EXPECT_TRUE(std::binary_search(favourites.begin(), favourites.end(), s.optimum));

  // Every other configuration unmeasured: the gaps take the trees' guess, the same for the same seed; a measured
  // entry keeps its rank among them.
  Prior half = agreeing_prior(s);
  auto& times = half.siblings[0].times;
  for (std::size_t i = 1; i < times.size(); i += 2) times[i].first = times[i - 1].first;  // repeats stand for gaps
  times.erase(std::unique(times.begin(), times.end(), [](auto& a, auto& b) { return a.first == b.first; }), times.end());
  const auto gaps = detail::prior_columns(index, half, 4);
  EXPECT_EQ(gaps, detail::prior_columns(index, half, 4));
  EXPECT_EQ(gaps.size(), n);
  EXPECT_LE(gaps[s.optimum], 2);
  // Two other GPUs, one of them without a working configuration: one column.
  Prior failing = agreeing_prior(s);
  failing.siblings.push_back({"Broken GPU", {{0, std::nullopt}, {1, std::nullopt}}});
  EXPECT_EQ(detail::prior_columns(index, failing, 1).size(), n);
  failing.siblings.insert(failing.siblings.begin(), agreeing_prior(s).siblings[0]);
  EXPECT_EQ(detail::prior_columns(index, failing, 1).size(), 2 * n);
  // A configuration outside the space is misuse.
  EXPECT_THROW(detail::prior_columns(index, Prior{{{"X", {{n, 1.0}}}}}, 1), InputError);
}

TEST(PortfolioPrior, AnEmptyPriorChangesNothing) {
  const Sample s = make_sample();
  for (std::size_t batch : {1u, 3u}) {
    auto plain = make_strategy("portfolio", s.recorded.space, 7);
    auto with_empty = make_strategy("portfolio", s.recorded.space, 7, Prior{});
    EXPECT_EQ(run(*plain, s, batch, 150), run(*with_empty, s, batch, 150)) << "batch " << batch;
  }
}

TEST(PortfolioPrior, DeterministicPerSeedAndTheDesignStartsAmongTheOtherGpusFastest) {
  const Sample s = make_sample();
  const Prior prior = agreeing_prior(s);
  const detail::SpaceIndex index(s.recorded.space);
  const auto favourites = detail::prior_favourites(index, detail::prior_columns(index, prior, 11), detail::kPriorLevels / 8);
  for (std::size_t batch : {1u, 4u}) {
    auto a = make_strategy("portfolio", s.recorded.space, 11, prior), b = make_strategy("portfolio", s.recorded.space, 11, prior);
    const auto first = run(*a, s, batch, 120);
    EXPECT_EQ(first, run(*b, s, batch, 120)) << "batch " << batch;
    auto c = make_strategy("portfolio", s.recorded.space, 12, prior);
    EXPECT_NE(first, run(*c, s, batch, 120)) << "batch " << batch;
    // The design points proper (the first and every other one after it; the others step around the best so far).
    for (std::size_t k = 0; k < 16; k += k == 0 ? 1 : 2) {
      EXPECT_TRUE(std::binary_search(favourites.begin(), favourites.end(), first[k])) << "design point " << k;
    }
    EXPECT_EQ(std::set<std::size_t>(first.begin(), first.end()).size(), first.size());
  }
}

TEST(PortfolioPrior, AnAgreeingPriorFindsTheOptimumSoonerWithoutAnyFirstProposal) {
  const Sample s = make_sample();
  std::vector<std::size_t> with, without;
  for (std::uint64_t seed = 1; seed <= 9; ++seed) {
    auto plain = make_strategy("portfolio", s.recorded.space, seed);
    without.push_back(position_of(run(*plain, s, 1, 300), s.optimum) + 1);
    auto prior = make_strategy("portfolio", s.recorded.space, seed, agreeing_prior(s));
    with.push_back(position_of(run(*prior, s, 1, 300), s.optimum) + 1);
  }
  std::nth_element(with.begin(), with.begin() + 4, with.end());
  std::nth_element(without.begin(), without.begin() + 4, without.end());
  EXPECT_LE(with[4], 20u) << "median evaluations to the optimum with the prior";
  // With the prior, the model's first proposals after the initial design find it (10-28 here, median 15); without,
  // 14-28 (median 23).
  EXPECT_LT(with[4] + 5, without[4]) << "without: " << without[4];
}

TEST(PortfolioPrior, ResumedMidwayFromStoredOutcomesGoesOnAsOneRun) {
  // `tune` rebuilds the strategy with the same prior and tells it what is stored: the prior's first proposals that
  // are stored are not asked again, and two resumed runs agree.
  const Sample s = make_sample();
  const Prior prior = agreeing_prior(s);
  const auto first = with_prior_first({}, prior);
  auto interrupted = start_first(make_strategy("portfolio", s.recorded.space, 5, prior), first);
  const auto before = run(*interrupted, s, 2, 1);
  ASSERT_EQ(before, (std::vector<std::size_t>{first[0]}));
  std::vector<std::size_t> afters[2];
  for (auto& after : afters) {
    auto resumed = start_first(make_strategy("portfolio", s.recorded.space, 5, prior), first);
    for (std::size_t i : before) resumed->observe(i, s.recorded.times_ms[i]);
    after = run(*resumed, s, 2, 60);
    for (std::size_t i : after) EXPECT_NE(i, before[0]) << "measured again";
  }
  EXPECT_EQ(afters[0], afters[1]);
  EXPECT_EQ(afters[0].front(), first[1]) << "the prior's second proposal comes next";
}

TEST(ReplayPrior, StartThenTheOtherGpusWinnersThenTheSearch) {
  const Sample s = make_sample();
  Prior prior = agreeing_prior(s);
  prior.siblings[0].times[s.optimum].second = 9.0;  // the other GPU misses the optimum: its winners are runners-up
  const auto winners = prior_first(prior, 2);
  ASSERT_EQ(winners.size(), 2u);
  ASSERT_NE(winners[0], s.optimum);
  const auto order = replay_order("portfolio", s.recorded, 30, 1, 3, with_prior_first({17}, prior, 2), prior);
  EXPECT_EQ(std::vector<std::size_t>(order.begin(), order.begin() + 3), (std::vector<std::size_t>{17, winners[0], winners[1]}));
  EXPECT_EQ(order, replay_order("portfolio", s.recorded, 30, 1, 3, with_prior_first({17}, prior, 2), prior));

  ReplayOptions options;
  options.budgets = {25, 50};
  options.seeds = 5;
  options.start = {17};
  options.prior = prior;
  for (std::size_t batch : {1u, 4u}) {
    options.batch = batch;
    const ReplayResult r = replay("portfolio", s.recorded, options);
    for (std::size_t seed = 0; seed < 5; ++seed) {
      const auto o = replay_order("portfolio", s.recorded, 50, batch, options.first_seed + seed,
                                  with_prior_first({17}, prior, options.prior_first), prior);
      EXPECT_EQ(r.evals_to_1pct[seed], static_cast<double>(position_of(o, s.optimum) + 1)) << "seed " << seed;
      const std::set<std::size_t> first_batch(o.begin(), o.begin() + 4);
      for (std::size_t i : {std::size_t{17}, winners[0], winners[1]}) {
        if (batch == 4) EXPECT_EQ(first_batch.count(i), 1u) << i;
      }
    }
  }
  options.prior_first = 0;  // the model's prior only: nothing but the user's start is asked first
  options.batch = 1;
  EXPECT_EQ(replay_order("portfolio", s.recorded, 1, 1, 1, with_prior_first({}, prior, 0), prior).size(), 1u);
  EXPECT_NO_THROW(replay("portfolio", s.recorded, options));
}

class PriorCli : public TuneCommandTest {
 protected:
  void SetUp() override {
    TuneCommandTest::SetUp();
    // Six configurations of a kernel on this GPU (one failed) and four on another, one of them not in this space.
    std::ofstream(dir_ / "cache.json") << R"json({"device_name": "This GPU", "kernel_name": "tile",
"tune_params_keys": ["tile", "unroll"], "tune_params": {"tile": [16, 32, 64], "unroll": [1, 4]},
"cache": {"16,1": {"tile": 16, "unroll": 1, "time": 5.0}, "16,4": {"tile": 16, "unroll": 4, "time": 4.0},
"32,1": {"tile": 32, "unroll": 1, "time": 3.0}, "32,4": {"tile": 32, "unroll": 4, "time": "RuntimeFailedConfig"},
"64,1": {"tile": 64, "unroll": 1, "time": 2.9}, "64,4": {"tile": 64, "unroll": 4, "time": 1.0}}})json";
    std::ofstream(dir_ / "other.json") << R"json({"device_name": "Other GPU", "kernel_name": "tile",
"tune_params_keys": ["tile", "unroll"], "tune_params": {"tile": [16, 32, 64, 128], "unroll": [1, 4]},
"cache": {"64,4": {"tile": 64, "unroll": 4, "time": 0.5}, "16,1": {"tile": 16, "unroll": 1, "time": 0.7},
"128,4": {"tile": 128, "unroll": 4, "time": 0.1}, "32,1": {"tile": 32, "unroll": 1, "time": "CompilationFailedConfig"}}})json";
  }
};

TEST_F(PriorCli, AnotherGpusWinnerFirstAndTheModelOnly) {
  // The other GPU's winner in this space (64,4; its 128,4 is not in it) is this one's optimum: within 1% at the first
  // evaluation in every seed.
  const auto s = tune("replay --cache cache.json --strategy portfolio --budget 6 --seeds 3 --prior other.json --json");
  EXPECT_EQ(s.code, 0) << s.err;
  EXPECT_NE(s.out.find("\"median_evals_to_1pct\": 1,"), std::string::npos) << s.out;
  const auto text = tune("replay --cache cache.json --strategy portfolio --budget 6 --seeds 3 --prior other.json --prior other.json");
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("prior from Other GPU, Other GPU (2 fastest of each first)"), std::string::npos) << text.out;
  const auto model = tune("replay --cache cache.json --strategy portfolio --budget 6 --seeds 3 --prior other.json --prior-first 0");
  EXPECT_EQ(model.code, 0) << model.err;
  EXPECT_NE(model.out.find("prior from Other GPU (model only)"), std::string::npos) << model.out;
}

TEST_F(PriorCli, AnotherKernelsCacheIsOneErrorLine) {
  std::ofstream(dir_ / "wrong.json") << R"json({"tune_params_keys": ["x"], "tune_params": {"x": [1]},
"cache": {"1": {"x": 1, "time": 1.0}}})json";
  const auto w = tune("replay --cache cache.json --strategy portfolio --budget 6 --seeds 1 --prior wrong.json");
  EXPECT_EQ(w.code, 1);
  EXPECT_EQ(w.err, "error: --prior wrong.json: its parameters differ from --cache's (not the same kernel)\n");
  const auto missing = tune("replay --cache cache.json --strategy portfolio --budget 6 --seeds 1 --prior nowhere.json");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("nowhere.json"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace cutune::test
