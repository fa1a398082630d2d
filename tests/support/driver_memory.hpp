// Device memory for GPU tests through the driver library that cutune has loaded (the tests do not link CUDA).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cutune::testing {

/// Allocations, copies and a synchronisation through libcuda.so.1 as already loaded (usable() is false before).
class DriverMemory {
 public:
  DriverMemory() {
    library_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (library_ == nullptr) return;
    alloc_ = reinterpret_cast<Alloc>(dlsym(library_, "cuMemAlloc_v2"));
    free_ = reinterpret_cast<Free>(dlsym(library_, "cuMemFree_v2"));
    to_device_ = reinterpret_cast<ToDevice>(dlsym(library_, "cuMemcpyHtoD_v2"));
    to_host_ = reinterpret_cast<ToHost>(dlsym(library_, "cuMemcpyDtoH_v2"));
    sync_ = reinterpret_cast<Sync>(dlsym(library_, "cuCtxSynchronize"));
  }
  ~DriverMemory() {
    for (const auto p : allocated_) free_(p);
    if (library_ != nullptr) dlclose(library_);
  }
  bool usable() const { return alloc_ && free_ && to_device_ && to_host_ && sync_; }
  std::uint64_t alloc(std::size_t bytes) {
    std::uint64_t p = 0;
    EXPECT_EQ(alloc_(&p, bytes), 0);
    allocated_.push_back(p);
    return p;
  }
  void upload(std::uint64_t to, const void* from, std::size_t bytes) { EXPECT_EQ(to_device_(to, from, bytes), 0); }
  void download(void* to, std::uint64_t from, std::size_t bytes) { EXPECT_EQ(to_host_(to, from, bytes), 0); }
  int synchronize() { return sync_(); }

 private:
  using Alloc = int (*)(std::uint64_t*, std::size_t);
  using Free = int (*)(std::uint64_t);
  using ToDevice = int (*)(std::uint64_t, const void*, std::size_t);
  using ToHost = int (*)(void*, std::uint64_t, std::size_t);
  using Sync = int (*)();
  void* library_ = nullptr;
  Alloc alloc_ = nullptr;
  Free free_ = nullptr;
  ToDevice to_device_ = nullptr;
  ToHost to_host_ = nullptr;
  Sync sync_ = nullptr;
  std::vector<std::uint64_t> allocated_;
};

}  // namespace cutune::testing
