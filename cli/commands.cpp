// What the subcommands of `tune` share (choosing the kernel, its shapes, the L2 and verification options), and `tune`
// itself: its options and the run on this machine (best_command.cpp, space_command.cpp and the others: the rest).
#include "commands.hpp"

#include <filesystem>
#include <iostream>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/t1.hpp"
#include "cutune/templates.hpp"

namespace cutune::cli {

// --kernel, --spec and --problem: one of them names what a subcommand works on (load_chosen_kernel checks).
void add_kernel_options(CLI::App& cmd, std::string& kernel, std::string& spec, std::string& problem) {
  auto* k = cmd.add_option("--kernel,-k", kernel, "built-in kernel name or spec file (.json)");
  auto* s = cmd.add_option("--spec", spec, "a kernel spec file of your own (same as --kernel FILE.json)");
  auto* p = cmd.add_option("--problem", problem, "a T1 tuning-problem file");
  s->excludes(k);
  p->excludes(k)->excludes(s);
}



CLI::Option* add_flush_option(CLI::App& app, std::string& flush, const std::string& help) {
  return app.add_option("--flush", flush, help)->check(CLI::IsMember(l2_flush_names()));
}



void add_where_option(CLI::App& app, std::vector<std::string>& where) {
  app.add_option("--where", where,
                 "an extra constraint on the configurations, e.g. \"SPLITK == 1\" (repeatable; the kernel's version "
                 "and stored results stay the same)");
}




int tune_shapes(Tuner& tuner, const KernelSpec& spec, const std::vector<Shape>& shapes, const DeviceIdentity& identity,
                const Shape*& current, const std::string& db, std::chrono::steady_clock::time_point started) {
  const double before_s = seconds_since(started);
  TuneHooks hooks;
  hooks.report = [&spec](const DeviceIdentity& device, const ShapeReport& r) { print_shape_report(spec, device, r); };
  const std::vector<ShapeReport> reports = tune_each(tuner, spec, shapes, identity, current, hooks);
  return finish_tune(spec, reports, db, seconds_since(started), before_s);
}

int finish_tune(const KernelSpec& spec, const std::vector<ShapeReport>& reports, const std::string& db, double total_s,
                double before_s) {
  print_summary(spec, reports);
  print_run_time(reports, total_s, before_s);
  std::cout << "results stored in " << db << "\n";
  for (const auto& r : reports)
    if (!r.best) return 1;  // a shape where nothing was correct is a failure of the run
  return 0;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}



}  // namespace cutune::cli
