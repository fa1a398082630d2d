// The strategy registry and the exhaustive strategy.
#include "cutune/strategy.hpp"

#include <algorithm>

#include "cutune/error.hpp"
#include "search_state.hpp"

namespace cutune {

std::vector<std::size_t> ExhaustiveStrategy::ask(std::size_t n) {
  std::vector<std::size_t> out;
  for (; out.size() < n && next_ < known_.size(); ++next_) {
    if (!known_[next_]) out.push_back(next_);
  }
  return out;
}

void ExhaustiveStrategy::observe(std::size_t index, std::optional<double>) {
  if (index >= known_.size() || index < next_ || known_[index]) {
    throw InputError("observed configuration " + std::to_string(index) + " was already asked or is out of range");
  }
  known_[index] = true;
}

std::vector<std::string> strategy_names() {
  return {"exhaustive", "random", "annealing", "genetic", "local_search", "bayes", "portfolio"};
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, const Space& space, std::uint64_t seed) {
  return make_strategy(name, space, seed, Prior{});
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, const Space& space, std::uint64_t seed, const Prior& prior) {
  return make_strategy(name, space, seed, prior, SearchInputs{});
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, const Space& space, std::uint64_t seed, const Prior& prior,
                                        const SearchInputs& inputs) {
  if (!inputs.empty() && inputs.values.size() != inputs.names.size() * space.size()) {
    throw InputError("search inputs hold " + std::to_string(inputs.values.size()) + " values, not " +
                     std::to_string(inputs.names.size()) + " for each of " + std::to_string(space.size()) +
                     " configurations");
  }
  for (std::size_t k : inputs.favour_high) {
    if (k >= inputs.names.size()) {
      throw InputError("search inputs favour input " + std::to_string(k) + " of " + std::to_string(inputs.names.size()));
    }
  }
  if (name == "exhaustive") return std::make_unique<ExhaustiveStrategy>(space.size());
  if (name == "random") return detail::make_random_strategy(space, seed);
  if (name == "annealing") return detail::make_annealing_strategy(space, seed);
  if (name == "genetic") return detail::make_genetic_strategy(space, seed);
  if (name == "local_search") return detail::make_local_search_strategy(space, seed);
  if (name == "bayes") return detail::make_bayes_strategy(space, seed);
  if (name == "portfolio") return detail::make_portfolio_strategy(space, seed, prior, inputs);
  std::string known;
  for (const auto& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown strategy '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace cutune
