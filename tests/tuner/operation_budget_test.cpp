// Tests of how an operation's budget is divided among its implementations (cutune/operation_budget.hpp), on synthetic
// sequences of measured times: what each turn would have measured, without a GPU.
#include "cutune/operation_budget.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace cutune {
namespace {

// An implementation as the rule sees it: the times its search would measure, in order, and its seconds per
// configuration; its space is the sequence.
struct Synthetic {
  std::vector<double> times_ms;
  double seconds_per_config = 0.01;
};

struct Simulation {
  std::vector<std::size_t> held;  // by implementation: configurations measured in all
  std::vector<std::size_t> turns_of;
  std::vector<std::size_t> round_winners;  // after the first shares
};

// Runs the rule to its end, each turn measuring the next configurations of the implementation's sequence.
Simulation simulate(const std::vector<Synthetic>& impls, std::vector<std::size_t> order, std::size_t budget,
                    std::vector<std::size_t> groups = {}) {
  OperationBudget rule(order, budget, std::move(groups));
  Simulation sim{std::vector<std::size_t>(impls.size(), 0), std::vector<std::size_t>(impls.size(), 0), {}};
  std::size_t turns = 0;
  while (auto turn = rule.next()) {
    const Synthetic& s = impls[turn->implementation];
    std::size_t& held = sim.held[turn->implementation];
    const std::size_t until = turn->share == 0 ? s.times_ms.size() : std::min(turn->share, s.times_ms.size());
    TurnOutcome outcome;
    for (std::size_t i = 0; i < held; ++i) {
      outcome.best_ms = std::min(outcome.best_ms.value_or(std::numeric_limits<double>::infinity()), s.times_ms[i]);
    }
    for (std::size_t i = held; i < until; ++i) {
      outcome.best_ms = std::min(outcome.best_ms.value_or(std::numeric_limits<double>::infinity()), s.times_ms[i]);
      if (i == held) outcome.first_ms = outcome.best_ms;
      ++outcome.measured;
    }
    held = std::max(held, until);
    outcome.held = held;
    outcome.seconds = static_cast<double>(outcome.measured) * s.seconds_per_config;
    rule.record(turn->implementation, outcome);
    ++sim.turns_of[turn->implementation];
    if (++turns > order.size()) sim.round_winners.push_back(turn->implementation);
  }
  return sim;
}

// A search that lowers its best by `step` per configuration from `start`.
std::vector<double> improving(double start, double step, std::size_t n) {
  std::vector<double> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(start - step * static_cast<double>(i));
  return t;
}

std::vector<double> flat(double ms, std::size_t n) { return std::vector<double>(n, ms); }

}  // namespace

TEST(OperationBudget, FirstSharesHalfTheBudgetInOrderThenRoundsOfAQuarter) {
  OperationBudget rule({1, 0}, 60);
  auto first = rule.next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->implementation, 1u);  // the order given: the library family first
  EXPECT_EQ(first->share, 15u);
  EXPECT_THROW(rule.next(), std::logic_error);  // a turn must be recorded before the next
  rule.record(1, TurnOutcome{15, 15, 0.1, 1.0, 1.0});
  auto second = rule.next();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->implementation, 0u);
  EXPECT_EQ(second->share, 15u);
  EXPECT_THROW(rule.record(1, TurnOutcome{}), std::logic_error);  // not the turn it gave
  rule.record(0, TurnOutcome{15, 15, 1.0, 2.0, 0.8});
  auto round = rule.next();
  ASSERT_TRUE(round);
  EXPECT_EQ(round->share, 30u);  // its first share and a quarter of the budget
}

TEST(OperationBudget, EveryConfigurationOfTheBudgetIsSpentAndNoMore) {
  for (const std::size_t budget : {1, 2, 3, 7, 60, 61, 200}) {
    const Simulation sim = simulate({{improving(2.0, 0.01, 500)}, {flat(1.0, 500)}}, {1, 0}, budget);
    const std::size_t spent = sim.held[0] + sim.held[1];
    // At least one configuration each, even where the budget is smaller than the implementations.
    EXPECT_EQ(spent, std::max<std::size_t>(budget, 2)) << "budget " << budget;
    EXPECT_GE(sim.held[0], 1u);
    EXPECT_GE(sim.held[1], 1u);
  }
}

// cuBLASLt by rank (1) and by attributes (2) split one first share, so the template (0) keeps a quarter of the budget.
TEST(OperationBudget, TheLibrarysFamiliesSplitOneFirstShare) {
  OperationBudget rule({1, 2, 0}, 60, {0, 1, 1});
  std::vector<std::size_t> shares;
  for (const std::size_t i : {1, 2, 0}) {
    const auto turn = rule.next();
    ASSERT_TRUE(turn);
    EXPECT_EQ(turn->implementation, i);
    shares.push_back(turn->share);
    rule.record(i, TurnOutcome{turn->share, turn->share, 0.1, 1.0, 1.0});
  }
  EXPECT_EQ(shares, (std::vector<std::size_t>{8, 7, 15}));  // what does not divide evenly to the first in order
  // Without groups, thirds of half the budget.
  OperationBudget even({1, 2, 0}, 60);
  EXPECT_EQ(even.next()->share, 10u);
  EXPECT_THROW(OperationBudget({1, 2, 0}, 60, {0, 1}), std::invalid_argument);  // a group for each
}

