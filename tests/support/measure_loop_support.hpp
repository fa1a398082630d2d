// What the measure-loop tests give the loop in place of a tuner's shape: events that hand arrivals to the test, and
// the stop rules a shape joins when it has no time budget and no verification stop.
#pragma once

#include <cstddef>
#include <functional>

#include "tuner/measure_loop.hpp"
#include "tuner/stop_rules.hpp"

namespace cutune::test {

/// Hands each arrival to `on_arrival`; the cubin cache holds what `in_cache` says (asked only with a cache). No best
/// median is known, so that no job stops early.
struct ArrivalEvents final : detail::MeasureEvents {
  std::function<void(const detail::Arrival&)> on_arrival;
  std::function<bool(std::size_t)> in_cache;

  double best_ms() const override { return 0.0; }
  void arrived(const detail::Arrival& a) override { on_arrival(a); }
  bool compiled(std::size_t index) const override { return in_cache(index); }
};

/// A budget of `to_measure` configurations, a stop request and the loss of every lane end the loop, as in a shape.
inline detail::StopRules shape_rules(std::size_t to_measure, const detail::Dispatcher& lanes) {
  detail::StopRules rules;
  rules.join(detail::budget_rule(to_measure)).join(detail::interrupt_rule()).join(detail::lanes_rule(lanes));
  return rules;
}

}  // namespace cutune::test
