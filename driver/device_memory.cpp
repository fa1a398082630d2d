#include "device_memory.hpp"

namespace cutune::detail {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  CU_CHECK(cuMemAlloc, &ptr_, bytes == 0 ? 1 : bytes);
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != 0) driver().cuMemFree(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != 0) driver().cuMemFree(ptr_);
    ptr_ = other.ptr_;
    bytes_ = other.bytes_;
    other.ptr_ = 0;
  }
  return *this;
}

CUresult Module::load(const std::string& cubin) { return driver().cuModuleLoadData(&module_, cubin.data()); }

Module::~Module() {
  if (module_ != nullptr) driver().cuModuleUnload(module_);
}

CUresult Module::function(const std::string& lowered_name, CUfunction* out) const {
  return driver().cuModuleGetFunction(out, module_, lowered_name.c_str());
}

CUresult Module::global(const std::string& name, CUdeviceptr* address, std::size_t* bytes) const {
  return driver().cuModuleGetGlobal(address, bytes, module_, name.c_str());
}

}  // namespace cutune::detail
