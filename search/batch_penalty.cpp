// Discounting candidates by their likeness, in the surrogate's trees, to configurations being evaluated.
#include "batch_penalty.hpp"

#include <algorithm>

namespace cutune::detail {

void PendingPenalty::reset(const Forest& forest, const Features& features, std::span<const std::uint32_t> candidates) {
  trees_ = forest.trees();
  leaves_.clear();
  leaves_.reserve(candidates.size() * trees_);
  for (std::uint32_t c : candidates) forest.leaves(features.row(c), leaves_);
  factor_.assign(candidates.size(), 1.0);
}

void PendingPenalty::clear() { std::fill(factor_.begin(), factor_.end(), 1.0); }

void PendingPenalty::add(const Forest& forest, const Features& features, std::size_t config) {
  if (trees_ == 0) return;
  scratch_.clear();
  forest.leaves(features.row(config), scratch_);
  for (std::size_t i = 0; i < factor_.size(); ++i) {
    const std::int32_t* leaves = leaves_.data() + i * trees_;
    std::size_t shared = 0;
    for (std::size_t t = 0; t < trees_; ++t) shared += leaves[t] == scratch_[t];
    factor_[i] *= 1.0 - static_cast<double>(shared) / static_cast<double>(trees_);
  }
}

}  // namespace cutune::detail
