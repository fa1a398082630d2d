// The `tune` command line: parses options with CLI11, sets up logging, and turns errors into one line and exit 1.
#include <CLI/CLI.hpp>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <type_traits>
#include <variant>

#ifdef CUTUNE_HAVE_MPI
#include "cluster/transport.hpp"
#endif
#include "commands.hpp"
#include "cutune/error.hpp"
#include "cutune/stop.hpp"
#include "cutune/strategy.hpp"

namespace {

std::string join_args(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) out += (i ? " " : "") + std::string(argv[i]);
  return out;
}

void setup_logging() {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("cutune", sink);
  logger->set_pattern("%^%l%$: %v");
  logger->set_level(spdlog::level::warn);
  spdlog::register_logger(logger);
  spdlog::set_default_logger(logger);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=info shows what the tuner is doing
}

// "90", "90s", "5m", "1h" (also fractions, "1.5h") as seconds; anything else is an InputError.
double parse_duration(const std::string& text) {
  const auto bad = [&text] {
    return cutune::InputError("--time '" + text + "' is not a duration (e.g. 90, 90s, 5m, 1h)");
  };
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  if (!(value > 0.0) || !std::isfinite(value) || !std::isdigit(static_cast<unsigned char>(text.front()))) throw bad();
  const std::string unit = text.substr(used);
  if (unit.empty() || unit == "s") return value;
  if (unit == "m") return value * 60.0;
  if (unit == "h") return value * 3600.0;
  throw bad();
}

}  // namespace

extern "C" void on_interrupt(int) {
  // A second Ctrl-C while the first is being handled ends the program at once.
  std::signal(SIGINT, SIG_DFL);
  cutune::request_stop();
}

