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
  if (fastest) {
    if (!operation.untuned || *fastest == *operation.untuned) return *fastest;
    const BestConfig& lib = answers[*operation.untuned].choice;
    const bool template_won = *fastest >= operation.implementations.size() || !operation.implementations[*fastest].library;
    const bool within_noise = lib.match == Match::Exact && usable(lib.result.status) &&
                              lib.result.median_ms < kExactMargin * answers[*fastest].choice.result.median_ms;
    return template_won && within_noise ? *operation.untuned : *fastest;
  }
  if (!operation.untuned) return 0;
  std::size_t chosen = *operation.untuned;
  double best_margin = kTemplateMargin;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const ImplementationAnswer& a = answers[i];
    if (i == *operation.untuned || a.choice.match != Match::Predicted || !a.untuned_ms_there) continue;
    if (!(a.choice.result.median_ms > 0.0) || a.choice.distance > kTemplateReach) continue;
    const double margin = *a.untuned_ms_there / a.choice.result.median_ms;
    if (margin >= best_margin) chosen = i, best_margin = margin;
  }
  return chosen;
}

}  // namespace cutune::detail
