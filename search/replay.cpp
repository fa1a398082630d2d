// Replaying strategies against recorded spaces, in parallel over seeds, and the exact statistics of random sampling.
#include "cutune/replay.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

#include "cutune/error.hpp"
#include "cutune/strategy.hpp"
#include "search_state.hpp"

namespace cutune {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The median as the mean of the two middle values for an even count, as statisticians report it.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  if (n % 2 == 1) return v[n / 2];
  const double a = v[n / 2 - 1], b = v[n / 2];
  return std::isinf(a) || std::isinf(b) ? std::max(a, b) : (a + b) / 2.0;
}

struct SeedRun {
  std::vector<double> best_at_budget;  // best time after each budget's evaluations, +inf while none worked
  double evals_to_5pct = 0.0;
  double evals_to_1pct = 0.0;
};

// The tell order within a batch: its own generator, so that a batch of one tells exactly what the strategy asked.
constexpr std::uint64_t kTellOrderStream = 0x5eed0f7e11ULL;

// Asks until `want` configurations are pending or the strategy has nothing more: a dispatcher with idle GPUs asks
// again when a strategy hands out fewer than it could (bayes ends its initial sample that way).
std::vector<std::size_t> ask_batch(Strategy& strategy, std::size_t want) {
  std::vector<std::size_t> batch;
  while (batch.size() < want) {
    const auto asked = strategy.ask(want - batch.size());
    if (asked.empty()) break;
    batch.insert(batch.end(), asked.begin(), asked.end());
  }
  return batch;
}

SeedRun run_seed(std::string_view strategy_name, const RecordedSpace& recorded, const std::vector<std::size_t>& budgets,
                 double optimum, std::uint64_t seed, std::size_t batch, const std::vector<std::size_t>& start,
                 const Prior& prior, const SearchInputs& inputs) {
  const std::size_t largest = budgets.back();
  SeedRun run;
  run.evals_to_5pct = run.evals_to_1pct = static_cast<double>(largest + 1);
  double best = kInfinity;
  std::size_t evals = 0, next_budget = 0;
  for (std::size_t index : replay_order(strategy_name, recorded, largest, batch, seed, start, prior, inputs)) {
    const auto& time = recorded.times_ms[index];
    ++evals;
    if (time && *time < best) best = *time;
    if (best <= optimum * 1.05 && evals < run.evals_to_5pct) run.evals_to_5pct = static_cast<double>(evals);
    if (best <= optimum * 1.01 && evals < run.evals_to_1pct) run.evals_to_1pct = static_cast<double>(evals);
    for (; next_budget < budgets.size() && budgets[next_budget] == evals; ++next_budget) run.best_at_budget.push_back(best);
  }
  // A strategy that ran out of configurations keeps its best for the larger budgets.
  while (run.best_at_budget.size() < budgets.size()) run.best_at_budget.push_back(best);
  return run;
}

std::vector<double> sorted_times(const RecordedSpace& recorded) {
  std::vector<double> t;
  for (const auto& time : recorded.times_ms)
    if (time) t.push_back(*time);
  std::sort(t.begin(), t.end());
  return t;
}

}  // namespace

std::vector<std::size_t> replay_order(std::string_view strategy_name, const RecordedSpace& recorded, std::size_t budget,
                                      std::size_t batch, std::uint64_t seed, const std::vector<std::size_t>& start,
                                      const Prior& prior, const SearchInputs& inputs) {
  if (batch == 0) throw InputError("replay needs a batch of at least one configuration");
  if (recorded.times_ms.size() != recorded.space.size()) recorded.optimum_ms();  // throws for the mismatch
  for (std::size_t i : start)
    if (i >= recorded.space.size()) throw InputError("start configuration " + std::to_string(i) + " is outside the space");
  auto strategy = start_first(make_strategy(strategy_name, recorded.space, seed, prior, inputs), start);
  detail::Rng tell_order(seed ^ kTellOrderStream);
  std::vector<std::size_t> told;
  while (told.size() < budget) {
    auto asked = ask_batch(*strategy, std::min(batch, budget - told.size()));
    if (asked.empty()) break;
    tell_order.shuffle(asked);
    for (std::size_t index : asked) {
      strategy->tell(index, recorded.times_ms.at(index));
      told.push_back(index);
    }
  }
  return told;
}

