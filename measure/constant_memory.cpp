// Constant-memory arguments: their __constant__ arrays in a loaded module, and the copy of the workbench's buffers
// into them.
#include "workbench.hpp"

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

std::optional<std::string> copy_constants(const Module& module, const std::vector<DeviceArgument>& args,
                                          CUstream stream) {
  for (const auto& arg : args) {
    if (!arg.spec->in_constant_memory()) continue;
    CUdeviceptr symbol = 0;
    if (auto why = constant_symbol(module, *arg.spec, arg.buffer.bytes(), &symbol)) return why;
    check(driver().cuMemcpyDtoDAsync(symbol, arg.buffer.get(), arg.buffer.bytes(), stream), "cuMemcpyDtoDAsync(constant)");
  }
  return std::nullopt;
}

}  // namespace cutune::detail
