// KeptBenches: the workbenches a worker process keeps prepared, so that a kernel and shape met again is not prepared
// again.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>

#include "cutune/cubin_cache.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "worker/worker_protocol.hpp"

namespace cutune::detail {

/// The worker's workbench for its current kernel and shape, and the few before it, each with the set-up request that
/// made it. An operation's implementations take turns at a shape (each turn a set-up request of its own): a request
/// for what a kept workbench holds makes that one current again, its inputs filled and its reference computed, instead
/// of preparing another. What the workbenches allocate stays on the GPU meanwhile: a kept one goes when less than a
/// quarter of the GPU's memory is free, and the oldest goes beyond kKept.
class KeptBenches {
 public:
  /// Workbenches kept besides the current one's: an operation's other implementations at the shape.
  static constexpr std::size_t kKept = 3;

  /// Makes the workbench of `request` (a "bench" message) current: a kept one with the same request, else one made
  /// and prepared now. Throws what the spec, the workbench or its preparation throw; nothing is current then.
  void select(const Message& request, const Device& device);
  /// The current workbench and its spec; throws Error when there is none (no set-up request succeeded).
  Workbench& bench();
  const KernelSpec& spec();

 private:
  struct Kept {
    std::string request;  // the set-up message, as text
    std::unique_ptr<KernelSpec> spec;
    std::unique_ptr<CubinCache> cache;
    std::unique_ptr<Workbench> bench;  // last: it refers to the spec and cache
  };
  // Releases kept workbenches (never the current one) while too many are held or the GPU runs short of memory.
  void trim();

  std::deque<Kept> kept_;  // the current one last, when there is one
  bool current_ = false;
};

}  // namespace cutune::detail
