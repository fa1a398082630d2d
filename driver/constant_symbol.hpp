// Where a constant-memory argument's __constant__ array is in a loaded module: the workbench and the runtime API
// both copy an argument's data there.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "cutune/spec.hpp"
#include "device_memory.hpp"

namespace cutune::detail {

/// Where the __constant__ array of argument `a` is in `module` (its address in `*address`); why it cannot take
/// `bytes` (no such variable, too small), or nullopt.
std::optional<std::string> constant_symbol(const Module& module, const Argument& a, std::size_t bytes,
                                           CUdeviceptr* address);

}  // namespace cutune::detail
