// `tune` itself: the run on this machine's GPUs, or one rank of an MPI job, and what it prints at the end. Only the
// program links this file (and MPI); the Python package reaches the same run through tune_on_this_machine().
#ifdef CUTUNE_HAVE_MPI
#include "cluster/transport.hpp"
#endif
#include <iostream>

#include "commands.hpp"
#include "cutune/error.hpp"

namespace cutune::cli {

namespace {

// The hooks that print a run as it goes; `tuning` follows an operation's turns (the implementation whose turn it is).
TuneHooks printing_hooks(const KernelSpec*& tuning) {
  TuneHooks hooks;
  hooks.implementation = [&tuning](const KernelSpec& spec) { tuning = &spec; };
  hooks.progress = [&tuning](const Shape& shape, const Progress& p) { print_progress(*tuning, shape, p); };
  hooks.report = [&tuning](const DeviceIdentity& device, const ShapeReport& r) {
    print_shape_report(*tuning, device, r);
  };
  return hooks;
}

}  // namespace

int run_tune(const TuneRequest& args) {
  const auto started = std::chrono::steady_clock::now();
  const TunePlan job = prepare_tune(args);
#ifdef CUTUNE_HAVE_MPI
  if (cluster::launched_by_mpi()) return run_cluster_tune(args, job, started);
#endif
  double before_s = 0.0;  // start-up: the kernel, the database, the GPUs
  const KernelSpec* tuning = &job.spec;
  TuneHooks hooks = printing_hooks(tuning);
  hooks.starting = [&] { before_s = seconds_since(started); };
  const std::vector<ShapeReport> reports = tune_on_this_machine(args, job, hooks);
  if (job.operation) return finish_operation_tune(*job.operation, reports, args.db, seconds_since(started), before_s);
  return finish_tune(job.spec, reports, args.db, seconds_since(started), before_s);
}

int tune_shapes(Tuner& tuner, const TunePlan& plan, const DeviceIdentity& identity, const Shape*& current,
                const KernelSpec*& tuning, ProgressTap* tap, const std::string& db,
                std::chrono::steady_clock::time_point started) {
  const double before_s = seconds_since(started);
  TuneHooks hooks = printing_hooks(tuning);
  hooks.progress = nullptr;  // the tuner's on_progress prints it
  if (plan.operation) {
    const std::vector<ShapeReport> reports =
        tune_operation(tuner, *plan.operation, plan.shapes, plan.options.budget, identity, current, hooks, tap);
    return finish_operation_tune(*plan.operation, reports, db, seconds_since(started), before_s);
  }
  const std::vector<ShapeReport> reports = tune_each(tuner, plan.spec, plan.shapes, identity, current, hooks);
  return finish_tune(plan.spec, reports, db, seconds_since(started), before_s);
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
