// Genetic algorithm, steady state: each child is a uniform crossover of two parents chosen by tournament among the
// fastest configurations measured so far, mutated per parameter, and repaired to a valid, unasked configuration.
#include <algorithm>
#include <cmath>

#include "search_state.hpp"

namespace cutune::detail {
namespace {

constexpr std::size_t kPopulation = 20;  // the fastest measured configurations that may be parents
constexpr std::size_t kTournament = 3;
constexpr int kRepairAttempts = 32;

class GeneticStrategy final : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    update_population();
    while (out.size() < n && history_.unasked_count() > 0) {
      std::optional<std::size_t> child;
      const std::size_t asked = history_.size() - history_.unasked_count();
      if (asked >= kPopulation && population_.size() >= 2) child = breed();
      if (!child) child = history_.random_unasked(rng_);  // the first generation, and when breeding finds nothing new
      take(*child, out);
    }
    return out;
  }

 private:
  void on_told(std::size_t) override { stale_ = true; }

  void update_population() {
    if (!stale_) return;
    stale_ = false;
    population_.clear();
    for (std::uint32_t i : history_.told_order())
      if (std::isfinite(history_.value(i))) population_.push_back(i);
    const std::size_t keep = std::min(kPopulation, population_.size());
    std::partial_sort(population_.begin(), population_.begin() + static_cast<std::ptrdiff_t>(keep), population_.end(),
                      [this](std::uint32_t a, std::uint32_t b) { return history_.value(a) < history_.value(b); });
    population_.resize(keep);
  }

  std::size_t tournament() {
    std::size_t winner = population_[rng_.below(population_.size())];
    for (std::size_t k = 1; k < kTournament; ++k) {
      const std::size_t other = population_[rng_.below(population_.size())];
      if (history_.value(other) < history_.value(winner)) winner = other;
    }
    return winner;
  }

  std::optional<std::size_t> breed() {
    const std::size_t d = index_.dimensions();
    std::vector<std::uint16_t> child(d);
    const std::size_t a = tournament();
    for (int attempt = 0; attempt < kRepairAttempts; ++attempt) {
      const std::size_t b = tournament();
      const auto ca = index_.code(a), cb = index_.code(b);
      for (std::size_t p = 0; p < d; ++p) {
        child[p] = rng_.chance(0.5) ? ca[p] : cb[p];
        if (index_.levels(p) > 1 && rng_.chance(1.0 / static_cast<double>(d))) {
          child[p] = static_cast<std::uint16_t>((child[p] + 1 + rng_.below(index_.levels(p) - 1)) % index_.levels(p));
        }
      }
      if (const auto i = index_.find(child); i && !history_.asked(*i)) return *i;
    }
    // Crossover keeps landing on invalid or known configurations: mutate a parent by a short walk instead.
    for (int attempt = 0; attempt < 8; ++attempt)
      if (const auto i = random_walk(a, 1 + rng_.below(2))) return *i;
    return std::nullopt;
  }

  std::vector<std::uint32_t> population_;
  bool stale_ = true;
};

}  // namespace

std::unique_ptr<Strategy> make_genetic_strategy(const Space& space, std::uint64_t seed) {
  return std::make_unique<GeneticStrategy>(space, seed);
}

}  // namespace cutune::detail
