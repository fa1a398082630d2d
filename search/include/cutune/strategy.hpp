// Strategy: proposes which configurations of a space to evaluate next, as a small ask/tell object.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/prior.hpp"
#include "cutune/search_inputs.hpp"
#include "cutune/space.hpp"

namespace cutune {

/// The tuner asks for configurations (indices into the space), evaluates them, and tells each outcome.
class Strategy {
 public:
  virtual ~Strategy() = default;
  /// Up to `n` indices never asked before; fewer, or none, when the strategy has nothing more to propose.
  virtual std::vector<std::size_t> ask(std::size_t n) = 0;
  /// The outcome of an asked index: its time in ms, or nullopt when the configuration failed.
  virtual void tell(std::size_t index, std::optional<double> time_ms) = 0;
  /// An outcome known without asking (a result an earlier run stored): recorded as if asked and told, so that the
  /// index is never proposed and a model-based strategy learns from it. Throws InputError for an index already
  /// asked or out of range.
  virtual void observe(std::size_t index, std::optional<double> time_ms) = 0;
  /// Says which configurations cost far less to evaluate than the others (compiled already: the tuner passes what its
  /// cubin cache holds). A strategy may then propose one of them instead of a candidate it rates about as well, so
  /// that a repeated run, whose measured times differ a little from the first's, asks mostly for what the first one
  /// compiled, and later shapes for what earlier ones compiled. Proposals then depend on what `ready` says as well;
  /// `portfolio` uses it, the other strategies ignore it (the default), and without a call nothing changes.
  virtual void prefer_ready(std::function<bool(std::size_t)> ready) { (void)ready; }
  /// How many of its proposals may wait for their outcomes at once without costing the search much: the tuner's
  /// compile lookahead asks no further ahead (and compiles upcoming() ones on its spare threads instead). An
  /// outcome-blind strategy, the default, takes any number.
  virtual std::size_t ahead() const { return std::numeric_limits<std::size_t>::max(); }
  /// Up to `n` configurations it is likely to propose soon, none asked yet, found without asking (nothing changes, so
  /// proposals are the same whether or not this is called): the tuner compiles them into the cubin cache while its
  /// compile pool has spare threads, and prefer_ready() then lets the strategy take them. The default: none.
  virtual std::vector<std::size_t> upcoming(std::size_t n) const {
    (void)n;
    return {};
  }
};

/// Every configuration once, in the space's order.
class ExhaustiveStrategy final : public Strategy {
 public:
  explicit ExhaustiveStrategy(std::size_t space_size) : known_(space_size, false) {}
  std::vector<std::size_t> ask(std::size_t n) override;
  void tell(std::size_t, std::optional<double>) override {}
  void observe(std::size_t index, std::optional<double> time_ms) override;

 private:
  std::vector<bool> known_;  // observed, so never proposed
  std::size_t next_ = 0;
};

/// No single strategy wins on every space, so the default is a portfolio that moves its proposals to whichever of its
/// rules is paying (how it compares with the others and with Kernel Tuner's: docs/search.md). Exhaustive search
/// remains the right choice when the budget covers the whole space.
inline constexpr std::string_view kDefaultStrategy = "portfolio";

/// One strategy: the name make_strategy() takes, what it does in a line, and how it is made over a space with a seed,
/// what other GPUs measured (prior.hpp) and what is known of each configuration before it is measured
/// (search_inputs.hpp); a strategy without a use for the prior or the inputs ignores them.
struct StrategyEntry {
  std::string_view name;
  std::string_view description;
  std::unique_ptr<Strategy> (*make)(const Space& space, std::uint64_t seed, const Prior& prior,
                                    const SearchInputs& inputs);
};
/// Every strategy, the one place each is named and made (as Kernel Tuner's strategy map): make_strategy(),
/// strategy_names(), `tune --strategy` and `tune replay` read it.
const std::vector<StrategyEntry>& strategy_registry();
/// The registry's names, in its order.
std::vector<std::string> strategy_names();
/// `inner`, preceded by the configurations `first` (indices into the same space, in order; repeats are asked once):
/// they are proposed before anything `inner` proposes, and their outcomes reach `inner` as observations (or as its
/// own outcomes, if it proposed one of them meanwhile), so a model-based strategy learns from them and no
/// configuration is evaluated twice. A configuration observed before it is asked is not asked. With no `first`,
/// `inner` itself.
std::unique_ptr<Strategy> start_first(std::unique_ptr<Strategy> inner, std::vector<std::size_t> first);

/// A strategy by name over `space`; deterministic for a given seed. Throws InputError for an unknown name.
/// Every strategy but exhaustive proposes each valid configuration at most once and stops proposing (ask returns
/// nothing) only when the whole space was asked; a failure (tell with nullopt) is never taken as a good point.
std::unique_ptr<Strategy> make_strategy(std::string_view name, const Space& space, std::uint64_t seed);
/// The same, with what other GPUs measured of the same kernel (prior.hpp): `portfolio`'s model learns from it, the
/// other strategies ignore it, and an empty prior changes nothing. The prior's winners are not proposed by the
/// strategy: put prior_first() into start_first() for that.
std::unique_ptr<Strategy> make_strategy(std::string_view name, const Space& space, std::uint64_t seed, const Prior& prior);
/// The same, with what is known of each configuration of `space` before it is measured (search_inputs.hpp: for a
/// kernel, how full its launch's waves keep the GPU): `portfolio` draws its initial design from the configurations
/// that the inputs favour; the other strategies ignore them, and empty inputs change nothing. Throws InputError when
/// `inputs` does not hold one row per configuration or favours an input it does not have.
std::unique_ptr<Strategy> make_strategy(std::string_view name, const Space& space, std::uint64_t seed, const Prior& prior,
                                        const SearchInputs& inputs);

}  // namespace cutune
