// What the model-based strategies (bayes, portfolio) share: the surrogate's fit to the outcomes so far, its refit
// schedule, and the expected improvement that ranks candidates.
#pragma once

#include <cstddef>
#include <vector>

#include "forest.hpp"
#include "search_state.hpp"

namespace cutune::detail {

/// The expected amount by which a normal(mean, stddev) outcome undercuts `best` (all in log time).
double expected_improvement(double best, double mean, double stddev);

/// The tree ensemble fitted to a history's outcomes, in log time, with every outcome slower than the median (failures
/// included) learnt as the median: the model's resolution is spent on telling good configurations apart, not on how
/// bad the bad ones are (bench/RESULTS.md, search strategies).
class Surrogate {
 public:
  /// Whether outcomes grew enough since the last fit to refit: every outcome up to 100, then after a 1/50 growth,
  /// which keeps a run over a whole large space cheap next to the GPU time it stands for.
  bool stale(const History& history) const;
  void fit(const SpaceIndex& index, const History& history, Rng& rng);
  const Forest& forest() const { return forest_; }
  /// Outcomes the model was last fitted to; 0 before the first fit.
  std::size_t fitted() const { return fitted_; }

 private:
  Forest forest_;
  std::vector<double> y_;
  std::size_t fitted_ = 0;
};

}  // namespace cutune::detail
