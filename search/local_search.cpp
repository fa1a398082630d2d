// Iterated local search: first-improvement hill climbing over parameter neighbourhoods, restarted by a short random
// walk from the best configuration found (or, now and then, from a random one) when a local optimum is reached.
#include <cmath>

#include "search_state.hpp"

namespace cutune::detail {
namespace {

constexpr double kRandomRestart = 0.2;  // share of restarts from a random configuration instead of near the best
constexpr std::size_t kMinKick = 2, kMaxKick = 3;  // Hamming steps of a perturbation

class LocalSearchStrategy final : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    while (out.size() < n && history_.unasked_count() > 0) {
      if (current_) {
        // Neighbours of the current point in random order; the first one told better becomes the current point.
        while (!queue_.empty() && out.size() < n) {
          const std::size_t next = queue_.back();
          queue_.pop_back();
          take(next, out);
        }
        if (out.size() == n) break;
        current_.reset();  // every neighbour asked: a local optimum, unless one still pending improves on it
      }
      out.push_back(restart_point());
    }
    return out;
  }

 private:
  void on_told(std::size_t index) override {
    const double v = history_.value(index);
    if (!std::isfinite(v)) return;
    if (!current_ || v < history_.value(*current_)) move_to(index);
  }

  void move_to(std::size_t index) {
    current_ = index;
    queue_.clear();
    scratch_.clear();
    index_.hamming_neighbours(index, scratch_);
    for (std::uint32_t i : scratch_)
      if (!history_.asked(i)) queue_.push_back(i);
    rng_.shuffle(queue_);
  }

  // An unasked configuration to climb from: a kick away from the best so far, else a random one. Marks it asked.
  std::size_t restart_point() {
    const auto best = history_.best();
    if (best && !rng_.chance(kRandomRestart)) {
      for (int attempt = 0; attempt < 8; ++attempt) {
        const std::size_t steps = kMinKick + rng_.below(kMaxKick - kMinKick + 1);
        if (const auto p = random_walk(*best, steps)) {
          history_.mark_asked(*p);
          return *p;
        }
      }
    }
    const std::size_t p = *history_.random_unasked(rng_);
    history_.mark_asked(p);
    return p;
  }

  std::optional<std::size_t> current_;
  std::vector<std::uint32_t> queue_;
};

}  // namespace

std::unique_ptr<Strategy> make_local_search_strategy(const Space& space, std::uint64_t seed) {
  return std::make_unique<LocalSearchStrategy>(space, seed);
}

}  // namespace cutune::detail
