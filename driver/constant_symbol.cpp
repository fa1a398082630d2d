// Finds a constant-memory argument's __constant__ array in a loaded module (constant_symbol.hpp).
#include "constant_symbol.hpp"

namespace cutune::detail {

std::optional<std::string> constant_symbol(const Module& module, const Argument& a, std::size_t bytes,
                                           CUdeviceptr* address) {
  std::size_t room = 0;
  if (module.global(a.symbol, address, &room) != CUDA_SUCCESS) {
    return "the kernel has no __constant__ variable '" + a.symbol + "' for argument " + a.name +
           " (declare it at namespace scope, or give its name as \"symbol\")";
  }
  if (room < bytes) {
    return "__constant__ " + a.symbol + " holds " + std::to_string(room) + " bytes; argument " + a.name + " is " +
           std::to_string(bytes);
  }
  return std::nullopt;
}

}  // namespace cutune::detail
