// Constant-memory arguments: the copy of the workbench's buffers into their __constant__ arrays.
#include "driver/constant_symbol.hpp"
#include "workbench.hpp"

namespace cutune::detail {

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
