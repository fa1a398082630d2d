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

TEST(StopRules, TheBudgetHoldsOnceThatManyWereAskedAndEndsOnlyTheAsking) {
  StopRules rules;
  rules.join(budget_rule(3));
  EXPECT_EQ(rules.check(StopEffect::Asking, {2}), nullptr);
  const StopRule* budget = rules.check(StopEffect::Asking, {3});
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ(budget->why(), "the budget of 3 configurations is spent");
  EXPECT_EQ(rules.check(StopEffect::GivingUp, {3}), nullptr);
  EXPECT_EQ(rules.check(StopEffect::Interrupt, {3}), nullptr);
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
  rules.join(budget_rule(2)).join(time_rule(60.0, std::chrono::steady_clock::now() - std::chrono::hours(1)));
  EXPECT_EQ(rules.check(StopEffect::Asking, {1})->why(), "the time budget is spent");
  EXPECT_EQ(rules.check(StopEffect::Asking, {2})->why(), "the budget of 2 configurations is spent");
}

TEST(StopRules, TheVerificationStopDecidesOnAResultAndNamesTheReference) {
  const KernelSpec spec = test::stand_in_kernel("stop_rules", R"({"A": [1, 2, 3]})", "A");
  StopRules rules;
  rules.join(budget_rule(10)).join(verification_rule(2, spec, VerifyMode::Reference));
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
  rules.join(lanes_rule(no_lanes));
  const StopRule* gone = rules.check(StopEffect::NoLane);
  ASSERT_NE(gone, nullptr);
  EXPECT_THROW(gone->end(), Error);
  EXPECT_EQ(rules.check(StopEffect::Interrupt), nullptr);
}

}  // namespace
}  // namespace cutune::detail
