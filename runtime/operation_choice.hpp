// Which implementation of an operation the runtime launches at a shape: the rule, apart from the database and the GPU.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "cutune/database.hpp"
#include "cutune/operation.hpp"

namespace cutune::detail {

/// How much faster than the untuned implementation (the library) a template must have been, both measured at the
/// shape its prediction comes from, for the template to be launched at a shape nobody tuned.
inline constexpr double kTemplateMargin = 1.05;

/// One implementation's answer at the requested shape.
struct ImplementationAnswer {
  BestConfig choice;  ///< choose_config()'s
  /// For a Predicted choice: the untuned implementation's best time at the shape the prediction comes from (same GPU,
  /// same L2 convention), ms; unset when it was not measured there.
  std::optional<double> untuned_ms_there;
};

/// The implementation to launch (an index into operation.implementations), given each one's answer in that order:
/// the fastest of those measured at this very shape (Match::Exact); else, with an untuned implementation, that one,
/// unless a template's prediction comes from a shape where it beat the untuned implementation by kTemplateMargin
/// (the largest such margin wins; a library family is never launched by a prediction); else the first implementation.
std::size_t choose_implementation(const OperationSpec& operation, const std::vector<ImplementationAnswer>& answers);

}  // namespace cutune::detail
