// `tune report`: the HTML page of a database, narrowed by kernel, shape and GPU (the work is in cutune/report.hpp).
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "cutune/report.hpp"

namespace cutune::cli {
namespace {

struct ReportArgs {
  std::string db = "cutune.db";
  std::string output;
  ReportOptions options;
};

int run_report(const ReportArgs& args) {
  check_report_path(args.output);
  Database db = open_existing(args.db);
  write_report_file(db, args.options, args.output);
  std::cout << "report of " << args.db << " written to " << args.output << " ("
            << (std::filesystem::file_size(args.output) + 1023) / 1024 << " KiB; open it in a browser, no network "
            << "needed)\n";
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "write an HTML page of a database's results with plots (works offline)");
  cmd->add_option("--db", args->db, "SQLite database file")->capture_default_str();
  cmd->add_option("--output,-o", args->output, "the page to write, e.g. report.html")->required();
  cmd->add_option("--kernel,-k", args->options.kernel, "only this kernel (its name)");
  cmd->add_option("--shape,-s", args->options.shape, "only this shape, e.g. 4096x4096x4096");
  cmd->add_option("--gpu", args->options.gpu, "only this device, by its name as stored");
  cmd->add_option("--title", args->options.title, "the page's title (default: cutune report of the database file)");
  out.push_back({cmd, [args] { return run_report(*args); }});
}

}  // namespace cutune::cli
