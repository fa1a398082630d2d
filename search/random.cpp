// Random search: configurations drawn uniformly without replacement, the baseline every other strategy must beat.
#include "search_state.hpp"

namespace cutune::detail {
namespace {

class RandomStrategy final : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;
  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    fill_random(n, out);
    return out;
  }

 private:
  void on_told(std::size_t) override {}
};

}  // namespace

std::unique_ptr<Strategy> make_random_strategy(const Space& space, std::uint64_t seed) {
  return std::make_unique<RandomStrategy>(space, seed);
}

}  // namespace cutune::detail
