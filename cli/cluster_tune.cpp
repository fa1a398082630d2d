// `tune` under mpirun / srun: one rank per GPU; rank 0 tunes and stores (a kernel, or an operation's implementations in
// turns), every other rank measures for it.
#ifdef CUTUNE_HAVE_MPI
#include <iostream>

#include "cluster/cluster.hpp"
#include "commands.hpp"
#include "cutune/error.hpp"

namespace cutune::cli {

int run_cluster_tune(const TuneRequest& args, const TunePlan& plan, std::chrono::steady_clock::time_point started) {
  const KernelSpec* tuning = &plan.spec;  // an operation's: the implementation whose turn it is
  if (!plan.options.isolate) throw InputError("--no-isolate measures in this process: an MPI job measures in worker processes");
  if (!args.devices.empty()) {
    throw InputError("--devices does not apply under mpirun / srun: each rank measures on one GPU, its node-local "
                     "rank; start one rank per GPU");
  }
  cluster::Transport transport;
  const int count = Device::count();
  if (count == 0) throw NoDeviceError("rank " + std::to_string(transport.rank()) + " on " + transport.host() + ": " +
                                      Device::unavailable_reason());
  // Ranks beyond a node's GPU count share GPUs round-robin: slower, but every rank still works.
  const Device device(transport.local_rank() % count);
  const cluster::LocalGpu gpu{device.identity(), device.limits(), device.ordinal()};
  const Shape* current = nullptr;
  TuneOptions options = plan.options;
  ProgressTap tap;
  options.on_progress = [&tuning, &current, &tap](const Progress& p) {
    if (tap) tap(p);
    print_progress(*tuning, *current, p);
  };
  if (transport.rank() != 0) return cluster::serve_rank(transport, gpu, options);

  cluster::ClusterLanes lanes(transport, gpu);  // before the tuner: its lanes use the ranks' receiving thread
  options.remote_lanes = lanes.lanes();
  Database db(args.db);
  std::cout << "MPI job of " << transport.size() << " ranks: rank 0 on " << transport.host() << " stores into "
            << args.db << "\n";
  Tuner tuner(gpu.identity, lanes.limits(), gpu.ordinal, db, options);
  return tune_shapes(tuner, plan, gpu.identity, current, tuning, &tap, args.db, started);
}

}  // namespace cutune::cli
#endif
