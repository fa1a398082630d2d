// Bayesian optimisation with a tree-ensemble surrogate: after a random initial sample, proposals maximise the
// expected improvement of log(time) predicted by extremely randomised trees fitted to the outcomes so far, and while
// other proposals are still being evaluated, they are Thompson samples of the trees.
#include <algorithm>
#include <cmath>

#include "search_state.hpp"
#include "surrogate.hpp"

namespace cutune::detail {
namespace {

constexpr std::size_t kInitialSample = 20;
// Larger spaces score a random subset of the unasked configurations plus the neighbourhoods of the best ones,
// which keeps each proposal to milliseconds on 10^5 configurations.
constexpr ScoredCandidates::Sizes kSizes{1500, 1000, 10};

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
      model_.fit(history_, rng_);
      scored_.rank(model_, index_, history_, rng_, kSizes);
    }
    // Between fits the scores of the last one are followed; a candidate set used up is redone with fresh candidates.
    // With nothing pending, the candidate of highest expected improvement; while others are pending (the rest of a
    // batch, or configurations still being measured), a Thompson sample: the best candidate of one tree drawn at
    // random, so that the batch spreads over what different trees find promising instead of piling onto the spot
    // the ensemble likes best (bench/RESULTS.md, batched search, compares it with the plain ranking).
    scored_.discount_pending(model_, history_);
    for (int round = 0; round < 2 && out.size() < n; ++round) {
      if (round == 1) scored_.rank(model_, index_, history_, rng_, kSizes);
      while (out.size() < n) {
        const bool sample = !out.empty() || !history_.pending().empty();
        const auto pick = sample ? thompson_candidate() : scored_.best(history_);
        if (!pick) break;
        take(scored_.config(*pick), out);
        scored_.add_pending(model_, scored_.config(*pick));
      }
    }
    fill_random(n, out);
    return out;
  }

 private:
  void on_told(std::size_t) override {}

  // The unasked candidate that one tree drawn at random predicts fastest. A tree predicts one value per leaf, so
  // ties are many: they go to the highest expected improvement discounted by likeness to pending configurations.
  std::optional<std::size_t> thompson_candidate() {
    const std::size_t t = rng_.below(model_.forest().trees());
    std::optional<std::size_t> best;
    double best_value = 0.0, best_score = 0.0;
    for (std::size_t i = 0; i < scored_.size(); ++i) {
      if (history_.asked(scored_.config(i))) continue;
      const double value = model_.forest().leaf_value(scored_.leaf(i, t));
      const double score = scored_.score(i);
      if (!best || value < best_value || (value == best_value && score > best_score)) {
        best = i;
        best_value = value;
        best_score = score;
      }
    }
    return best;
  }

  Surrogate model_{index_};
  ScoredCandidates scored_;
};

}  // namespace

std::unique_ptr<Strategy> make_bayes_strategy(const Space& space, std::uint64_t seed) {
  return std::make_unique<BayesStrategy>(space, seed);
}

}  // namespace cutune::detail