TEST(OperationBudget, ThreeImplementationsSpendTheBudgetAndNoMore) {
  for (const std::size_t budget : {1, 2, 3, 4, 5, 7, 60, 61, 200}) {
    const Simulation sim =
        simulate({{improving(2.0, 0.01, 500)}, {flat(1.0, 32)}, {improving(1.0, 0.001, 500)}}, {1, 2, 0}, budget,
                 {0, 1, 1});
    EXPECT_EQ(sim.held[0] + sim.held[1] + sim.held[2], std::max<std::size_t>(budget, 3)) << "budget " << budget;
    for (const std::size_t held : sim.held) EXPECT_GE(held, 1u) << "budget " << budget;
  }
}

// The configuration by attributes lowers the best where the ranked answers are alike and the template trails: the
// rounds are its own.
TEST(OperationBudget, ALibraryConfigurationThatLowersTheBestGetsTheRounds) {
  const Simulation sim = simulate({{flat(1.5, 200)}, {flat(1.0, 32)}, {improving(1.0, 0.002, 5000)}}, {1, 2, 0}, 60,
                                  {0, 1, 1});
  EXPECT_EQ(sim.round_winners, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(sim.held, (std::vector<std::size_t>{15, 8, 37}));
}

TEST(OperationBudget, RoundsGoToTheImplementationWhoseSearchLowersTheBest) {
  // The template starts behind the library and improves fast enough to pass it; the library's answers are all alike.
  const Simulation sim = simulate({{improving(1.6, 0.02, 200)}, {flat(1.2, 32)}}, {1, 0}, 60);
  EXPECT_EQ(sim.held[1], 15u);  // its first share only
  EXPECT_EQ(sim.held[0], 45u);
  EXPECT_EQ(sim.round_winners, (std::vector<std::size_t>{0, 0}));
}

TEST(OperationBudget, ALibraryThatImprovesAheadOfAFlatTemplateGetsTheRounds) {
  const Simulation sim = simulate({{flat(1.5, 200)}, {improving(1.2, 0.005, 32)}}, {1, 0}, 60);
  // Its whole space: its second round finds only two more, and what it could not use goes to the template.
  EXPECT_EQ(sim.round_winners, (std::vector<std::size_t>{1, 1, 0}));
  EXPECT_EQ(sim.held[1], 32u);
  EXPECT_EQ(sim.held[0], 28u);
}

TEST(OperationBudget, ATrailingImplementationThatCannotCatchUpGetsNothingMore) {
  // The template improves, but by far too little per configuration to reach the library's best in a round.
  const Simulation sim = simulate({{improving(3.0, 0.001, 200)}, {improving(1.0, 0.0001, 200)}}, {1, 0}, 60);
  EXPECT_EQ(sim.held[0], 15u);
  EXPECT_EQ(sim.round_winners, (std::vector<std::size_t>{1, 1}));
}

TEST(OperationBudget, PayIsPerSecondOfTuning) {
  // Two templates lowering their best alike per configuration; the second's configurations take ten times longer.
  OperationBudget rule({0, 1}, 40);
  for (const std::size_t i : {0, 1}) {
    ASSERT_TRUE(rule.next());
    const double seconds = i == 0 ? 1.0 : 10.0;
    rule.record(i, TurnOutcome{10, 10, seconds, 1.09, 1.0});  // 0.01 ms lower per configuration after the first
  }
  EXPECT_GT(rule.pay(0), 0.0);
  EXPECT_NEAR(rule.pay(0), 10.0 * rule.pay(1), 1e-9);
  EXPECT_EQ(rule.next()->implementation, 0u);
}

TEST(OperationBudget, WhenNothingPaysTheFastestGoesOn) {
  const Simulation sim = simulate({{flat(1.5, 200)}, {flat(1.0, 200)}}, {1, 0}, 60);
  EXPECT_EQ(sim.round_winners, (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(sim.held[1], 45u);
}

TEST(OperationBudget, AnImplementationWithoutACorrectResultGoesOnOnlyWhenNoneHasOne) {
  OperationBudget rule({0, 1}, 8);
  ASSERT_TRUE(rule.next());
  rule.record(0, TurnOutcome{2, 2, 0.1, std::nullopt, std::nullopt});  // every configuration failed
  ASSERT_TRUE(rule.next());
  rule.record(1, TurnOutcome{2, 2, 0.1, 1.0, 1.0});
  EXPECT_EQ(rule.pay(0), 0.0);
  EXPECT_EQ(rule.next()->implementation, 1u);

  OperationBudget none({0, 1}, 8);
  for (const std::size_t i : {0, 1}) {
    ASSERT_TRUE(none.next());
    none.record(i, TurnOutcome{2, 2, 0.1, std::nullopt, std::nullopt});
  }
  EXPECT_EQ(none.next()->implementation, 0u);  // the first in order
}

TEST(OperationBudget, AWholeSpaceBudgetIsOneTurnEach) {
  const Simulation sim = simulate({{flat(1.5, 70)}, {flat(1.0, 32)}}, {1, 0}, 0);
  EXPECT_EQ(sim.held, (std::vector<std::size_t>{70, 32}));
  EXPECT_EQ(sim.turns_of, (std::vector<std::size_t>{1, 1}));
}

TEST(OperationBudget, ResumedResultsCountTowardsTheShareAndTheBest) {
  // A rerun: the first share finds 15 stored results and measures nothing; the best is what is stored.
  OperationBudget rule({0, 1}, 60);
  ASSERT_TRUE(rule.next());
  rule.record(0, TurnOutcome{0, 40, 0.2, std::nullopt, 0.9});
  ASSERT_TRUE(rule.next());
  rule.record(1, TurnOutcome{15, 15, 0.5, 1.0, 1.0});
  EXPECT_EQ(rule.best_ms(), 0.9);
  const auto round = rule.next();
  ASSERT_TRUE(round);
  EXPECT_EQ(round->implementation, 0u);  // nothing pays: the fastest goes on
}

}  // namespace cutune
