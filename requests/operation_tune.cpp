// Tuning an operation (cutune/operation.hpp): every implementation at each shape, under one budget and one tuner,
// divided among them in turns by OperationBudget's rule.
#include <algorithm>

#include "base/log.hpp"
#include "cutune/operation_budget.hpp"
#include "cutune/requests.hpp"

namespace cutune {
namespace {

// One implementation's report of a shape over its turns: what each turn measured added up, the rest (best, space,
// failures among everything held) as the last turn found it.
void merge_turn(std::optional<ShapeReport>& into, ShapeReport turn) {
  if (!into) {
    into = std::move(turn);
    return;
  }
  ShapeReport& r = *into;
  turn.evaluated += r.evaluated;
  turn.resumed = r.resumed;  // a later turn's resumed are the earlier turns' measurements
  turn.interrupted += r.interrupted;
  turn.cache_hits += r.cache_hits;
  turn.compiled_ahead += r.compiled_ahead;
  turn.retimed += r.retimed;
  turn.seconds += r.seconds;
  turn.measure_seconds += r.measure_seconds;
  turn.verify_seconds += r.verify_seconds;
  turn.benchmark_seconds += r.benchmark_seconds;
  turn.idle_seconds += r.idle_seconds;
  PhaseTimes& p = turn.phases;
  const PhaseTimes& q = r.phases;
  p.wall_s += q.wall_s, p.startup_s += q.startup_s, p.compile_wait_s += q.compile_wait_s, p.measure_s += q.measure_s;
  p.search_s += q.search_s, p.store_s += q.store_s, p.other_s += q.other_s, p.compile_cpu_s += q.compile_cpu_s;
  for (std::size_t d = 0; d < turn.devices.size() && d < r.devices.size(); ++d) {
    turn.devices[d].measured += r.devices[d].measured;
    turn.devices[d].measure_seconds += r.devices[d].measure_seconds;
  }
  r = std::move(turn);
}

// One turn: the implementation tuned up to its share, and what the budget rule learns of it. `ahead`: configurations a
// later turn may add, which the tuner asks its search for and compiles while this one ends.
ShapeReport tune_turn(Tuner& tuner, const KernelSpec& spec, const Shape& shape, std::size_t share, std::size_t ahead,
                      ProgressTap* tap, TurnOutcome& outcome) {
  if (tap != nullptr) {
    *tap = [&outcome](const Progress& p) {  // the best right after the turn's first measurement
      if (!outcome.first_ms && p.done > p.resumed && p.best != nullptr) outcome.first_ms = p.best->median_ms;
    };
  }
  ShapeReport report;
  try {
    report = tuner.tune(spec, shape, share, ahead);
  } catch (...) {
    if (tap != nullptr) *tap = nullptr;
    throw;
  }
  if (tap != nullptr) *tap = nullptr;
  outcome.measured = report.evaluated;
  outcome.held = report.evaluated + report.resumed;
  outcome.seconds = report.seconds;
  if (report.best) outcome.best_ms = report.best->median_ms;
  return report;
}

// What a later round of a template may add after this turn, as far as the budget leaves one: the tuner compiles that
// much of its search's next proposals ahead (a library family compiles nothing).
std::size_t compile_ahead(const KernelSpec& spec, const OperationBudget& rule) {
  return spec.library ? 0 : rule.next_round_size();
}

}  // namespace

std::vector<std::size_t> operation_tuning_order(const OperationSpec& operation) {
  std::vector<std::size_t> order(operation.implementations.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(),
                        [&](std::size_t i) { return operation.implementations[i].library != nullptr; });
  return order;
}

std::vector<ShapeReport> tune_operation_shape(Tuner& tuner, const OperationSpec& operation, const Shape& shape,
                                              std::size_t budget, const TuneHooks& hooks, ProgressTap* tap) {
  const std::vector<std::size_t> order = operation_tuning_order(operation);
  OperationBudget rule(order, budget, operation_share_groups(operation));
  std::vector<std::optional<ShapeReport>> merged(operation.implementations.size());
  while (const std::optional<BudgetTurn> turn = rule.next()) {
    const KernelSpec& spec = operation.implementations[turn->implementation];
    detail::logger()->info("{} {}: {} to {} configurations ({})", operation.name, shape.str(), spec.name,
                           turn->share, turn->why);
    if (hooks.implementation) hooks.implementation(spec);
    TurnOutcome outcome;
    merge_turn(merged[turn->implementation],
               tune_turn(tuner, spec, shape, turn->share, compile_ahead(spec, rule), tap, outcome));
    rule.record(turn->implementation, outcome);
  }
  std::vector<ShapeReport> reports;
  for (const std::size_t i : order) reports.push_back(std::move(*merged[i]));  // every one had its first share
  return reports;
}

std::vector<ShapeReport> tune_operation(Tuner& tuner, const OperationSpec& operation, const std::vector<Shape>& shapes,
                                        std::size_t budget, const DeviceIdentity& identity, const Shape*& current,
                                        const TuneHooks& hooks, ProgressTap* tap) {
  std::vector<ShapeReport> reports;
  const std::vector<std::size_t> order = operation_tuning_order(operation);
  if (hooks.starting) hooks.starting();
  for (const std::size_t i : order) tuner.expect(operation.implementations[i], shapes);
  for (const Shape& shape : shapes) {
    current = &shape;
    std::vector<ShapeReport> at_shape = tune_operation_shape(tuner, operation, shape, budget, hooks, tap);
    for (std::size_t j = 0; j < at_shape.size(); ++j) {
      if (hooks.implementation) hooks.implementation(operation.implementations[order[j]]);
      if (hooks.report) hooks.report(identity, at_shape[j]);
      reports.push_back(std::move(at_shape[j]));
    }
  }
  return reports;
}

}  // namespace cutune
