// Host tests of the rules that end a shape: each rule on its own, and the value that joins them answers which holds.
#include <gtest/gtest.h>

#include <chrono>

#include "cutune/error.hpp"
#include "cutune/stop.hpp"
#include "stand_in_kernel.hpp"
#include "tuner/dispatch.hpp"
#include "tuner/stop_rules.hpp"

namespace cutune::detail {
namespace {

Result wrong(const std::string& config) {
  Result r;
  r.config = config;
  r.status = Status::WrongResult;
  r.message = "64 of 100 elements of out differ";
  r.disagreement = Disagreement{"out", 64, 0, 100};
  return r;
}

// A budget of `limit` with `stored` results counted against it, its first round open for `round`.
Budget budget_of(std::size_t limit, std::size_t stored, std::size_t round) {
  Budget budget(limit, 1000);
  budget.count_stored(stored);
  budget.open_round(round);
  return budget;
}

TEST(StopRules, TheBudgetHoldsOnceThatManyWereAskedAndEndsOnlyTheAsking) {
  Budget budget = budget_of(5, 2, 10);
  StopRules rules;
  rules.join(budget_rule(budget));
  budget.asked(2);
  EXPECT_EQ(rules.check(StopEffect::Asking), nullptr);
  budget.asked(1);
  const StopRule* spent = rules.check(StopEffect::Asking);
  ASSERT_NE(spent, nullptr);
  EXPECT_EQ(spent->why(), "the budget of 3 configurations is spent");
  EXPECT_EQ(rules.check(StopEffect::GivingUp), nullptr);
  EXPECT_EQ(rules.check(StopEffect::Interrupt), nullptr);
}

TEST(StopRules, TheBudgetCountsAShapeAcrossItsRounds) {
  Budget budget = budget_of(10, 0, 4);
  EXPECT_EQ(budget.to_measure(), 10u);
  StopRules rules;
  rules.join(budget_rule(budget));
  budget.asked(4);
  EXPECT_NE(rules.check(StopEffect::Asking), nullptr) << "the round's share is asked";
  EXPECT_EQ(budget.left(), 6u);
  budget.open_round(8);
  EXPECT_EQ(budget.may_ask(), 6u) << "a round asks at most what the shape has left";
  EXPECT_EQ(rules.check(StopEffect::Asking), nullptr);
  budget.asked(6);
  EXPECT_EQ(budget.left(), 0u);
  EXPECT_NE(rules.check(StopEffect::Asking), nullptr);
  EXPECT_EQ(Budget(0, 7).limit(), 7u) << "no budget: the whole space";
  EXPECT_EQ(budget_of(5, 9, 5).to_measure(), 0u) << "more stored than the budget: nothing to measure";
}

TEST(StopRules, TheTimeBudgetHoldsOncePastAndNeverWhenZero) {
  const auto long_ago = std::chrono::steady_clock::now() - std::chrono::hours(1);
  StopRules none;
  none.join(time_rule(0.0, long_ago));
  EXPECT_EQ(none.check(StopEffect::Asking), nullptr);
  StopRules spent;
  spent.join(time_rule(60.0, long_ago));
  EXPECT_NE(spent.check(StopEffect::Asking), nullptr);
  StopRules fresh;
  fresh.join(time_rule(3600.0, std::chrono::steady_clock::now()));
  EXPECT_EQ(fresh.check(StopEffect::Asking), nullptr);
}

TEST(StopRules, TheFirstJoinedRuleOfAnEffectThatHoldsSaysWhy) {
  StopRules rules;
  Budget budget = budget_of(2, 0, 2);
  rules.join(budget_rule(budget)).join(time_rule(60.0, std::chrono::steady_clock::now() - std::chrono::hours(1)));
  budget.asked(1);
  EXPECT_EQ(rules.check(StopEffect::Asking)->why(), "the time budget is spent");
  budget.asked(1);
  EXPECT_EQ(rules.check(StopEffect::Asking)->why(), "the budget of 2 configurations is spent");
}

TEST(StopRules, TheVerificationStopDecidesOnAResultAndNamesTheReference) {
  const KernelSpec spec = test::stand_in_kernel("stop_rules", R"({"A": [1, 2, 3]})", "A");
  StopRules rules;
  const Budget budget = budget_of(10, 0, 10);
  rules.join(budget_rule(budget)).join(verification_rule(2, spec, VerifyMode::Reference));
  EXPECT_EQ(rules.hear(wrong("A=1")), nullptr);
  EXPECT_EQ(rules.check(StopEffect::GivingUp), nullptr);
  const StopRule* decided = rules.hear(wrong("A=2"));
  ASSERT_NE(decided, nullptr);
  EXPECT_EQ(rules.check(StopEffect::GivingUp), decided);
  const std::string why = decided->why();
  EXPECT_EQ(why.rfind("stopped early: the first 2 configurations that ran all differ from the reference (k_ref)", 0), 0u)
      << why;
  EXPECT_EQ(rules.hear(wrong("A=3")), nullptr) << "decided once";

  StopRules never;
  never.join(verification_rule(0, spec, VerifyMode::Reference));
  EXPECT_EQ(never.hear(wrong("A=1")), nullptr);
  EXPECT_EQ(never.check(StopEffect::GivingUp), nullptr);
}

TEST(StopRules, AnInterruptHoldsOnceRequestedAndEndsTheShape) {
  StopRules rules;
  rules.join(interrupt_rule());
  EXPECT_EQ(rules.check(StopEffect::Interrupt), nullptr);
  request_stop();
  const StopRule* interrupt = rules.check(StopEffect::Interrupt);
  reset_stop();
  ASSERT_NE(interrupt, nullptr);
  EXPECT_THROW(interrupt->end(), Interrupted);
}

TEST(StopRules, LosingEveryLaneEndsTheShape) {
  const Dispatcher no_lanes({});
  StopRules rules;
  rules.join(no_lane_rule(no_lanes));
  const StopRule* gone = rules.check(StopEffect::NoLane);
  ASSERT_NE(gone, nullptr);
  EXPECT_THROW(gone->end(), Error);
  EXPECT_EQ(rules.check(StopEffect::Interrupt), nullptr);
}

}  // namespace
}  // namespace cutune::detail
