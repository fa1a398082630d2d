// Tuning across the ranks of an MPI job: rank 0 owns the strategy and the database, every other rank serves it.
//
// Every rank runs the same `tune` command. Each rank measures on one GPU of its node (its node-local rank), so a
// job has one rank per GPU. Rank 0 tunes as on one machine, with one more lane per other rank (remote_lane.hpp);
// the other ranks compile and measure what rank 0 sends them (serve_rank) until rank 0 tells them to stop.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/transport.hpp"
#include "cutune/result.hpp"
#include "cutune/space.hpp"
#include "cutune/tuner.hpp"

namespace cutune::cluster {

/// The GPU one rank measures on.
struct LocalGpu {
  DeviceIdentity identity;
  DeviceLimits limits;
  int ordinal = 0;
};

/// Ranks other than 0: reports `gpu` to rank 0, then compiles and measures the jobs it sends (with `options`'
/// measurement settings, compile threads and cubin cache) until it says stop. Returns the exit code.
int serve_rank(Transport& transport, const LocalGpu& gpu, const TuneOptions& options);

class RemoteRegistry;

/// Rank 0: the other ranks' GPUs as lanes of one run. Construction waits for every rank's hello and refuses GPUs
/// of another model than `mine` (one run record per model); destruction tells every rank to stop.
class ClusterLanes {
 public:
  ClusterLanes(Transport& transport, const LocalGpu& mine);
  ~ClusterLanes();
  ClusterLanes(const ClusterLanes&) = delete;
  ClusterLanes& operator=(const ClusterLanes&) = delete;

  /// The most restrictive launch limits of all ranks' GPUs: the space every rank can run.
  const DeviceLimits& limits() const { return limits_; }
  /// One lane per other rank, for TuneOptions::remote_lanes.
  std::vector<RemoteLaneSource> lanes() const;

 private:
  void stop_ranks();

  Transport& transport_;
  DeviceLimits limits_;
  std::vector<std::string> names_;  // lane names, rank 1 first
  std::set<int> elsewhere_;         // ranks on another host than this one's
  std::unique_ptr<RemoteRegistry> registry_;
};

}  // namespace cutune::cluster
