// `tune db merge|export|import|stats`: options only; the work is in the library (cutune/exchange.hpp).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "cutune/foreign.hpp"

namespace cutune::cli {

namespace {

struct DbArgs {
  std::string db = "cutune.db";
  std::vector<std::string> inputs;
  std::string output;
  std::string format;
  std::string file;
  ForeignContext foreign;  // import only: what T4 files and caches do not say
  ExportSelection selection;  // export only
  std::string flush;          // export only: --flush, read into selection.flush
};

void print_summary(const ImportSummary& s) {
  std::cout << s.new_runs << " of " << s.runs << " runs and " << s.new_measurements << " of " << s.measurements
            << " measurements were new\n";
}

int run_merge(const DbArgs& args) {
  const MergeSummary s = merge_command(args.inputs, args.output);
  std::cout << "merged " << s.inputs << " database" << (s.inputs == 1 ? "" : "s") << " into " << args.output << ": ";
  print_summary(s.added);
  return 0;
}

int run_export(DbArgs args) {
  args.selection.flush = flush_from_option(args.flush);
  export_command(args.db, args.format, args.output, std::cout, args.selection);
  return 0;
}

int run_import(const DbArgs& args) {
  // Imported before anything is printed, so that a refused file leaves no half line on standard output.
  const ImportSummary s = import_command(args.file, args.db, args.format, args.foreign);
  std::cout << "imported " << args.file << " into " << args.db << ": ";
  print_summary(s);
  return 0;
}

// "(12 ok)", or "(3 ok, 9 unverified)" where results were measured with --verify none.
std::string ok_counts(std::int64_t ok, std::int64_t unverified) {
  const std::string more = unverified > 0 ? ", " + std::to_string(unverified) + " unverified" : "";
  return "(" + std::to_string(ok) + " ok" + more + ")";
}

int run_stats(const DbArgs& args) {
  Database db = open_existing(args.db);
  const DatabaseStats s = db.stats();
  std::cout << args.db << ": " << s.runs << " runs from " << s.hosts << " host" << (s.hosts == 1 ? "" : "s") << ", "
            << s.measurements << " measurements, " << s.configurations << " configurations "
            << ok_counts(s.ok, s.unverified) << "\n";
  if (!s.devices.empty()) std::cout << "devices\n";
  for (const auto& d : s.devices) {
    std::cout << "  " << d.device.name << " (" << d.device.arch() << ", " << d.device.sm_count << " SMs): "
              << d.kernels << " kernel versions, " << d.shapes << " shapes, " << d.configurations
              << " configurations " << ok_counts(d.ok, d.unverified) << "\n";
  }
  if (!s.kernels.empty()) std::cout << "kernels\n";
  for (const auto& k : s.kernels) {
    std::string shapes;
    for (const auto& shape : k.shapes) shapes += (shapes.empty() ? "" : " ") + shape;
    std::cout << "  " << k.kernel.name << " " << k.kernel.hash << ": " << k.devices << " device"
              << (k.devices == 1 ? "" : "s") << ", " << k.configurations << " configurations "
              << ok_counts(k.ok, k.unverified) << ", last " << k.last_measured << "\n    shapes " << shapes << "\n";
  }
  return 0;
}

std::string format_help(bool readable) {
  std::string names;
  for (const auto& f : exchange_formats()) {
    if (readable ? !f.read : !f.write) continue;
    names += (names.empty() ? "" : ", ") + f.name;
  }
  return names;
}

}  // namespace

void add_db_command(CLI::App& app, Subcommands& out) {
  auto* db = app.add_subcommand("db", "merge, export, import and count tuning databases");
  db->require_subcommand(1);

  auto merge = std::make_shared<DbArgs>();
  auto* cmd = db->add_subcommand("merge", "merge databases (union of all runs, with provenance) into one");
  cmd->add_option("inputs", merge->inputs, "databases to merge")->required();
  cmd->add_option("--output,-o", merge->output, "database to merge into (created when missing)")->required();
  out.push_back({cmd, [merge] { return run_merge(*merge); }});

  auto exporting = std::make_shared<DbArgs>();
  exporting->format = "json";
  cmd = db->add_subcommand("export", "write the runs and measurements of a database (all, or those selected)");
  cmd->add_option("--db", exporting->db, "SQLite database file")->capture_default_str();
  cmd->add_option("--format,-f", exporting->format,
                  format_help(false) + " (kt-cache: a Kernel Tuner cache, of one kernel, device, shape and flush)")
      ->capture_default_str();
  cmd->add_option("--output,-o", exporting->output, "file to write (default: standard output)");
  cmd->add_option("--kernel", exporting->selection.kernel, "only this kernel: its name, or a version (16 hex digits)");
  cmd->add_option("--device", exporting->selection.device,
                  "only this device, by its whole name as stored, e.g. \"NVIDIA H100 80GB HBM3\" (tune db stats lists them)");
  cmd->add_option("--shape", exporting->selection.shape, "only this shape, as stored, e.g. 4096x4096");
  add_flush_option(*cmd, exporting->flush, "only runs measured under this L2 convention: read, write or none");
  out.push_back({cmd, [exporting] { return run_export(*exporting); }});

  auto importing = std::make_shared<DbArgs>();
  cmd = db->add_subcommand("import", "add the runs of an exported file, a T4 file or a Kernel Tuner cache to a database");
  cmd->add_option("file", importing->file, "file to import")->required();
  cmd->add_option("--db", importing->db, "SQLite database file (created when missing)")->capture_default_str();
  cmd->add_option("--format,-f", importing->format, format_help(true) + " (default: detected)");
  cmd->add_option("--device", importing->foreign.device, "t4/kt-cache: the GPU's name, e.g. \"NVIDIA A100-PCIE-40GB\"");
  cmd->add_option("--kernel", importing->foreign.kernel, "t4/kt-cache: the kernel's name");
  cmd->add_option("--shape", importing->foreign.shape, "t4/kt-cache: the problem size, e.g. 4096x4096");
  out.push_back({cmd, [importing] { return run_import(*importing); }});

  auto stats = std::make_shared<DbArgs>();
  cmd = db->add_subcommand("stats", "devices, kernel versions, shapes and counts of a database");
  cmd->add_option("--db", stats->db, "SQLite database file")->capture_default_str();
  out.push_back({cmd, [stats] { return run_stats(*stats); }});
}

}  // namespace cutune::cli
