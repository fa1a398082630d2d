// Device memory and loaded modules as owning values: the workbench and the runtime API hold them alike.
#pragma once

#include <cstddef>
#include <string>

#include "cuda_driver.hpp"

namespace cutune::detail {

/// Owns device memory.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) { other.ptr_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  CUdeviceptr get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

/// Owns a loaded module.
class Module {
 public:
  /// Returns the driver's result instead of throwing: a candidate's cubin may fail to load.
  CUresult load(const std::string& cubin);
  ~Module();
  CUresult function(const std::string& lowered_name, CUfunction* out) const;
  /// A __constant__ or __device__ variable of the module: its address and size.
  CUresult global(const std::string& name, CUdeviceptr* address, std::size_t* bytes) const;

 private:
  CUmodule module_ = nullptr;
};

}  // namespace cutune::detail
