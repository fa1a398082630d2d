// Each rule that ends a shape, and the value that joins them.
#include "tuner/stop_rules.hpp"

#include "cutune/error.hpp"
#include "cutune/stop.hpp"
#include "measure/workbench.hpp"
#include "tuner/dispatch.hpp"

namespace cutune::detail {
namespace {

class BudgetRule final : public StopRule {
 public:
  explicit BudgetRule(std::size_t to_measure) : to_measure_(to_measure) {}
  StopEffect effect() const override { return StopEffect::Asking; }
  bool holds(const StopState& state) const override { return state.asked >= to_measure_; }
  std::string why() const override { return "the budget of " + std::to_string(to_measure_) + " configurations is spent"; }

 private:
  std::size_t to_measure_;
};

class TimeRule final : public StopRule {
 public:
  TimeRule(double seconds, std::chrono::steady_clock::time_point start) : seconds_(seconds), start_(start) {}
  StopEffect effect() const override { return StopEffect::Asking; }
  bool holds(const StopState&) const override {
    return seconds_ > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >= seconds_;
  }
  std::string why() const override { return "the time budget is spent"; }

 private:
  double seconds_;
  std::chrono::steady_clock::time_point start_;
};

class VerificationRule final : public StopRule {
 public:
  VerificationRule(std::size_t needed, const KernelSpec& spec, VerifyMode verify)
      : watch_(needed), spec_(spec), verify_(verify) {}
  StopEffect effect() const override { return StopEffect::GivingUp; }
  bool holds(const StopState&) const override { return watch_.stopped(); }
  bool hear(const Result& r) override { return watch_.hear(r); }
  // The reference is named only when the shape stops: choosing it can fail for a spec that never needs it.
  std::string why() const override { return watch_.message(reference_choice(spec_, verify_).name); }

 private:
  DisagreementWatch watch_;
  const KernelSpec& spec_;
  VerifyMode verify_;
};

class InterruptRule final : public StopRule {
 public:
  StopEffect effect() const override { return StopEffect::Interrupt; }
  bool holds(const StopState&) const override { return stop_requested(); }
  std::string why() const override { return "interrupted"; }
  void end() const override { throw Interrupted("interrupted"); }
};

class LanesRule final : public StopRule {
 public:
  explicit LanesRule(const Dispatcher& lanes) : lanes_(lanes) {}
  StopEffect effect() const override { return StopEffect::NoLane; }
  bool holds(const StopState&) const override { return lanes_.live() == 0; }
  std::string why() const override { return "no GPU is left to measure on"; }
  void end() const override { lanes_.require_lane(); }

 private:
  const Dispatcher& lanes_;
};

}  // namespace

StopRules& StopRules::join(std::unique_ptr<StopRule> rule) {
  rules_.push_back(std::move(rule));
  return *this;
}

const StopRule* StopRules::check(StopEffect effect, const StopState& state) const {
  for (const auto& rule : rules_)
    if (rule->effect() == effect && rule->holds(state)) return rule.get();
  return nullptr;
}

const StopRule* StopRules::hear(const Result& r) {
  const StopRule* decided = nullptr;
  for (const auto& rule : rules_)
    if (rule->hear(r) && !decided) decided = rule.get();
  return decided;
}

std::unique_ptr<StopRule> budget_rule(std::size_t to_measure) { return std::make_unique<BudgetRule>(to_measure); }

std::unique_ptr<StopRule> time_rule(double seconds, std::chrono::steady_clock::time_point start) {
  return std::make_unique<TimeRule>(seconds, start);
}

std::unique_ptr<StopRule> verification_rule(std::size_t needed, const KernelSpec& spec, VerifyMode verify) {
  return std::make_unique<VerificationRule>(needed, spec, verify);
}

std::unique_ptr<StopRule> interrupt_rule() { return std::make_unique<InterruptRule>(); }

std::unique_ptr<StopRule> lanes_rule(const Dispatcher& lanes) { return std::make_unique<LanesRule>(lanes); }

}  // namespace cutune::detail
