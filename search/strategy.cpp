// The strategy registry (every strategy's name, description and maker) and the exhaustive strategy.
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

namespace {

// A strategy that has no use for the prior or the search inputs.
template <std::unique_ptr<Strategy> (*make)(const Space&, std::uint64_t)>
std::unique_ptr<Strategy> plain(const Space& space, std::uint64_t seed, const Prior&, const SearchInputs&) {
  return make(space, seed);
}

std::unique_ptr<Strategy> make_exhaustive(const Space& space, std::uint64_t) {
  return std::make_unique<ExhaustiveStrategy>(space.size());
}

}  // namespace

const std::vector<StrategyEntry>& strategy_registry() {
  static const std::vector<StrategyEntry> registry = {
      {"exhaustive", "every configuration once, in the space's order", plain<make_exhaustive>},
      {"random", "configurations drawn uniformly without replacement", plain<detail::make_random_strategy>},
      {"annealing", "simulated annealing over parameter neighbourhoods", plain<detail::make_annealing_strategy>},
      {"genetic", "a steady-state genetic algorithm", plain<detail::make_genetic_strategy>},
      {"local_search", "iterated local search", plain<detail::make_local_search_strategy>},
      {"bayes", "Bayesian optimisation with a tree-ensemble surrogate", plain<detail::make_bayes_strategy>},
      {"portfolio",
       "the surrogate's expected improvement and model-guided refinement around the best, sharing one history, each "
       "rule given proposals in proportion to what it recently gained",
       detail::make_portfolio_strategy},
  };
  return registry;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const StrategyEntry& entry : strategy_registry()) names.emplace_back(entry.name);
  return names;
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
  for (const StrategyEntry& entry : strategy_registry())
    if (entry.name == name) return entry.make(space, seed, prior, inputs);
  std::string known;
  for (const auto& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown strategy '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace cutune
