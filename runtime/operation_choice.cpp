// The runtime's rule among an operation's implementations (operation_choice.hpp).
#include "operation_choice.hpp"

namespace cutune::detail {

std::size_t choose_implementation(const OperationSpec& operation, const std::vector<ImplementationAnswer>& answers) {
  std::optional<std::size_t> fastest;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const BestConfig& c = answers[i].choice;
    if (c.match != Match::Exact || !usable(c.result.status)) continue;
    if (!fastest || c.result.median_ms < answers[*fastest].choice.result.median_ms) fastest = i;
  }
  if (fastest) return *fastest;
  if (!operation.untuned) return 0;
  std::size_t chosen = *operation.untuned;
  double best_margin = kTemplateMargin;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const ImplementationAnswer& a = answers[i];
    if (i == *operation.untuned || a.choice.match != Match::Predicted || !a.untuned_ms_there) continue;
    // A library family's configuration names an answer or an algorithm at the shape it was measured at, not here.
    if (i < operation.implementations.size() && operation.implementations[i].library) continue;
    if (!(a.choice.result.median_ms > 0.0)) continue;
    const double margin = *a.untuned_ms_there / a.choice.result.median_ms;
    if (margin >= best_margin) chosen = i, best_margin = margin;
  }
  return chosen;
}

}  // namespace cutune::detail
