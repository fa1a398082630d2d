// Diversity within a batch for Bayesian optimisation: a candidate the surrogate cannot tell apart from a configuration
// already being evaluated is worth less, in proportion to how alike the surrogate's trees find the two.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "forest.hpp"
#include "search_state.hpp"

namespace cutune::detail {

/// Discount factors for a fixed set of candidates. The likeness of two configurations is the share of the forest's
/// trees in which they fall into the same leaf: where it is 1 every tree predicts the same for both, so evaluating
/// one while the other is pending mostly repeats it. Each pending configuration multiplies a candidate's factor by
/// 1 - likeness (local penalisation of batch Bayesian optimisation, with the forest's own similarity as the kernel).
class PendingPenalty {
 public:
  /// Takes the candidates' leaves in `forest` and sets every factor to 1.
  void reset(const Forest& forest, const Features& features, std::span<const std::uint32_t> candidates);
  /// Sets every factor back to 1, keeping the candidates.
  void clear();
  /// Discounts every candidate by its likeness to `config`, a configuration now being evaluated.
  void add(const Forest& forest, const Features& features, std::size_t config);
  /// The factor of the candidate at position `i` of the set given to reset().
  double factor(std::size_t i) const { return factor_[i]; }
  /// The leaf of candidate `i` in tree `t`.
  std::int32_t leaf(std::size_t i, std::size_t t) const { return leaves_[i * trees_ + t]; }

 private:
  std::size_t trees_ = 0;
  std::vector<std::int32_t> leaves_;  // per candidate, its leaf in each tree
  std::vector<double> factor_;
  std::vector<std::int32_t> scratch_;
};

}  // namespace cutune::detail
