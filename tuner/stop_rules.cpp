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
  explicit BudgetRule(const Budget& budget) : budget_(budget) {}
  StopEffect effect() const override { return StopEffect::Asking; }
  bool holds() const override { return budget_.may_ask() == 0; }
  std::string why() const override {
    return "the budget of " + std::to_string(budget_.to_measure()) + " configurations is spent";
  }

 private:
  const Budget& budget_;
};

class TimeRule final : public StopRule {
 public:
  TimeRule(double seconds, std::chrono::steady_clock::time_point start) : seconds_(seconds), start_(start) {}
  StopEffect effect() const override { return StopEffect::Asking; }
  bool holds() const override {
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
  bool holds() const override { return watch_.stopped(); }
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
  bool holds() const override { return stop_requested(); }
  std::string why() const override { return "interrupted"; }
  void end() const override { throw Interrupted("interrupted"); }
};

class NoLaneRule final : public StopRule {
 public:
  explicit NoLaneRule(const Dispatcher& dispatcher) : dispatcher_(dispatcher) {}
  StopEffect effect() const override { return StopEffect::NoLane; }
  bool holds() const override { return dispatcher_.live() == 0; }
  std::string why() const override { return "no GPU is left to measure on"; }
  void end() const override { dispatcher_.require_lane(); }

 private:
  const Dispatcher& dispatcher_;
};

}  // namespace

StopRules& StopRules::join(std::unique_ptr<StopRule> rule) {
  rules_.push_back(std::move(rule));
  return *this;
}

const StopRule* StopRules::check(StopEffect effect) const {
  for (const auto& rule : rules_)
    if (rule->effect() == effect && rule->holds()) return rule.get();
  return nullptr;
}

const StopRule* StopRules::hear(const Result& r) {
  const StopRule* decided = nullptr;
  for (const auto& rule : rules_)
    if (rule->hear(r) && !decided) decided = rule.get();
  return decided;
}

std::unique_ptr<StopRule> budget_rule(const Budget& budget) { return std::make_unique<BudgetRule>(budget); }

std::unique_ptr<StopRule> time_rule(double seconds, std::chrono::steady_clock::time_point start) {
  return std::make_unique<TimeRule>(seconds, start);
}

std::unique_ptr<StopRule> verification_rule(std::size_t needed, const KernelSpec& spec, VerifyMode verify) {
  return std::make_unique<VerificationRule>(needed, spec, verify);
}

std::unique_ptr<StopRule> interrupt_rule() { return std::make_unique<InterruptRule>(); }

std::unique_ptr<StopRule> no_lane_rule(const Dispatcher& dispatcher) {
  return std::make_unique<NoLaneRule>(dispatcher);
}

}  // namespace cutune::detail
