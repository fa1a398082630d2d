// `tune` itself: the run on this machine's GPUs, or one rank of an MPI job. Only the program links this file (and
// MPI); the Python package reaches the same run through tune_on_this_machine().
#ifdef CUTUNE_HAVE_MPI
#include "cluster/transport.hpp"
#endif
#include "commands.hpp"

namespace cutune::cli {

int run_tune(TuneRequest args) {
  const auto started = std::chrono::steady_clock::now();
  const TunePlan job = prepare_tune(args);
#ifdef CUTUNE_HAVE_MPI
  if (cluster::launched_by_mpi()) return run_cluster_tune(args, job.spec, job.shapes, started);
#endif
  double before_s = 0.0;  // start-up: the kernel, the database, the GPUs
  TuneHooks hooks;
  hooks.starting = [&] { before_s = seconds_since(started); };
  hooks.progress = [&job](const Shape& shape, const Progress& p) { print_progress(job.spec, shape, p); };
  hooks.report = [&job](const DeviceIdentity& device, const ShapeReport& r) { print_shape_report(job.spec, device, r); };
  const std::vector<ShapeReport> reports = tune_on_this_machine(args, job, hooks);
  return finish_tune(job.spec, reports, args.db, seconds_since(started), before_s);
}

}  // namespace cutune::cli
