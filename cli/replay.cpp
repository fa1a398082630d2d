// `tune replay`: measures search strategies against a Kernel Tuner cache, a real kernel's recorded search space.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <unordered_map>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "replay_inputs.hpp"
#include "cutune/error.hpp"
#include "cutune/kt_cache.hpp"
#include "cutune/prior.hpp"
#include "cutune/replay.hpp"
#include "cutune/report.hpp"
#include "cutune/stop.hpp"
#include "cutune/strategy.hpp"

namespace cutune::cli {
namespace {

struct ReplayArgs {
  std::string cache;
  std::string strategy = "all";
  std::size_t budget = 800;
  std::size_t seeds = 100;
  std::string batch = "1";  ///< evaluations pending at once; text, so that a bad value gets this command's message
  bool json = false;
  bool valid_only = false;  ///< drop the configurations that failed, as Kernel Tuner's tune_cache does
  bool per_seed = false;    ///< with --json, each seed's evaluations to 5% and 1% as well
  std::vector<std::string> priors;  ///< other caches of the same kernel (other GPUs): the prior
  std::size_t prior_first = kPriorFirst;
  std::string report;  ///< an HTML page of the convergence curves, besides the tables
  ReplayKernel kernel;  ///< the kernel and shape the cache was recorded of, when given
};

RecordedSpace recorded_space(const KtCache& cache, bool valid_only) {
  std::vector<Config> configs;
  RecordedSpace recorded;
  for (const auto& r : cache.records) {
    if (valid_only && !r.time_ms) continue;
    configs.push_back(r.config);
    recorded.times_ms.push_back(r.time_ms);
  }
  recorded.space = Space::from_configs(cache.parameter_values(), std::move(configs));
  return recorded;
}

// Key of a configuration for matching records across caches.
std::string config_key(const Config& c) {
  std::string key;
  for (const auto& v : c.values) key += v.str() + ",";
  return key;
}

// What `other` (the same kernel on another GPU) recorded for the configurations of `recorded`'s space.
SiblingTimes sibling_of(const std::string& path, const KtCache& cache, const RecordedSpace& recorded) {
  const KtCache other = read_kt_cache(path);
  if (other.parameter_names() != cache.parameter_names()) {
    throw InputError("--prior " + path + ": its parameters differ from --cache's (not the same kernel)");
  }
  std::unordered_map<std::string, std::size_t> index_of;
  const auto& configs = recorded.space.configs();
  for (std::size_t i = 0; i < configs.size(); ++i) index_of.emplace(config_key(configs[i]), i);
  SiblingTimes sibling{other.device_name.empty() ? path : other.device_name, {}};
  for (const auto& r : other.records) {
    const auto it = index_of.find(config_key(r.config));
    if (it != index_of.end()) sibling.times.emplace_back(it->second, r.time_ms);
  }
  return sibling;
}

// ", prior from A, B (2 fastest of each first)" for the header line; empty without a prior.
std::string prior_note(const Prior& prior, std::size_t first) {
  if (prior.empty()) return {};
  std::string names;
  for (const auto& s : prior.siblings) names += (names.empty() ? "" : ", ") + s.name;
  return ", prior from " + names + " (" + (first ? std::to_string(first) + " fastest of each first" : "model only") + ")";
}

std::string fixed(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

std::string ratio(const std::optional<double>& r) { return r ? fixed(*r, 3) : "fail"; }

// Evaluation counts are medians over seeds: whole numbers unless two middle runs differ.
std::string count(double v) { return v == std::floor(v) ? fixed(v, 0) : fixed(v, 1); }

nlohmann::ordered_json count_json(double v) {
  if (v == std::floor(v)) return static_cast<std::int64_t>(v);
  return v;
}

void print_table(const ReplayResult& r, std::size_t largest) {
  std::string header = "  budget               ", strategy_row = "  median best/optimum  ", random_row = "  random (exact)       ";
  for (const auto& b : r.budgets) {
    char cell[32];
    std::snprintf(cell, sizeof cell, "%8zu", b.budget);
    header += cell;
    std::snprintf(cell, sizeof cell, "%8s", ratio(b.median_relative_best).c_str());
    strategy_row += cell;
    std::snprintf(cell, sizeof cell, "%8s", ratio(b.random_median_relative_best).c_str());
    random_row += cell;
  }
  auto evals = [largest](double v) { return v > static_cast<double>(largest) ? "> " + std::to_string(largest) : count(v); };
  std::cout << "strategy " << r.strategy << "\n"
            << header << "\n"
            << strategy_row << "\n"
            << random_row << "\n"
            << "  evaluations to within 5%: median " << evals(r.median_evals_to_5pct) << " (random "
            << fixed(r.random_evals_to_5pct, 0) << ")\n"
            << "  evaluations to within 1%: median " << evals(r.median_evals_to_1pct) << " (random "
            << fixed(r.random_evals_to_1pct, 0) << ")\n\n";
}

// A whole number from 1 to 2^20 (more pending evaluations than that is no GPU machine's), or one InputError.
std::size_t parse_batch(const std::string& text) {
  constexpr std::size_t kMaxBatch = std::size_t{1} << 20;
  std::size_t value = 0;
  bool ok = !text.empty() && text.size() <= 7;
  for (char c : text) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  if (!ok || value == 0 || value > kMaxBatch) {
    throw InputError("--batch '" + text + "' is not a number of configurations from 1 to " + std::to_string(kMaxBatch));
  }
  return value;
}

// The checked --batch; the other numbers and the report's path are checked before any work too.
std::size_t checked_batch(const ReplayArgs& args) {
  const std::size_t batch = parse_batch(args.batch);
  if (args.budget == 0) throw InputError("--budget must be at least 1");
  if (args.seeds == 0) throw InputError("--seeds must be at least 1");
  if (!args.report.empty()) check_report_path(args.report);  // before the replay's work, not after
  return batch;
}

// "all", or names separated by commas; an unknown name fails before any work.
std::vector<std::string> chosen_strategies(const std::string& text, const Space& space) {
  if (text == "all") return strategy_names();
  std::vector<std::string> strategies;
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    strategies.push_back(text.substr(begin, end - begin));
    make_strategy(strategies.back(), space, 1);
    begin = end + 1;
  }
  return strategies;
}

ReplayOptions replay_options(const ReplayArgs& args, std::size_t batch, const KtCache& cache,
                             const RecordedSpace& recorded) {
  ReplayOptions options;
  options.budgets = doubling_budgets(args.budget);
  options.seeds = args.seeds;
  options.batch = batch;
  for (const auto& path : args.priors) options.prior.siblings.push_back(sibling_of(path, cache, recorded));
  options.prior_first = args.prior_first;
  add_kernel_knowledge(args.kernel, cache, recorded, options);
  return options;
}

void print_header(const ReplayArgs& args, const KtCache& cache, const RecordedSpace& recorded,
                  const ReplayOptions& options) {
  std::cout << "replay of " << (cache.kernel_name.empty() ? "a kernel" : cache.kernel_name) << " on "
            << (cache.device_name.empty() ? "an unnamed device" : cache.device_name) << " (" << args.cache << "): "
            << recorded.space.size() << " configurations, " << recorded.failed() << " failed, optimum "
            << recorded.optimum_ms() << " ms, " << args.seeds << " seeds"
            << (options.batch > 1 ? ", " + std::to_string(options.batch) + " evaluations pending at once" : std::string())
            << prior_note(options.prior, options.prior_first)
            << (options.inputs.empty() ? "" : ", the launch's waves of " + args.kernel.kernel + " at " + args.kernel.shape)
            << (options.start.empty() ? "" : ", " + std::to_string(options.start.size()) + " start configurations first")
            << (cache.truncated ? " (the cache file was cut off; read up to its last whole record)" : "") << "\n\n";
}

void write_report(const ReplayArgs& args, const KtCache& cache, std::size_t batch,
                  const std::vector<ReplayResult>& results) {
  const std::string kernel = cache.kernel_name.empty() ? "a kernel" : cache.kernel_name;
  const std::string pending = batch > 1 ? ", " + std::to_string(batch) + " pending at once" : "";
  write_replay_report_file(results, {"replay of " + kernel + (cache.device_name.empty() ? "" : " on " + cache.device_name) + pending,
                                     args.cache},
                           args.report);
}

nlohmann::ordered_json result_json(const ReplayResult& r, bool per_seed, std::uint64_t first_seed) {
  auto budgets = nlohmann::ordered_json::array();
  for (const auto& b : r.budgets) {
    budgets.push_back({{"budget", b.budget},
                       {"median_relative_best", b.median_relative_best ? nlohmann::ordered_json(*b.median_relative_best) : nlohmann::ordered_json()}});
  }
  nlohmann::ordered_json out = {{"strategy", r.strategy},
                                {"space_size", r.space_size},
                                {"batch", r.batch},
                                {"optimum", r.optimum_ms},
                                {"budgets", budgets},
                                {"median_evals_to_5pct", count_json(r.median_evals_to_5pct)},
                                {"median_evals_to_1pct", count_json(r.median_evals_to_1pct)},
                                {"random_evals_to_5pct", r.random_evals_to_5pct},
                                {"random_evals_to_1pct", r.random_evals_to_1pct}};
  if (per_seed) {
    auto seeds = nlohmann::ordered_json::array();
    for (std::size_t s = 0; s < r.evals_to_5pct.size(); ++s) {
      seeds.push_back({{"seed", first_seed + s},
                       {"evals_to_5pct", count_json(r.evals_to_5pct[s])},
                       {"evals_to_1pct", count_json(r.evals_to_1pct[s])}});
    }
    out["per_seed"] = seeds;
  }
  return out;
}

void print_summary(const std::vector<ReplayResult>& results) {
  std::cout << "summary: median evaluations to within 5% / 1% of the optimum (random sampling: "
            << fixed(results.front().random_evals_to_5pct, 0) << " / " << fixed(results.front().random_evals_to_1pct, 0) << ")\n";
  for (const auto& r : results) {
    char line[128];
    std::snprintf(line, sizeof line, "  %-14s %8s %8s\n", r.strategy.c_str(), count(r.median_evals_to_5pct).c_str(),
                  count(r.median_evals_to_1pct).c_str());
    std::cout << line;
  }
}

int run_replay(const ReplayArgs& args) {
  const std::size_t batch = checked_batch(args);
  const KtCache cache = read_kt_cache(args.cache);
  const RecordedSpace recorded = recorded_space(cache, args.valid_only);
  const std::vector<std::string> strategies = chosen_strategies(args.strategy, recorded.space);
  ReplayOptions options = replay_options(args, batch, cache, recorded);
  if (!args.json) print_header(args, cache, recorded, options);
  std::vector<ReplayResult> results;
  options.stop = stop_requested;
  try {
    for (const auto& name : strategies) {
      results.push_back(replay(name, recorded, options));
      if (!args.json) print_table(results.back(), args.budget);
    }
  } catch (const Interrupted&) {
    std::cerr << "interrupted: the replay stopped (a replay stores nothing)\n";
    return 130;
  }
  if (!args.report.empty()) write_report(args, cache, batch, results);
  if (args.json) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& r : results) out.push_back(result_json(r, args.per_seed, options.first_seed));
    std::cout << out.dump(2) << "\n";
  } else if (results.size() > 1) {
    print_summary(results);
  }
  return 0;
}

}  // namespace

