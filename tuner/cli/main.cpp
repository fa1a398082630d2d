// The `tune` command line: parses options with CLI11, sets up logging, and turns errors into one line and exit 1.
#include <CLI/CLI.hpp>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "cutune/error.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  using namespace cutune::cli;
  setup_logging();
  CLI::App app{"cutune: tune CUDA kernel templates and keep the best configurations in SQLite"};
  app.name("tune");
  app.require_subcommand(0, 1);

  TuneArgs tune;
  tune.command_line = join_args(argc, argv);
  app.add_option("--kernel,-k", tune.kernel, "built-in kernel name (see `tune list`) or a spec file (.json)");
  app.add_option("--shapes,-s", tune.shapes, "comma-separated shapes, e.g. 8192x8192,4000x3000");
  app.add_option("--db", tune.db, "SQLite database file")->capture_default_str();
  app.add_option("--device", tune.device, "CUDA device ordinal")->capture_default_str();
  app.add_option("--strategy", tune.strategy, "search strategy")->capture_default_str();
  app.add_option("--jobs,-j", tune.jobs, "compile threads (0: every core)")->capture_default_str();
  app.add_option("--repeats", tune.measure.repeats, "timed runs per configuration")->capture_default_str()->check(CLI::Range(1, 100000));
  app.add_option("--warmup", tune.measure.warmup, "untimed runs before timing")->capture_default_str()->check(CLI::Range(0, 100000));
  app.add_flag("!--no-flush", tune.measure.flush_l2, "do not flush the L2 cache between timed runs");

  Subcommands subcommands;
  add_best_command(app, subcommands);
  add_list_command(app, subcommands);
  add_space_command(app, subcommands);
  add_compile_command(app, subcommands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    for (const auto& sub : subcommands)
      if (sub.app->parsed()) return sub.action();
    if (tune.kernel.empty() || tune.shapes.empty()) {
      std::cerr << "error: tuning needs --kernel and --shapes (e.g. tune --kernel transpose --shapes 8192x8192); see tune --help\n";
      return 2;
    }
    return run_tune(tune);
  } catch (const cutune::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: unexpected: " << e.what() << "\n";
    return 1;
  }
}
