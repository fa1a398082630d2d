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
/// How much faster than the untuned implementation (the library), both measured at the shape, a template must be to
/// be launched in its place: a smaller lead is within what two tuning runs differ by (about 1% on an H200 at shapes
/// of more than 20 us), and the library is what an application compares with.
inline constexpr double kExactMargin = 1.01;
/// How near the shape a prediction comes from must be (BestConfig::distance, the Euclidean distance between the logs
/// of the dimensions: 0.5 is one dimension 1.65x, or all three 1.33x, off) for its margin to count as evidence. A
/// template's standing against the library changes with the shape: measured on an H200, one that beat cuBLASLt by 8%
/// at 8192x8192x8192 ran at 0.72x of cuBLAS at 3000x3000x3000 (distance 1.74), one that beat it by 13% at
/// 16x4096x4096 at 0.47x at 128x128x16384.
inline constexpr double kTemplateReach = 0.5;

/// One implementation's answer at the requested shape.
struct ImplementationAnswer {
  BestConfig choice;  ///< choose_config()'s
  /// For a Predicted choice: the untuned implementation's best time at the shape the prediction comes from (same GPU,
  /// same L2 convention), ms; unset when it was not measured there.
  std::optional<double> untuned_ms_there;
};

/// The implementation to launch (an index into operation.implementations), given each one's answer in that order:
/// the fastest of those measured at this very shape (Match::Exact), the fastest library family there unless a template
/// beat it by kExactMargin; else, with an untuned implementation, that one, unless a template's prediction comes from
/// a shape within kTemplateReach where it beat the untuned implementation by kTemplateMargin (the largest such margin
/// wins; a library family is never launched by a prediction); else the first implementation.
std::size_t choose_implementation(const OperationSpec& operation, const std::vector<ImplementationAnswer>& answers);

}  // namespace cutune::detail
