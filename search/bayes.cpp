// Bayesian optimisation with a tree-ensemble surrogate: after a random initial sample, proposals maximise the
// expected improvement of log(time) predicted by extremely randomised trees fitted to the outcomes so far, and while
// other proposals are still being evaluated, they are Thompson samples of the trees.
#include <algorithm>
#include <cmath>

#include "batch_penalty.hpp"
#include "search_state.hpp"
#include "surrogate.hpp"

namespace cutune::detail {
namespace {

constexpr std::size_t kInitialSample = 20;
// Larger spaces score a random subset of the unasked configurations plus the neighbourhoods of the best ones,
// which keeps each proposal to milliseconds on 10^5 configurations.
constexpr std::size_t kMaxCandidates = 1500;
constexpr std::size_t kRandomCandidates = 1000;
constexpr std::size_t kLocalCentres = 10;

class BayesStrategy final : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    const std::size_t asked = history_.size() - history_.unasked_count();
    if (asked < kInitialSample || !history_.best()) {
      fill_random(std::min(n, std::max<std::size_t>(kInitialSample - std::min(asked, kInitialSample), 1)), out);
      return out;
    }
    if (model_.stale(history_)) {
      model_.fit(index_, history_, rng_);
      rank();
    }
    // Between fits the scores of the last one are followed; a candidate set used up is redone with fresh candidates.
    // With nothing pending, the candidate of highest expected improvement; while others are pending (the rest of a
    // batch, or configurations still being measured), a Thompson sample: the best candidate of one tree drawn at
    // random, so that the batch spreads over what different trees find promising instead of piling onto the spot
    // the ensemble likes best (bench/RESULTS.md, batched search, compares it with the plain ranking).
    discount_pending();
    for (int round = 0; round < 2 && out.size() < n; ++round) {
      if (round == 1) rank();
      while (out.size() < n) {
        const bool sample = !out.empty() || !history_.pending().empty();
        const auto pick = sample ? thompson_candidate() : best_candidate();
        if (!pick) break;
        take(candidates_[*pick], out);
        penalty_.add(model_.forest(), index_, candidates_[*pick]);
      }
    }
    fill_random(n, out);
    return out;
  }

 private:
  void on_told(std::size_t) override {}

  // The position in candidates_ of the unasked candidate with the highest discounted expected improvement (ties: the
  // lowest configuration index), or nullopt when every candidate was asked.
  std::optional<std::size_t> best_candidate() const {
    std::optional<std::size_t> best;
    double best_score = 0.0;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      if (history_.asked(candidates_[i])) continue;
      const double score = improvement_[i] * penalty_.factor(i);
      if (!best || score > best_score || (score == best_score && candidates_[i] < candidates_[*best])) {
        best = i;
        best_score = score;
      }
    }
    return best;
  }

  // The unasked candidate that one tree drawn at random predicts fastest. A tree predicts one value per leaf, so
  // ties are many: they go to the highest expected improvement discounted by likeness to pending configurations.
  std::optional<std::size_t> thompson_candidate() {
    const std::size_t t = rng_.below(model_.forest().trees());
    std::optional<std::size_t> best;
    double best_value = 0.0, best_score = 0.0;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      if (history_.asked(candidates_[i])) continue;
      const double value = model_.forest().leaf_value(penalty_.leaf(i, t));
      const double score = improvement_[i] * penalty_.factor(i);
      if (!best || value < best_value || (value == best_value && score > best_score)) {
        best = i;
        best_value = value;
        best_score = score;
      }
    }
    return best;
  }

  // Scores a fresh candidate set by expected improvement.
  void rank() {
    candidates_ = candidate_set();
    const double best = log_time(history_.value(*history_.best()));
    improvement_.clear();
    for (std::uint32_t c : candidates_) {
      double mean = 0.0, stddev = 0.0;
      model_.forest().predict(index_.code(c), mean, stddev);
      improvement_.push_back(expected_improvement(best, mean, stddev));
    }
    penalty_.reset(model_.forest(), index_, candidates_);
    discount_pending();
  }

  void discount_pending() {
    penalty_.clear();
    for (std::uint32_t p : history_.pending()) penalty_.add(model_.forest(), index_, p);
  }

  std::vector<std::uint32_t> candidate_set() {
    std::vector<std::uint32_t> out;
    if (history_.unasked_count() <= kMaxCandidates) {
      for (std::size_t i = 0; i < history_.size(); ++i)
        if (!history_.asked(i)) out.push_back(static_cast<std::uint32_t>(i));
      return out;
    }
    for (std::size_t k = 0; k < kRandomCandidates; ++k) out.push_back(static_cast<std::uint32_t>(*history_.random_unasked(rng_)));
    std::vector<std::uint32_t> told(history_.told_order());
    const std::size_t centres = std::min(kLocalCentres, told.size());
    std::partial_sort(told.begin(), told.begin() + static_cast<std::ptrdiff_t>(centres), told.end(),
                      [this](std::uint32_t a, std::uint32_t b) { return history_.value(a) < history_.value(b); });
    for (std::size_t c = 0; c < centres; ++c) {
      scratch_.clear();
      index_.hamming_neighbours(told[c], scratch_);
      for (std::uint32_t i : scratch_)
        if (!history_.asked(i)) out.push_back(i);
    }
    // Random draws and neighbourhoods overlap; scoring a configuration twice would let it be taken twice.
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  Surrogate model_;
  std::vector<std::uint32_t> candidates_;
  std::vector<double> improvement_;  // expected improvement of each candidate under the last fit
  PendingPenalty penalty_;
};

}  // namespace

std::unique_ptr<Strategy> make_bayes_strategy(const Space& space, std::uint64_t seed) {
  return std::make_unique<BayesStrategy>(space, seed);
}

}  // namespace cutune::detail
