// A RuntimeKernel's accessors and its launch: the arguments checked, tensor maps encoded, constant memory copied in.
#include <array>
#include <cstring>
#include <span>
#include <vector>

#include "cutune/error.hpp"
#include "driver/cluster_launch.hpp"
#include "driver/tensor_map_encode.hpp"
#include "runtime_impl.hpp"

namespace cutune {
namespace {

std::string type_name(const Argument& a) {
  if (a.tensor_map) return "CUtensorMap (passed as the device pointer of its tensor)";
  return std::string(to_string(a.type)) + (a.is_buffer ? "*" : "");
}

constexpr std::size_t kTensorAlignment = 16;  // cuTensorMapEncodeTiled: the tensor's address, in bytes

}  // namespace

RuntimeKernel::RuntimeKernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RuntimeKernel::~RuntimeKernel() = default;
const KernelSpec& RuntimeKernel::spec() const { return impl_->spec; }
const Shape& RuntimeKernel::shape() const { return impl_->shape; }
const BestConfig& RuntimeKernel::choice() const { return impl_->choice; }
const Config& RuntimeKernel::config() const { return impl_->config; }
const Launch& RuntimeKernel::geometry() const { return impl_->geometry; }
void* RuntimeKernel::function() const { return impl_->function; }
void RuntimeKernel::make_current() const { impl_->device->make_current(); }
bool RuntimeKernel::from_cache() const { return impl_->from_cache; }
double RuntimeKernel::ready_ms() const { return impl_->ready_ms; }

void RuntimeKernel::launch(void* stream, const KernelArg* data, std::size_t count) const {
  const std::span<const KernelArg> args(data, count);
  const Impl& k = *impl_;
  if (args.size() != k.arg_bytes.size()) {
    throw InputError(k.spec.name + " takes " + std::to_string(k.arg_bytes.size()) + " arguments, got " +
                     std::to_string(args.size()));
  }
  // cuLaunchKernel reads each argument through a pointer; it copies them before returning.
  std::array<void*, 16> small{};
  std::vector<void*> large(args.size() > small.size() ? args.size() : 0);
  void** params = large.empty() ? small.data() : large.data();
  // Tensor maps are encoded here, over the pointer passed in their place: a host-side call of about a microsecond,
  // and nothing shared between threads launching at once.
  std::vector<CUtensorMap> maps(k.tensor_map_count, CUtensorMap{});
  std::size_t next_map = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Argument& a = k.spec.arguments[i];
    if (args[i].bytes != k.arg_bytes[i]) {
      throw InputError("argument " + std::to_string(i + 1) + " (" + a.name + ") of " + k.spec.name + " is a " +
                       type_name(a) + " of " + std::to_string(k.arg_bytes[i]) + " bytes, got " +
                       std::to_string(args[i].bytes) + " bytes");
    }
  }
  k.device->make_current();
  if (k.library) {
    k.library->launch(stream, data);
    return;
  }
  std::size_t next_param = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Argument& a = k.spec.arguments[i];
    if (k.constant_symbols[i] != 0) {  // constant memory: the data at the address passed, copied in on the stream
      CUdeviceptr data = 0;
      std::memcpy(&data, args[i].address, sizeof data);
      if (data == 0) throw InputError("argument " + std::to_string(i + 1) + " (" + a.name + ") of " + k.spec.name +
                                      " is a null pointer; constant memory is copied from it");
      detail::check(detail::driver().cuMemcpyAsync(k.constant_symbols[i], data, k.constant_bytes[i],
                                                    static_cast<CUstream>(stream)),
                    "cuMemcpyAsync(constant memory)");
      if (!a.is_parameter()) continue;
    }
    params[next_param] = const_cast<void*>(args[i].address);
    if (k.unread_maps[i]) {
      params[next_param++] = &maps[next_map++];  // zero bytes in the place of a map this configuration never reads
      continue;
    }
    if (!k.tensor_maps[i]) {
      ++next_param;
      continue;
    }
    CUdeviceptr tensor = 0;
    std::memcpy(&tensor, args[i].address, sizeof tensor);
    if (tensor % kTensorAlignment != 0) {
      throw InputError("argument " + std::to_string(i + 1) + " (" + a.name + ") of " + k.spec.name +
                       ": the tensor's address must be a multiple of 16 bytes for TMA");
    }
    CUtensorMap& map = maps[next_map++];
    detail::check(detail::encode_tensor_map(*k.tensor_maps[i], tensor, &map), "cuTensorMapEncodeTiled");
    params[next_param++] = &map;
  }
  detail::check(detail::launch_kernel(k.function, k.geometry, static_cast<CUstream>(stream), params),
                k.geometry.cluster_size() > 1 ? "cuLaunchKernelEx" : "cuLaunchKernel");
}

}  // namespace cutune
