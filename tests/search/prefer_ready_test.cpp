// Tests of Strategy::prefer_ready(): the default strategy takes configurations that are compiled already (ready)
// among candidates it rates about as well, so that a repeated run whose times differ a little asks mostly for what
// the first run compiled; without anything ready it proposes exactly what it proposes without the preference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "cutune/strategy.hpp"
#include "valley_sample.hpp"

namespace cutune {
namespace {

// `s` with every time multiplied by a seeded random factor of about 1 ± `spread`: a rerun on a real GPU.
test::Sample noisy(const test::Sample& s, std::uint64_t seed, double spread) {
  test::Sample out = s;
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-spread, spread);
  for (auto& t : out.recorded.times_ms)
    if (t) *t *= 1.0 + u(g);
  return out;
}

TEST(PreferReady, NothingReadyChangesNoProposal) {
  const test::Sample s = test::make_sample();
  for (std::size_t batch : {1u, 3u}) {
    auto plain = make_strategy("portfolio", s.recorded.space, 5);
    auto preferring = make_strategy("portfolio", s.recorded.space, 5);
    std::size_t asked = 0;
    preferring->prefer_ready([&asked](std::size_t) { return ++asked, false; });
    EXPECT_EQ(test::run(*plain, s, batch, 150), test::run(*preferring, s, batch, 150)) << "batch " << batch;
    EXPECT_GT(asked, 0u) << "the strategy never looked";
  }
}

TEST(PreferReady, ARepeatedRunAsksMostlyForWhatTheFirstOneAsked) {
  // The same seed, times within ±1% of the first run's: without the preference the runs drift apart after the first
  // model-based proposals; with it (the first run's configurations ready) fewer of the rerun's are new.
  const test::Sample s = test::make_sample();
  std::size_t new_plain = 0, new_preferring = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    auto first = make_strategy("portfolio", s.recorded.space, seed);
    const auto order = test::run(*first, noisy(s, 100 + seed, 0.01), 4, 60);
    const std::set<std::size_t> ready(order.begin(), order.end());
    const test::Sample again = noisy(s, 200 + seed, 0.01);
    auto plain = make_strategy("portfolio", s.recorded.space, seed);
    auto preferring = start_first(make_strategy("portfolio", s.recorded.space, seed), {});
    preferring->prefer_ready([&ready](std::size_t i) { return ready.count(i) > 0; });
    for (std::size_t i : test::run(*plain, again, 4, 60)) new_plain += !ready.count(i);
    for (std::size_t i : test::run(*preferring, again, 4, 60)) new_preferring += !ready.count(i);
  }
  EXPECT_GT(new_plain, 0u) << "the reruns did not drift apart: nothing to test";
  EXPECT_LE(static_cast<double>(new_preferring), 0.75 * static_cast<double>(new_plain))
      << "new configurations in reruns: " << new_preferring << " preferring what is ready, " << new_plain << " not";
}

TEST(PreferReady, ManyReadyConfigurationsDoNotLeadTheSearchAstray) {
  // A fifth of the space ready (compiled for other shapes, say), the optimum not among them: still found as soon.
  const test::Sample s = test::make_sample();
  for (std::size_t batch : {1u, 4u}) {
    std::vector<std::size_t> found;
    for (std::uint64_t seed = 1; seed <= 9; ++seed) {
      auto strategy = start_first(make_strategy("portfolio", s.recorded.space, seed), {});
      strategy->prefer_ready([&s](std::size_t i) { return i % 5 == 0 && i != s.optimum; });
      const auto order = test::run(*strategy, s, batch, 200);
      EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), order.size());
      found.push_back(test::position_of(order, s.optimum) + 1);  // 201: not found
    }
    std::nth_element(found.begin(), found.begin() + 4, found.end());
    EXPECT_LE(found[4], 60u) << "median evaluations to the optimum with batch " << batch;
  }
}

}  // namespace
}  // namespace cutune
