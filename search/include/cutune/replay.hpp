// Replay: measures a search strategy against a recorded space, where every configuration's outcome is already
// known, over many seeds, next to the exact expectations of random sampling without replacement.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/prior.hpp"
#include "cutune/search_inputs.hpp"
#include "cutune/space.hpp"

namespace cutune {

/// A space whose every configuration was measured before: the objective of a replay.
struct RecordedSpace {
  Space space;
  std::vector<std::optional<double>> times_ms;  ///< per configuration of `space`; nullopt: it failed

  /// The fastest time; throws InputError when the sizes disagree or no configuration succeeded.
  double optimum_ms() const;
  std::size_t failed() const;
};

struct ReplayOptions {
  std::vector<std::size_t> budgets = {25, 50, 100, 200, 400, 800};  ///< ascending; each run stops at the largest
  std::size_t seeds = 100;        ///< runs, seeded first_seed, first_seed + 1, ...
  std::uint64_t first_seed = 1;
  unsigned threads = 0;           ///< seeds run in parallel on this many threads; 0: every hardware thread
  /// Evaluations pending at once, as on several GPUs: the strategy is asked until it has proposed `batch`
  /// configurations (or proposes nothing more), then told all of them, in a seeded random order standing for the
  /// order in which they would complete, before it is asked again. The last batch is cut to the largest budget.
  std::size_t batch = 1;
  /// Configurations every run asks first, in order (start_first()): they count against the budget like any other.
  std::vector<std::size_t> start;
  /// What other GPUs measured of the same kernel (indices into `recorded.space`): the strategy learns from it
  /// (make_strategy()), and each run asks the `prior_first` fastest of each other GPU first, after `start`.
  Prior prior;
  std::size_t prior_first = kPriorFirst;
  /// What is known of each configuration before it is measured (search_inputs.hpp; launch_inputs() computes a spec's):
  /// the default strategy's initial design favours what it says (make_strategy()). Empty: nothing changes.
  SearchInputs inputs;
  /// Asked before each seed's run: true ends the replay with Interrupted (Ctrl-C, SIGTERM).
  std::function<bool()> stop;
};

/// The result of one strategy at one budget: medians over seeds of best found / optimum (nullopt: infinite, because
/// at least half of the runs found no working configuration), and the same for random sampling, computed exactly.
struct BudgetResult {
  std::size_t budget = 0;
  std::optional<double> median_relative_best;
  std::optional<double> random_median_relative_best;
};

struct ReplayResult {
  std::string strategy;
  std::size_t space_size = 0;
  std::size_t failed = 0;       ///< configurations of the space that failed
  double optimum_ms = 0.0;
  std::size_t seeds = 0;
  std::size_t batch = 1;        ///< evaluations pending at once (ReplayOptions::batch)
  std::vector<BudgetResult> budgets;
  /// Medians over seeds of the evaluations until the best found is within 5% (1%) of the optimum; a run that does
  /// not get there within the largest budget counts as that budget plus one.
  double median_evals_to_5pct = 0.0;
  double median_evals_to_1pct = 0.0;
  /// Each seed's evaluations to within 5% (1%), in seed order, counted as the medians count them.
  std::vector<double> evals_to_5pct;
  std::vector<double> evals_to_1pct;
  /// Expected evaluations of random sampling without replacement to get there (not capped by the budget).
  double random_evals_to_5pct = 0.0;
  double random_evals_to_1pct = 0.0;
};

/// Runs `strategy` (a make_strategy() name) once per seed, asking `options.batch` configurations at a time, for
/// exactly the largest budget (or until it proposes nothing more). Throws InputError for an unknown strategy, an
/// empty or unordered budget list, a batch of 0, or a recorded space without a working configuration.
ReplayResult replay(std::string_view strategy, const RecordedSpace& recorded, const ReplayOptions& options);

/// One run of `strategy` with seed `seed`, as replay() runs each seed: the configurations told, in the order told,
/// at most `budget` of them (fewer only when the strategy proposes nothing more). `start` is asked first, and the
/// strategy is made with `prior` and `inputs` (the prior's first proposals are the caller's to put into `start`). Throws
/// InputError for an unknown strategy or a batch of 0.
std::vector<std::size_t> replay_order(std::string_view strategy, const RecordedSpace& recorded, std::size_t budget,
                                      std::size_t batch, std::uint64_t seed, const std::vector<std::size_t>& start = {},
                                      const Prior& prior = {}, const SearchInputs& inputs = {});

/// The expected number of evaluations random sampling without replacement needs to first draw a configuration
/// within `tolerance` of the optimum (0.05: 5%): (N + 1) / (K + 1) for K such configurations among N.
double random_expected_evals(const RecordedSpace& recorded, double tolerance);
/// The median of best found / optimum after `budget` draws without replacement, or nullopt when that median is a
/// failure (more than half of such samples hold no working configuration).
std::optional<double> random_median_relative_best(const RecordedSpace& recorded, std::size_t budget);

/// The budgets 25, 50, 100, ... doubling below `largest`, then `largest` itself.
std::vector<std::size_t> doubling_budgets(std::size_t largest);

}  // namespace cutune
