// The Evaluator that measures in worker processes (cutune-worker), each of which may crash or hang alone.
#pragma once

#include <memory>
#include <string>

#include "cutune/measure.hpp"
#include "measure/evaluator.hpp"

namespace cutune::detail {

/// Where and how worker processes run.
struct WorkerSettings {
  std::string executable;            ///< the cutune-worker program
  int device = 0;                    ///< CUDA device ordinal
  MeasureOptions measure;
  std::string cache_dir;             ///< cubin cache folder; empty: no cache
  double timeout_floor_s = 10.0;     ///< the least time a configuration is given before it counts as hung
  int max_consecutive_failures = 8;  ///< crashes or timeouts in a row that stop the run
};

/// Measures in a worker process: a crash or hang of a candidate kills only the worker, whose configuration is
/// recorded as runtime_error or timeout; the worker restarts for the next configuration. A worker killed from outside
/// (SIGKILL or SIGTERM that cutune did not send) is no crash: the configuration goes to a fresh worker once more, and
/// is recorded as interrupted if that one is killed too.
std::unique_ptr<Evaluator> make_worker_evaluator(const WorkerSettings& settings);

/// The cutune-worker program: $CUTUNE_WORKER, else beside the running program (or one folder up), else where
/// the build or the installation put it; empty when none is found.
std::string find_worker_executable();

}  // namespace cutune::detail
