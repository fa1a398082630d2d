// Opens a CUDA device through the run-time loaded driver and reads its identity and limits.
#include "cutune/device.hpp"

#include <cstdio>
#include <mutex>

#include "driver/cuda_driver.hpp"
#include "cutune/compiler.hpp"
#include "cutune/error.hpp"

namespace cutune {
namespace {

int attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  CU_CHECK(cuDeviceGetAttribute, &value, which, device);
  return value;
}

std::string format_uuid(const CUuuid& uuid) {
  std::string out = "GPU-";
  char buf[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += buf;
    if (i == 3 || i == 5 || i == 7 || i == 9) out += '-';
  }
  return out;
}

}  // namespace

int Device::count() {
  try {
    int n = 0;
    if (detail::driver().cuDeviceGetCount(&n) != CUDA_SUCCESS) return 0;
    return n;
  } catch (const NoDeviceError&) {
    return 0;
  }
}

std::string Device::unavailable_reason() {
  try {
    detail::driver();
  } catch (const NoDeviceError& e) {
    return e.what();
  }
  return count() > 0 ? "" : "no CUDA device: the driver sees no GPU";
}

Device::Device(int ordinal) : ordinal_(ordinal) {
  const std::string reason = unavailable_reason();
  if (!reason.empty()) throw NoDeviceError(reason);
  if (ordinal < 0 || ordinal >= count()) {
    throw InputError("no CUDA device " + std::to_string(ordinal) + ": this machine has " + std::to_string(count()));
  }
  CUdevice device = 0;
  CU_CHECK(cuDeviceGet, &device, ordinal);
  handle_ = device;

  char name[256] = {};
  CU_CHECK(cuDeviceGetName, name, sizeof name, device);
  identity_.name = name;
  identity_.cc_major = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  identity_.cc_minor = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  identity_.sm_count = attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  identity_.memory_clock_khz = attribute(device, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  identity_.memory_bus_bits = attribute(device, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  size_t total = 0;
  CU_CHECK(cuDeviceTotalMem, &total, device);
  identity_.total_memory = static_cast<std::int64_t>(total);
  CUuuid uuid{};
  CU_CHECK(cuDeviceGetUuid, &uuid, device);
  identity_.uuid = format_uuid(uuid);
  CU_CHECK(cuDriverGetVersion, &identity_.driver_version);
  identity_.nvrtc_version = nvrtc_version();

  limits_.max_threads_per_block = attribute(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  limits_.max_block = {attribute(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                       attribute(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                       attribute(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
  limits_.max_grid = {attribute(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                      attribute(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                      attribute(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  limits_.max_shared_per_block = attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  limits_.max_shared_per_block_optin = attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  limits_.compute_capability = identity_.cc_major * 10 + identity_.cc_minor;
  limits_.sm_count = identity_.sm_count;
  // Clusters of up to 8 blocks are portable; Hopper and later take 16 where the kernel allows a non-portable size.
  limits_.max_cluster_size = attribute(device, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0 ? 16 : 1;
  l2_bytes_ = attribute(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  // Only the report's peak figure needs it: a driver that no longer answers leaves the peak unknown.
  if (detail::driver().cuDeviceGetAttribute(&clock_khz_, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device) != CUDA_SUCCESS) {
    clock_khz_ = 0;
  }
}

Device::~Device() {
  // Destructors never throw: a failed release only leaks the context reference until exit.
  if (context_ != nullptr) detail::driver().cuDevicePrimaryCtxRelease(static_cast<CUdevice>(handle_));
}

void Device::block_while_waiting() const {
  // Best effort: a driver that refuses (the context already active elsewhere) only leaves the default, spinning.
  detail::driver().cuDevicePrimaryCtxSetFlags(static_cast<CUdevice>(handle_), CU_CTX_SCHED_BLOCKING_SYNC);
}

void Device::retain_context() const {
  // The context is made on first use: a tuner that measures in worker processes never needs one of its own,
  // and creating it costs a few hundred milliseconds and GPU memory.
  std::call_once(context_once_, [this] {
    CUcontext context = nullptr;
    CU_CHECK(cuDevicePrimaryCtxRetain, &context, static_cast<CUdevice>(handle_));
    context_ = context;
  });
}

void Device::make_current() const {
  retain_context();
  CU_CHECK(cuCtxSetCurrent, static_cast<CUcontext>(context_));
}

}  // namespace cutune
