// Prior: what other GPUs measured for the same kernel, handed to a search over this GPU's space, both as first
// proposals (their winners) and as a hint for the default strategy's model.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cutune {

/// The outcomes one other GPU recorded for configurations of the space being searched.
struct SiblingTimes {
  std::string name;  ///< the other GPU, for messages
  /// (index into the space searched, time in ms or nullopt for a failure); configurations of the other GPU that are
  /// not in this space are left out, and each index appears at most once.
  std::vector<std::pair<std::size_t, std::optional<double>>> times;
};

/// Other GPUs' outcomes of the same kernel; empty: no prior, and every strategy behaves as without one.
struct Prior {
  std::vector<SiblingTimes> siblings;
  bool empty() const { return siblings.empty(); }
};

/// How many of each other GPU's fastest configurations a run proposes first, by default (bench/RESULTS.md, "A prior
/// from other GPUs", measures the choice).
inline constexpr std::size_t kPriorFirst = 2;

/// The configurations to propose first: each other GPU's fastest working configuration, then each one's second
/// fastest, and so on, `per_sibling` of each, repeats left out. Ties go to the lower index, so the list depends on
/// the outcomes only.
std::vector<std::size_t> prior_first(const Prior& prior, std::size_t per_sibling = kPriorFirst);
/// `start` (the user's own first configurations) followed by prior_first(), less what `start` holds already.
std::vector<std::size_t> with_prior_first(std::vector<std::size_t> start, const Prior& prior,
                                          std::size_t per_sibling = kPriorFirst);

}  // namespace cutune
