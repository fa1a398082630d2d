// Random search: configurations drawn uniformly without replacement, the baseline every other strategy must beat.
#include <numeric>

#include "search_state.hpp"

namespace cutune::detail {
namespace {

// One seeded permutation of the space, walked in order: the configurations it proposes do not depend on what it
// was told, so a run resumed after observing what an earlier run stored ends with the same set as one run through.
class RandomStrategy final : public SearchStrategy {
 public:
  RandomStrategy(const Space& space, std::uint64_t seed) : SearchStrategy(space, seed), order_(index_.size()) {
    std::iota(order_.begin(), order_.end(), 0u);
    rng_.shuffle(order_);
  }
  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    for (; out.size() < n && next_ < order_.size(); ++next_) take(order_[next_], out);
    return out;
  }

 private:
  void on_told(std::size_t) override {}
  std::vector<std::uint32_t> order_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_random_strategy(const Space& space, std::uint64_t seed) {
  return std::make_unique<RandomStrategy>(space, seed);
}

}  // namespace cutune::detail
