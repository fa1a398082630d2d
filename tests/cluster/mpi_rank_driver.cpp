// One rank of the host MPI test (mpi_test.cpp): the cluster code of `tune`, on stand-in GPUs instead of real ones.
// Usage: mpi_rank_driver DB CACHE_DIR [mixed|operation] (mixed: rank 2's stand-in GPU is another model; operation: rank
// 0 tunes an operation of two stand-in kernels under a budget of 16 and prints what each implementation measured). Each rank "has" one stand-in GPU of one model (its node-local rank is the
// ordinal the fake worker is told); rank 0 tunes the stand-in kernel at N=1000 and prints what each GPU measured.
// Each rank writes its process id to DB.rank<R>.pid, so that the test can kill one; SIGTERM stops as `tune` does.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "cluster/cluster.hpp"
#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/requests.hpp"
#include "cutune/stop.hpp"
#include "stand_in_kernel.hpp"

int main(int argc, char** argv) {
  using namespace cutune;
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: mpi_rank_driver DB CACHE_DIR [mixed|operation]\n");
    return 2;
  }
  // As `tune` does: the launcher's SIGTERM is answered at once, before an orderly stop that its SIGKILL may cut short.
  cutune::announce_on_terminate("interrupted: what was measured is stored\n");
  try {
    cluster::Transport transport;
    std::ofstream(std::string(argv[1]) + ".rank" + std::to_string(transport.rank()) + ".pid") << ::getpid() << "\n";
    cluster::LocalGpu gpu;
    gpu.identity.name = "Stand-in GPU";
    gpu.identity.cc_major = 9;
    gpu.identity.sm_count = 132;
    const std::string mode = argc == 4 ? argv[3] : "";
    if (mode == "mixed" && transport.rank() == 2) gpu.identity.sm_count = 114;
    gpu.ordinal = transport.local_rank();
    TuneOptions options;
    options.strategy = "exhaustive";
    options.cache_dir = argv[2];
    options.compile_threads = 1;
    options.final_candidates = 2;
    if (transport.rank() != 0) return cluster::serve_rank(transport, gpu, options);

    const KernelSpec spec =
        test::stand_in_kernel("mpi_k", R"({"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4]})", "A * B");
    cluster::ClusterLanes lanes(transport, gpu);
    options.remote_lanes = lanes.lanes();
    Database db(argv[1]);
    Tuner tuner(gpu.identity, lanes.limits(), gpu.ordinal, db, options);
    if (mode == "operation") {
      OperationSpec operation{"mpi_op", "", {spec, test::stand_in_kernel("mpi_k2", R"({"C": [1, 2, 3, 4, 5, 6, 7, 8]})", "C")},
                              std::nullopt};
      for (const ShapeReport& r : tune_operation_shape(tuner, operation, Shape{{1000}}, 16, {})) {
        std::printf("implementation evaluated %zu resumed %zu\n", r.evaluated, r.resumed);
        for (const auto& d : r.devices) std::printf("measured %s: %zu\n", d.name.c_str(), d.measured);
      }
      return 0;
    }
    const ShapeReport report = tuner.tune(spec, Shape{{1000}});
    std::printf("evaluated %zu resumed %zu\n", report.evaluated, report.resumed);
    for (const auto& d : report.devices) std::printf("measured %s: %zu\n", d.name.c_str(), d.measured);
    return 0;
  } catch (const Interrupted&) {
    if (!termination_announced()) std::fprintf(stderr, "interrupted: what was measured is stored\n");
    return 130;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
