// A launch of one runtime kernel with every argument fixed but the addresses of a few arrays: what an operator that
// calls one kernel many times at one shape (cutune.ops) pays per call is the copy of those addresses and the launch.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <vector>

#include "cutune/runtime.hpp"

namespace cutune::python {

namespace nb = nanobind;

class PreparedLaunch {
 public:
  /// `packed`: every argument's bytes as the launch takes them (at most 8 each), `bytes` their sizes; `targets[i]`:
  /// the arguments the i-th address of a call goes to (an array and the tensor maps described over it).
  PreparedLaunch(const RuntimeKernel& kernel, std::vector<std::uint64_t> packed, std::vector<std::size_t> bytes,
                 std::vector<std::vector<std::size_t>> targets);

  /// Enqueues the kernel on `stream` with one address per target, in the order of `targets`.
  void launch(std::uintptr_t stream, nb::args addresses) const;

  std::size_t slots() const { return targets_.size(); }

 private:
  const RuntimeKernel* kernel_;
  std::vector<std::uint64_t> packed_;
  std::vector<std::size_t> bytes_;
  std::vector<std::vector<std::size_t>> targets_;
};

}  // namespace cutune::python