namespace {

using namespace cutune::cli;
using cutune::TuneRequest;

// The options whose text is checked and turned into TuneRequest after parsing.
struct TuneTexts {
  std::string time_budget;
  bool no_flush = false;
};

// A tolerance is a finite number >= 0; CLI11's own range check would print the largest double in its message.
std::string tolerance_error(const std::string& text) {
  std::size_t used = 0;
  double value = -1.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  return used == text.size() && value >= 0.0 && std::isfinite(value) ? "" : "'" + text + "' is not a number >= 0";
}

// What to tune: the kernel and the shapes.
void add_target_options(CLI::App& app, TuneRequest& tune) {
  auto* kernel_option =
      app.add_option("--kernel,-k", tune.kernel, "built-in kernel name (see `tune list`) or a spec file (.json)");
  app.add_option("--spec", tune.spec, "a kernel spec file of your own (same as --kernel FILE.json)")
      ->excludes(kernel_option);
  app.add_option("--problem", tune.problem, "a T1 tuning-problem file; tunes its ProblemSize (--shapes not needed)")
      ->excludes(kernel_option)
      ->excludes("--spec");
  app.add_option("--shapes,-s", tune.shapes, "comma-separated shapes, e.g. 8192x8192,4000x3000");
  app.add_flag("--wanted", tune.wanted,
               "tune the shapes applications asked the runtime for on this GPU that have no result yet (`tune "
               "wanted` lists them): of --kernel, else of every built-in kernel with such shapes");
  add_where_option(app, tune.where);
  app.add_option("--follow", tune.follow,
                 "a parameter that changes what is computed (a filter's width, a number of time steps): each "
                 "configuration is verified against the reference configuration at its own value of it (repeatable; "
                 "the spec's \"reference\".\"follow\", so the kernel's version changes)");
}

// Where results go and which GPUs measure.
void add_place_options(CLI::App& app, TuneRequest& tune) {
  app.add_option("--db", tune.db, "SQLite database file")->capture_default_str();
  auto* device_option = app.add_option("--device", tune.device, "CUDA device ordinal (the same as --devices N)")
                            ->capture_default_str();
  app.add_option("--devices", tune.devices,
                 "GPUs to tune on at once, all of one model: all, or ordinals such as 0,2 (default: --device)")
      ->excludes(device_option);
}

void add_search_options(CLI::App& app, TuneRequest& tune, TuneTexts& texts) {
  std::string strategies;
  for (const auto& name : cutune::strategy_names()) strategies += (strategies.empty() ? "" : ", ") + name;
  app.add_option("--strategy", tune.options.strategy,
                 "search strategy: " + strategies + " (default " + std::string(cutune::kDefaultStrategy) +
                     ": Bayesian optimisation and refinement around the best configuration, with evaluations moved to whichever "
                     "pays, because no single strategy is best on every space; how it compares with the others and with "
                     "Kernel Tuner's, on the spaces it was developed on and on others: docs/search.md; exhaustive is as "
                     "good when the budget covers the whole space)");
  app.add_option("--seed", tune.options.seed, "the strategy's random seed: the same seed, space, outcomes and cubin cache "
                                      "give the same proposals")->capture_default_str();
  app.add_option("--start", tune.options.start,
                 "a configuration to evaluate first, e.g. one that won on another GPU (repeatable; after the spec's "
                 "own \"start\" list; at a shape where it is not valid, the nearest valid configuration, one parameter "
                 "changed, instead, or nothing)");
  app.add_flag("!--no-prior", tune.options.prior,
               "ignore what the database holds of this kernel version and shape on other GPUs (by default, the two "
               "fastest of each of up to three are evaluated first, after --start, and the default strategy's model "
               "learns from their results)");
  app.add_option("--time", texts.time_budget, "wall-time budget per shape, e.g. 90, 90s, 5m, 1h (default: no limit)");
}

// `--<name>` (dashes for underscores) for each row of a table of numbers (kTuneOptionFields, kMeasureOptionFields),
// bound to its member of `options`, with its range.
template <typename Options, typename Fields>
void add_number_options(CLI::App& app, Options& options, const Fields& fields) {
  for (const auto& f : fields) {
    std::string name = "--" + std::string(f.name);
    std::replace(name.begin(), name.end(), '_', '-');
    std::visit([&](auto member) {
      using Number = std::remove_reference_t<decltype(options.*member)>;  // whole numbers say so in --help
      app.add_option(name, options.*member, std::string(f.help))
          ->capture_default_str()
          ->check(CLI::Range(static_cast<Number>(f.least), static_cast<Number>(f.most)));
    }, f.member);
  }
}

void add_measure_options(CLI::App& app, TuneRequest& tune, TuneTexts& texts) {
  app.add_option("--jobs,-j", tune.options.compile_threads, "compile threads (0: every core)")->capture_default_str();
  add_number_options(app, tune.options, cutune::kTuneOptionFields);
  add_number_options(app, tune.options.measure, cutune::kMeasureOptionFields);
  auto* flush_option = add_flush_option(
      app, tune.flush,
      "L2 state before each timed launch: read (a buffer twice the L2 size is read: clean lines), write (a 256 MB "
      "memset: dirty lines, as nvbench and Triton's do_bench), none (back-to-back launches); default: the spec's "
      "\"measure\", else read. Results are stored under it and compared only with results of the same one");
  app.add_flag("--no-flush", texts.no_flush, "the same as --flush none")->excludes(flush_option);
  app.add_option("--verify", tune.verify,
                 "what each configuration's outputs are compared with: reference (the spec's reference kernel or "
                 "configuration), default (the kernel at its default configuration) or none (not compared: results "
                 "are stored as unverified); default: the spec's \"verify\", else reference")
      ->check(CLI::IsMember({"reference", "default", "none"}));
  app.add_option("--atol", tune.options.measure.atol,
                 "absolute tolerance of every output, in place of the spec's: |out - ref| <= atol + rtol * |ref|")
      ->check(tolerance_error);
  app.add_option("--rtol", tune.options.measure.rtol, "relative tolerance of every output, in place of the spec's")
      ->check(tolerance_error);
}

// How the run compiles, isolates candidates and splits the space.
void add_run_options(CLI::App& app, TuneRequest& tune) {
  app.add_option("--cache-dir", tune.options.cache_dir, "cubin cache folder (default: $CUTUNE_CACHE_DIR, else $XDG_CACHE_HOME/cutune, else ~/.cache/cutune)");
  app.add_flag("!--no-cache", tune.options.use_cache, "compile everything afresh, without the cubin cache");
  app.add_flag("!--no-isolate", tune.options.isolate, "measure in this process instead of a worker process (a faulting "
                                              "candidate then ends the run)");
  add_shard_option(app, tune.shard);
  app.add_option("--timeout-floor", tune.options.timeout_floor_s, "seconds a configuration gets at least before it counts as hung")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

void add_subcommands(CLI::App& app, Subcommands& subcommands) {
  add_best_command(app, subcommands);
  add_list_command(app, subcommands);
  add_space_command(app, subcommands);
  add_compile_command(app, subcommands);
  add_db_command(app, subcommands);
  add_replay_command(app, subcommands);
  add_report_command(app, subcommands);
  add_wanted_command(app, subcommands);
}

// Checks the texts into `tune`, then runs the subcommand that was given, else tuning.
int dispatch(TuneRequest& tune, const TuneTexts& texts, const Subcommands& subcommands) {
  if (!texts.time_budget.empty()) tune.options.time_budget_s = parse_duration(texts.time_budget);
  if (texts.no_flush) tune.flush = "none";
  check_tune_request(tune);  // a bad option fails before any subcommand runs
  for (const auto& sub : subcommands)
    if (sub.app->parsed()) return sub.action();
  if (!tune.wanted && tune.problem.empty() && ((tune.kernel.empty() && tune.spec.empty()) || tune.shapes.empty())) {
    std::cerr << "error: tuning needs --kernel (or --spec) and --shapes, or --problem, or --wanted "
                 "(e.g. tune --kernel transpose --shapes 8192x8192); see tune --help\n";
    return 2;
  }
  cutune::announce_on_terminate("interrupted: every configuration measured so far is stored in " + tune.db +
                                 "; run the same command again to resume\n");
#ifdef CUTUNE_HAVE_MPI
  const bool named = !tune.kernel.empty() || !tune.spec.empty() || !tune.problem.empty();
  if (tune.wanted && !named && cutune::cluster::launched_by_mpi()) {
    throw cutune::InputError("under mpirun / srun, --wanted tunes one kernel: name it with --kernel");
  }
#endif
  return tune.wanted ? run_wanted(tune) : run_tune(tune);
}

// Errors become one line and an exit status: 130 for an interruption, 1 for the rest.
int run_reporting_errors(TuneRequest& tune, const TuneTexts& texts, const Subcommands& subcommands) {
  try {
    return dispatch(tune, texts, subcommands);
  } catch (const cutune::Interrupted&) {
    if (!cutune::termination_announced()) {
      std::cerr << "interrupted: every configuration measured so far is stored in " << tune.db
                << "; run the same command again to resume\n";
    }
    return 130;
  } catch (const cutune::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: unexpected: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cutune::cli;
  using cutune::TuneRequest;
  setup_logging();
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);  // a tuning run answers it at once instead (announce_on_terminate in dispatch)
  CLI::App app{"cutune: tune CUDA kernel templates and keep the best configurations in SQLite"};
  app.name("tune");
  app.require_subcommand(0, 1);

  TuneRequest tune;
  tune.options.command = join_args(argc, argv);
  TuneTexts texts;
  add_target_options(app, tune);
  add_place_options(app, tune);
  add_search_options(app, tune, texts);
  add_measure_options(app, tune, texts);
  add_run_options(app, tune);
  Subcommands subcommands;
  add_subcommands(app, subcommands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return run_reporting_errors(tune, texts, subcommands);
}