double RecordedSpace::optimum_ms() const {
  if (times_ms.size() != space.size()) {
    throw InputError("a recorded space of " + std::to_string(space.size()) + " configurations has " +
                     std::to_string(times_ms.size()) + " outcomes");
  }
  double best = kInfinity;
  for (const auto& t : times_ms)
    if (t) best = std::min(best, *t);
  if (std::isinf(best)) throw InputError("the recorded space has no working configuration");
  return best;
}

std::size_t RecordedSpace::failed() const {
  return static_cast<std::size_t>(std::count(times_ms.begin(), times_ms.end(), std::nullopt));
}

double random_expected_evals(const RecordedSpace& recorded, double tolerance) {
  const double limit = recorded.optimum_ms() * (1.0 + tolerance);
  const auto good = static_cast<double>(std::count_if(recorded.times_ms.begin(), recorded.times_ms.end(),
                                                      [limit](const auto& t) { return t && *t <= limit; }));
  return (static_cast<double>(recorded.times_ms.size()) + 1.0) / (good + 1.0);
}

std::optional<double> random_median_relative_best(const RecordedSpace& recorded, std::size_t budget) {
  const double optimum = recorded.optimum_ms();
  const std::vector<double> times = sorted_times(recorded);
  const std::size_t n = recorded.times_ms.size();
  if (budget >= n) return 1.0;
  // With every configuration ranked (failures last), the best of `budget` draws ranks beyond r with probability
  // C(n - r, budget) / C(n, budget); the median is the time of the smallest r where that drops to 1/2 or below.
  double beyond = 1.0;
  for (std::size_t r = 1; r <= times.size(); ++r) {
    beyond *= static_cast<double>(n - r + 1 - budget) / static_cast<double>(n - r + 1);
    if (beyond <= 0.5) return times[r - 1] / optimum;
  }
  return std::nullopt;
}

std::vector<std::size_t> doubling_budgets(std::size_t largest) {
  std::vector<std::size_t> out;
  for (std::size_t b = 25; b < largest; b *= 2) out.push_back(b);
  out.push_back(largest);
  return out;
}

ReplayResult replay(std::string_view strategy, const RecordedSpace& recorded, const ReplayOptions& options) {
  const auto& budgets = options.budgets;
  if (budgets.empty() || budgets.front() == 0 || !std::is_sorted(budgets.begin(), budgets.end()) ||
      std::adjacent_find(budgets.begin(), budgets.end()) != budgets.end()) {
    throw InputError("replay budgets must be positive and strictly ascending");
  }
  if (options.seeds == 0) throw InputError("replay needs at least one seed");
  if (options.batch == 0) throw InputError("replay needs a batch of at least one configuration");
  const double optimum = recorded.optimum_ms();
  make_strategy(strategy, recorded.space, options.first_seed);  // an unknown name fails here, not in a thread
  const std::vector<std::size_t> start = with_prior_first(options.start, options.prior, options.prior_first);

  std::vector<SeedRun> runs(options.seeds);
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto worker = [&] {
    for (std::size_t s; (s = next++) < options.seeds && !failed;) {
      if (options.stop && options.stop()) {
        if (!failed.exchange(true)) error = std::make_exception_ptr(Interrupted("interrupted"));
        break;
      }
      try {
        runs[s] = run_seed(strategy, recorded, budgets, optimum, options.first_seed + s, options.batch, start,
                           options.prior, options.inputs);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
  };
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(options.threads ? options.threads : hw, options.seeds));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);

  ReplayResult result;
  result.strategy = std::string(strategy);
  result.space_size = recorded.space.size();
  result.failed = recorded.failed();
  result.optimum_ms = optimum;
  result.seeds = options.seeds;
  result.batch = options.batch;
  for (std::size_t b = 0; b < budgets.size(); ++b) {
    std::vector<double> relative;
    for (const auto& run : runs) relative.push_back(run.best_at_budget[b] / optimum);
    const double m = median(std::move(relative));
    result.budgets.push_back({budgets[b], std::isinf(m) ? std::nullopt : std::optional<double>(m),
                              random_median_relative_best(recorded, budgets[b])});
  }
  for (const auto& run : runs) result.evals_to_5pct.push_back(run.evals_to_5pct), result.evals_to_1pct.push_back(run.evals_to_1pct);
  result.median_evals_to_5pct = median(result.evals_to_5pct);
  result.median_evals_to_1pct = median(result.evals_to_1pct);
  result.random_evals_to_5pct = random_expected_evals(recorded, 0.05);
  result.random_evals_to_1pct = random_expected_evals(recorded, 0.01);
  return result;
}

}  // namespace cutune