void add_replay_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<ReplayArgs>();
  auto* cmd = app.add_subcommand("replay", "measure search strategies on a Kernel Tuner cache file (no GPU needed)");
  cmd->add_option("--cache", args->cache, "Kernel Tuner cache file (.json or .json.gz)")->required();
  cmd->add_option("--strategy", args->strategy, "a strategy name, several separated by commas, or all")->capture_default_str();
  cmd->add_option("--budget", args->budget, "largest evaluation budget; tables show 25, 50, 100, ... up to it")->capture_default_str();
  cmd->add_option("--seeds", args->seeds, "runs per strategy, seeded 1, 2, ...")->capture_default_str();
  cmd->add_option("--batch", args->batch,
                  "configurations asked before any outcome is told, as with that many GPUs (told in a seeded random "
                  "order)")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print JSON, one object per strategy, instead of tables");
  cmd->add_flag("--valid-only", args->valid_only,
                "replay on the configurations that worked only, as Kernel Tuner's tune_cache does (failed ones are "
                "left out of the space instead of costing an evaluation)");
  cmd->add_flag("--per-seed", args->per_seed, "with --json, add each seed's evaluations to within 5% and 1%");
  cmd->add_option("--prior", args->priors,
                  "another cache of the same kernel (another GPU; repeatable): every run evaluates its fastest "
                  "configurations first and the default strategy's model learns from all of it, as `tune` does with "
                  "other GPUs' results in the database");
  cmd->add_option("--prior-first", args->prior_first,
                  "how many of each --prior's fastest configurations are evaluated first (0: none, the model's prior "
                  "only)")
      ->capture_default_str();
  cmd->add_option("--report", args->report, "also write an HTML page of the strategies' convergence curves");
  cmd->add_option("--kernel", args->kernel.kernel,
                  "the cutune kernel (built-in name or spec file) the cache was recorded of: the default strategy then "
                  "draws its first proposals from the launches whose waves keep the GPU busiest, as `tune` does; needs "
                  "--shape");
  cmd->add_option("--shape", args->kernel.shape, "with --kernel: the shape the cache was recorded at");
  cmd->add_option("--sm-count", args->kernel.sm_count, "with --kernel: the recording GPU's multiprocessors")
      ->capture_default_str();
  cmd->add_flag("--start", args->kernel.start, "with --kernel: every run asks the spec's start configurations first, as `tune` does");
  cmd->add_flag("--no-inputs", args->kernel.no_inputs,
                "with --kernel: leave the launch's waves out of the search (its start configurations stay)");
  out.push_back({cmd, [args] { return run_replay(*args); }});
}

}  // namespace cutune::cli
