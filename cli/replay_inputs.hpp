// `tune replay --kernel K --shape S`: a cache recorded of one of cutune's kernels (or a spec of the user's) is
// replayed as `tune` searches it, with the launch quantities the spec gives (launch_inputs()) and its start list.
#pragma once

#include <cstdint>
#include <string>

#include "cutune/kt_cache.hpp"
#include "cutune/replay.hpp"

namespace cutune::cli {

struct ReplayKernel {
  std::string kernel;          ///< built-in name or spec file; empty: the cache alone, no model inputs
  std::string shape;           ///< the shape the cache was recorded at
  std::int64_t sm_count = 132; ///< the recording GPU's multiprocessors
  bool start = false;          ///< ask the spec's start configurations first, as `tune` does
  bool no_inputs = false;      ///< leave the search inputs out (to measure what they bring)
};

/// Adds to `options` what `kernel` says of the cache's configurations: the model inputs (unless no_inputs) and,
/// with `start`, the spec's start configurations that the cache holds, first. Throws InputError when the cache's
/// parameters are not the spec's, a configuration is not one of the spec's, or the shape does not parse.
void add_kernel_knowledge(const ReplayKernel& kernel, const KtCache& cache, const RecordedSpace& recorded,
                          ReplayOptions& options);

}  // namespace cutune::cli
