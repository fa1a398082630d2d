// What the measure-loop tests give a round in place of a tuner's shape: events that hand arrivals to the test, and
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

/// A budget of `to_measure` configurations in one round, as a shape over a whole space has.
inline detail::Budget one_round(std::size_t to_measure) {
  detail::Budget budget(to_measure, to_measure);
  budget.count_stored(0);
  budget.open_round(to_measure);
  return budget;
}

/// The budget, a stop request and the loss of every lane end the loop, as in a shape; `budget` and `dispatcher` must
/// outlive the rules.
inline detail::StopRules shape_rules(const detail::Budget& budget, const detail::Dispatcher& dispatcher) {
  detail::StopRules rules;
  rules.join(detail::budget_rule(budget)).join(detail::interrupt_rule()).join(detail::no_lane_rule(dispatcher));
  return rules;
}

}  // namespace cutune::test
