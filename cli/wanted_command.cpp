// `tune wanted` (the shapes applications asked the runtime for and found no result of their own for) and
// `tune --wanted` (tunes those not tuned yet, a run of `tune` per kernel or operation with the shapes filled in).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "commands.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/lookup_keys.hpp"
#include "cutune/operation.hpp"
#include "cutune/templates.hpp"

namespace cutune::cli {

namespace {

int list_wanted(const std::string& path, const std::string& add) {
  Database db = add.empty() ? open_existing(path) : Database(path);
  if (!add.empty()) {
    const auto shapes = load_wanted(add);
    db.add_wanted(shapes, add);
    std::cout << "added " << shapes.size() << " wanted shape(s) from " << add << " to " << path << "\n";
  }
  const auto all = db.wanted();
  if (all.empty()) {
    std::cout << "no wanted shapes in " << path << ": every runtime lookup found a result of its own shape\n";
    return 0;
  }
  fmt::print("{:<16} {:<8} {:<24} {:<6} {:<20} {:>8}  {:<20} {}\n", "kernel", "version", "device", "flush", "shape",
             "lookups", "last", "tuned");
  for (const auto& w : all) {
    fmt::print("{:<16} {:<8} {:<24} {:<6} {:<20} {:>8}  {:<20} {}\n", w.kernel.name, w.kernel.hash.substr(0, 8),
               w.device.name, to_string(w.flush), w.shape, w.count, w.last_at.substr(0, 19),
               wanted_shape_tuned(db, w) ? "yes" : "no");
  }
  return 0;
}

}  // namespace

void add_wanted_command(CLI::App& app, Subcommands& out) {
  struct Args {
    std::string db = "cutune.db";
    std::string add;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "wanted", "list the shapes applications asked the runtime for that had no result of their own (tune --wanted "
                "tunes them)");
  sub->add_option("--db", args->db, "SQLite database file")->capture_default_str();
  sub->add_option("--add", args->add,
                  "first add the shapes of a file a Runtime saved (Runtime::save_wanted, when its database was "
                  "read-only)");
  out.push_back({sub, [args] { return list_wanted(args->db, args->add); }});
}

namespace {

// The kernels to tune: the one named, else every built-in kernel and operation with wanted shapes on this device.
std::vector<std::string> wanted_kernels(const TuneRequest& args, Database& db, const DeviceIdentity& device) {
  if (!args.kernel.empty() || !args.spec.empty() || !args.problem.empty()) return {""};
  std::set<std::string> builtin;
  for (const auto& name : builtin_kernels()) builtin.insert(name);
  for (const auto& name : builtin_operations()) builtin.insert(name);
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& w : db.wanted()) {
    if (!same_device_key(w.device, device) || !seen.insert(w.kernel.name).second) continue;
    if (builtin.count(w.kernel.name) == 0) {
      std::cout << w.kernel.name
                << ": not a built-in kernel or operation; tune its wanted shapes with --kernel FILE.json --wanted\n";
      continue;
    }
    names.push_back(w.kernel.name);
  }
  return names;
}

// The wanted shapes a run of `tune` covers, of the operation or kernel it names (`name` receives its name): an
// operation's those the runtime recorded under the operation's name, where not every implementation is tuned.
std::vector<std::string> wanted_shapes_of(const TuneRequest& run, Database& db, const DeviceIdentity& device,
                                          std::optional<L2Flush> flush, std::string& name) {
  if (!run.kernel.empty() && is_operation(run.kernel)) {
    const OperationSpec operation = load_operation(run.kernel);
    name = operation.name;
    return untuned_wanted_shapes(db, operation, device, operation.implementations.front().l2_flush(flush));
  }
  std::optional<Shape> problem_shape;
  const KernelSpec spec = load_chosen_kernel(run.kernel, run.spec, run.problem, &problem_shape, true);
  name = spec.name;
  return untuned_wanted_shapes(db, spec, device, spec.l2_flush(flush));
}

}  // namespace

int run_wanted(const TuneRequest& args) {
  if (!args.shapes.empty()) throw InputError("--wanted takes the shapes from the database: leave out --shapes");
  if (!std::filesystem::exists(args.db)) throw InputError("database '" + args.db + "' does not exist");
  Database db(args.db);
  const DeviceIdentity device = Device(args.device).identity();
  const std::vector<std::string> kernels = wanted_kernels(args, db, device);
  const std::optional<L2Flush> flush = check_tune_request(args).measure.flush;
  int status = 0;
  bool any = false;
  for (const auto& name : kernels) {
    TuneRequest run = args;
    run.wanted = false;
    if (!name.empty()) run.kernel = name;
    std::string name_tuned;
    const auto shapes = wanted_shapes_of(run, db, device, flush, name_tuned);
    if (shapes.empty()) continue;
    any = true;
    for (const auto& s : shapes) run.shapes += (run.shapes.empty() ? "" : ",") + s;
    std::cout << name_tuned << ": " << shapes.size() << " wanted shape(s) not tuned on " << device.name << ": "
              << run.shapes << "\n";
    status = std::max(status, run_tune(run));
  }
  if (!any) {
    std::cout << "nothing to tune: every shape wanted on " << device.name << " under this convention is tuned\n";
  }
  return status;
}

}  // namespace cutune::cli
