// Tuning an operation (cutune/operation.hpp): every implementation at each shape, under one budget and one tuner.
#include <algorithm>

#include "cutune/requests.hpp"

namespace cutune {

std::vector<std::size_t> operation_budgets(const OperationSpec& operation, std::size_t budget) {
  const auto& impls = operation.implementations;
  std::vector<std::size_t> out(impls.size(), 0);
  if (budget == 0) return out;
  const auto libraries = static_cast<std::size_t>(
      std::count_if(impls.begin(), impls.end(), [](const KernelSpec& s) { return s.library != nullptr; }));
  const std::size_t templates = impls.size() - libraries;
  const std::size_t library_share = templates == 0 ? budget : std::max<std::size_t>(1, budget / 4);
  std::size_t left = budget > library_share * libraries ? budget - library_share * libraries : 0;
  std::size_t template_index = 0;
  for (std::size_t i = 0; i < impls.size(); ++i) {
    if (impls[i].library) {
      out[i] = templates == 0 ? std::max<std::size_t>(1, budget / libraries) : library_share;
      continue;
    }
    // The rest evenly, the first templates taking what does not divide; each at least one configuration.
    const std::size_t share = left / templates + (template_index++ < left % templates ? 1 : 0);
    out[i] = std::max<std::size_t>(1, share);
  }
  return out;
}

std::vector<std::size_t> operation_tuning_order(const OperationSpec& operation) {
  std::vector<std::size_t> order(operation.implementations.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(),
                        [&](std::size_t i) { return operation.implementations[i].library != nullptr; });
  return order;
}

std::vector<ShapeReport> tune_operation(Tuner& tuner, const OperationSpec& operation, const std::vector<Shape>& shapes,
                                        std::size_t budget, const DeviceIdentity& identity, const Shape*& current,
                                        const TuneHooks& hooks) {
  std::vector<ShapeReport> reports;
  const std::vector<std::size_t> budgets = operation_budgets(operation, budget);
  const std::vector<std::size_t> order = operation_tuning_order(operation);
  if (hooks.starting) hooks.starting();
  for (const std::size_t i : order) tuner.expect(operation.implementations[i], shapes);
  for (const Shape& shape : shapes) {
    current = &shape;
    for (const std::size_t i : order) {
      const KernelSpec& spec = operation.implementations[i];
      if (hooks.implementation) hooks.implementation(spec);
      reports.push_back(tuner.tune(spec, shape, budgets[i]));
      if (hooks.report) hooks.report(identity, reports.back());
    }
  }
  return reports;
}

}  // namespace cutune
