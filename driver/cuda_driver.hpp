// The CUDA driver API, loaded at run time so that cutune starts on machines without a GPU.
#pragma once

#include <cuda.h>

#include <string>

namespace cutune::detail {

// Each entry is named as in cuda.h, whose macros map names to their current ABI (cuMemAlloc -> cuMemAlloc_v2);
// cuGetProcAddress resolves the same ABI from the base name for this header's CUDA_VERSION.
#define CUTUNE_DRIVER_FUNCTIONS(X)                                                                             \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet)     \
  X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDeviceGetUuid)                            \
  X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemHostGetFlags) X(cuPointerGetAttribute) X(cuMemcpyHtoDAsync)        \
  X(cuMemcpyDtoHAsync) X(cuStreamWaitEvent) X(cuMemHostRegister) X(cuMemHostUnregister)                       \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxSetFlags) X(cuCtxSetCurrent)   \
  X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute)       \
  X(cuFuncSetAttribute) X(cuModuleGetGlobal) X(cuMemcpyAsync)                                                 \
  X(cuLaunchKernel) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoDAsync)            \
  X(cuMemsetD8Async) X(cuMemsetD32Async) X(cuMemGetInfo) X(cuStreamCreate) X(cuStreamDestroy)                  \
  X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)             \
  X(cuEventElapsedTime) X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuLaunchKernelEx)                    \
  X(cuOccupancyMaxActiveClusters) X(cuTensorMapEncodeTiled)

struct DriverApi {
#define CUTUNE_DECLARE(name) decltype(&::name) name = nullptr;
  CUTUNE_DRIVER_FUNCTIONS(CUTUNE_DECLARE)
#undef CUTUNE_DECLARE
};

/// The loaded and initialised driver. Throws NoDeviceError when libcuda.so.1 is missing or cuInit fails
/// (no device, no permission); the outcome is remembered, so later calls fail or succeed at once.
const DriverApi& driver();

/// "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; usable whenever the driver loaded.
std::string describe(CUresult result, const char* call);

/// Throws CudaError naming the call unless `result` is CUDA_SUCCESS.
void check(CUresult result, const char* call);

/// A fault that leaves the context unusable (illegal address, trap, misaligned access...).
bool is_sticky(CUresult result);

}  // namespace cutune::detail

/// Calls a driver function through the loaded table and checks its result: CU_CHECK(cuMemAlloc, &p, n).
#define CU_CHECK(name, ...) ::cutune::detail::check(::cutune::detail::driver().name(__VA_ARGS__), #name)
