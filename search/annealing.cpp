// Simulated annealing over parameter neighbourhoods: a worse neighbour is accepted with probability
// exp(-log-ratio / temperature), the temperature cools per evaluation and is reset, from the best configuration,
// when the search stagnates.
#include <cmath>

#include "search_state.hpp"

namespace cutune::detail {
namespace {

// Temperatures are in units of log(time): 0.1 accepts a 10% slower neighbour with probability ~0.39.
constexpr double kStartTemperature = 0.1;
constexpr double kMinTemperature = 0.002;
constexpr double kCooling = 0.98;              // per evaluation
constexpr std::size_t kStagnation = 60;        // evaluations without a new best before reheating

class AnnealingStrategy final : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    while (out.size() < n && history_.unasked_count() > 0) {
      std::optional<std::size_t> next;
      if (current_) next = unasked_neighbour(*current_);
      if (!next && current_) {
        for (int attempt = 0; attempt < 8 && !next; ++attempt) next = random_walk(*current_, 2 + rng_.below(2));
      }
      if (!next) next = history_.random_unasked(rng_);
      take(*next, out);
    }
    return out;
  }

 private:
  std::optional<std::size_t> unasked_neighbour(std::size_t from) {
    scratch_.clear();
    index_.hamming_neighbours(from, scratch_);
    std::vector<std::uint32_t> open;
    for (std::uint32_t i : scratch_)
      if (!history_.asked(i)) open.push_back(i);
    if (open.empty()) return std::nullopt;
    return open[rng_.below(open.size())];
  }

  void on_told(std::size_t index) override {
    const double v = log_time(history_.value(index));
    temperature_ = std::max(kMinTemperature, temperature_ * kCooling);
    const bool new_best = history_.best() == index;
    since_best_ = new_best ? 0 : since_best_ + 1;
    if (since_best_ >= kStagnation && history_.best()) {
      temperature_ = kStartTemperature;
      current_ = history_.best();
      since_best_ = 0;
      return;
    }
    if (!std::isfinite(v)) return;
    if (!current_) {
      current_ = index;
      return;
    }
    const double delta = v - log_time(history_.value(*current_));
    if (delta <= 0.0 || rng_.chance(std::exp(-delta / temperature_))) current_ = index;
  }

  std::optional<std::size_t> current_;
  double temperature_ = kStartTemperature;
  std::size_t since_best_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_annealing_strategy(const Space& space, std::uint64_t seed) {
  return std::make_unique<AnnealingStrategy>(space, seed);
}

}  // namespace cutune::detail
