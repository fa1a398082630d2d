// What the model-based strategies (bayes, portfolio) share: the surrogate's fit to the outcomes so far, its refit
// schedule, and the expected improvement that ranks candidates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "batch_penalty.hpp"
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
  /// A model over `index`'s level codes; `index` must outlive it.
  explicit Surrogate(const SpaceIndex& index) : features_(level_codes(index)) {}
  Surrogate(const Surrogate&) = delete;
  Surrogate& operator=(const Surrogate&) = delete;
  /// Lets the trees split on what other GPUs measured as well (`columns` from prior_columns(); empty: nothing
  /// changes). Before the first fit.
  void add_columns(const SpaceIndex& index, const std::vector<std::uint16_t>& columns);

  /// Whether outcomes grew enough since the last fit to refit: every outcome up to 100, then after a 1/50 growth,
  /// which keeps a run over a whole large space cheap next to the GPU time it stands for.
  bool stale(const History& history) const;
  void fit(const History& history, Rng& rng);
  const Forest& forest() const { return forest_; }
  /// What the trees split on, per configuration.
  const Features& features() const { return features_; }
  /// The trees' mean and spread at a configuration.
  void predict(std::size_t config, double& mean, double& stddev) const { forest_.predict(features_.row(config), mean, stddev); }
  /// Outcomes the model was last fitted to; 0 before the first fit.
  std::size_t fitted() const { return fitted_; }

 private:
  Features features_;
  std::vector<std::uint16_t> with_prior_;  // level codes and prior columns, when a prior was added
  Forest forest_;
  std::vector<double> y_;
  std::size_t fitted_ = 0;
};

}  // namespace cutune::detail

namespace cutune::detail {

/// The `k` fastest configurations told so far, fastest first (failures, if any are among them, last).
std::vector<std::uint32_t> fastest_told(const History& history, std::size_t k);

/// Of `ranked` (rating, configuration) pairs, lower ratings better, the best-rated configuration that `ready` accepts
/// among those rated at most `limit`, asking `ready` about at most `checks` of them in order; nullopt when none is.
/// Sorts `ranked` and drops repeated pairs.
std::optional<std::uint32_t> best_ready(std::vector<std::pair<double, std::uint32_t>>& ranked, double limit,
                                        const std::function<bool(std::size_t)>& ready, std::size_t checks);

/// A set of unasked candidates scored by a surrogate's expected improvement, with the discount for likeness to
/// configurations being evaluated (PendingPenalty).
class ScoredCandidates {
 public:
  struct Sizes {
    std::size_t score_all;  ///< with at most this many unasked configurations, every one is a candidate
    std::size_t random;     ///< else this many random unasked ones ...
    std::size_t centres;    ///< ... and the unasked one-parameter neighbours of this many fastest told ones
  };
  /// Draws a fresh set and scores it under `model`; the discount covers what is pending in `history`.
  void rank(const Surrogate& model, const SpaceIndex& index, const History& history, Rng& rng, const Sizes& sizes);
  /// Recomputes the discount from what is pending in `history` now.
  void discount_pending(const Surrogate& model, const History& history);
  /// Discounts every candidate by its likeness to `config`, just proposed.
  void add_pending(const Surrogate& model, std::size_t config) { penalty_.add(model.forest(), model.features(), config); }

  /// The position of the unasked candidate with the highest score (ties: the lowest configuration index), or nullopt
  /// when every candidate was asked.
  std::optional<std::size_t> best(const History& history) const;

  std::size_t size() const { return candidates_.size(); }
  std::uint32_t config(std::size_t i) const { return candidates_[i]; }
  /// Expected improvement times the pending discount.
  double score(std::size_t i) const { return improvement_[i] * penalty_.factor(i); }
  /// The leaf of candidate `i` in tree `t` of the model ranked with.
  std::int32_t leaf(std::size_t i, std::size_t t) const { return penalty_.leaf(i, t); }

 private:
  std::vector<std::uint32_t> candidates_;
  std::vector<double> improvement_;  // expected improvement of each candidate under the model ranked with
  PendingPenalty penalty_;
  std::vector<std::uint32_t> scratch_;
};

}  // namespace cutune::detail
