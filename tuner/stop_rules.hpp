// The rules that end a shape (budget, time budget, verification stop, interrupt, no GPU left), joined into one value.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cutune/result.hpp"
#include "cutune/spec.hpp"
#include "tuner/budget.hpp"
#include "tuner/verify_stop.hpp"

namespace cutune::detail {

class Dispatcher;

/// What a rule ends when it holds. The loop asks about each effect at the step that effect stops (asking the
/// strategy, handing work to lanes, going on with the shape).
enum class StopEffect {
  Asking,     ///< the strategy is asked for nothing more; what is compiled or measuring still arrives
  GivingUp,   ///< nothing more is asked or handed to a lane; what lanes measure still arrives
  Interrupt,  ///< what arrived and what lanes hold back is stored, then the shape ends (StopRule::end)
  NoLane,     ///< what arrived is stored, then the shape ends (StopRule::end)
};

/// One condition that ends (part of) a shape, after KTT's StopCondition.
class StopRule {
 public:
  virtual ~StopRule() = default;
  virtual StopEffect effect() const = 0;
  virtual bool holds() const = 0;
  /// Hears each result of the shape as it is stored; true when the rule decided on this one to hold from now on.
  virtual bool hear(const Result& r) {
    (void)r;
    return false;
  }
  /// What the user reads about why the shape stopped; lines separated by '\n'.
  virtual std::string why() const = 0;
  /// Ends the shape by throwing, for the rules whose effect ends it (Interrupt, NoLane); the others do nothing.
  virtual void end() const {}
};

/// The rules of one shape: the loop asks this one value whether to stop, and why (the rule that holds).
class StopRules {
 public:
  StopRules& join(std::unique_ptr<StopRule> rule);
  /// The first joined rule of `effect` that holds now; null while none does.
  const StopRule* check(StopEffect effect) const;
  /// Passes a stored result to every rule; the first rule that decided on it to hold, or null.
  const StopRule* hear(const Result& r);

 private:
  std::vector<std::unique_ptr<StopRule>> rules_;
};

/// Holds while `budget` lets nothing more be asked (Budget::may_ask()); `budget` must outlive the rule.
std::unique_ptr<StopRule> budget_rule(const Budget& budget);
/// Holds once `seconds` have passed since `start`; 0 seconds never holds.
std::unique_ptr<StopRule> time_rule(double seconds, std::chrono::steady_clock::time_point start);
/// Holds once the first `needed` configurations that ran all disagree with the reference in the same way
/// (DisagreementWatch); `spec` and `verify` name the reference in the message and must outlive the rule.
std::unique_ptr<StopRule> verification_rule(std::size_t needed, const KernelSpec& spec, VerifyMode verify);
/// Holds once stop is requested (request_stop(): Ctrl-C); ends the shape with Interrupted.
std::unique_ptr<StopRule> interrupt_rule();
/// Holds once every lane of `dispatcher` left the run; ends the shape with what the last one caught. `dispatcher`
/// must outlive the rule.
std::unique_ptr<StopRule> no_lane_rule(const Dispatcher& dispatcher);

}  // namespace cutune::detail
