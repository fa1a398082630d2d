// The runtime's rule among an operation's implementations (operation_choice.hpp).
#include "operation_choice.hpp"

namespace cutune::detail {

namespace {

bool is_library(const OperationSpec& operation, std::size_t i) {
  return i < operation.implementations.size() && operation.implementations[i].library != nullptr;
}

// The fastest implementation measured at the shape, optionally among library families only.
std::optional<std::size_t> fastest_exact(const OperationSpec& operation, const std::vector<ImplementationAnswer>& answers,
                                         bool libraries_only) {
  std::optional<std::size_t> fastest;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const BestConfig& c = answers[i].choice;
    if (c.match != Match::Exact || !usable(c.result.status) || (libraries_only && !is_library(operation, i))) continue;
    if (!fastest || c.result.median_ms < answers[*fastest].choice.result.median_ms) fastest = i;
  }
  return fastest;
}

}  // namespace

std::size_t choose_implementation(const OperationSpec& operation, const std::vector<ImplementationAnswer>& answers) {
  if (const auto fastest = fastest_exact(operation, answers, false)) {
    if (is_library(operation, *fastest)) return *fastest;
    // A template's lead within kExactMargin is within what two tuning runs differ by: the library's stays.
    const auto library = fastest_exact(operation, answers, true);
    const bool within_noise = library && answers[*library].choice.result.median_ms <
                                             kExactMargin * answers[*fastest].choice.result.median_ms;
    return within_noise ? *library : *fastest;
  }
  if (!operation.untuned) return 0;
  std::size_t chosen = *operation.untuned;
  double best_margin = kTemplateMargin;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const ImplementationAnswer& a = answers[i];
    if (i == *operation.untuned || a.choice.match != Match::Predicted || !a.untuned_ms_there) continue;
    // A library family's configuration names an answer or an algorithm at the shape it was measured at, not here.
    if (is_library(operation, i)) continue;
    if (!(a.choice.result.median_ms > 0.0) || a.choice.distance > kTemplateReach) continue;
    const double margin = *a.untuned_ms_there / a.choice.result.median_ms;
    if (margin >= best_margin) chosen = i, best_margin = margin;
  }
  return chosen;
}

}  // namespace cutune::detail
