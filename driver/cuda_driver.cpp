// Loads libcuda.so.1 with dlopen and resolves the driver entry points through cuGetProcAddress.
#include "cuda_driver.hpp"

#include <dlfcn.h>

#include <mutex>
#include <optional>
#include <string_view>

#include "cutune/error.hpp"

namespace cutune::detail {
namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

struct Loaded {
  DriverApi api;
  std::optional<std::string> failure;  // why the driver is unusable, when it is
};

// The version of each entry point whose signature the table declares. cuGetProcAddress hands out the newest variant
// of a name for the version asked; CUDA 13.0 gave cuCtxSynchronize a context argument (cuCtxSynchronize_v2), while
// cuda.h still declares the argument-free one, so that name is asked for as CUDA 12 knew it: called with no argument,
// the 13.0 variant reads a stray register as its context (CUDA_ERROR_CONTEXT_IS_DESTROYED, or a crash in the driver).
int entry_version(std::string_view name) { return name == "cuCtxSynchronize" ? 12000 : CUDA_VERSION; }

Loaded load() {
  Loaded loaded;
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    loaded.failure = "no CUDA device: the NVIDIA driver (libcuda.so.1) is not installed on this machine";
    return loaded;
  }
  auto get_proc = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    loaded.failure = "no usable CUDA driver: libcuda.so.1 is older than CUDA 12 (no cuGetProcAddress_v2)";
    return loaded;
  }
  DriverApi& api = loaded.api;
#define CUTUNE_RESOLVE(name)                                                                        \
  {                                                                                                 \
    void* fn = nullptr;                                                                             \
    CUdriverProcAddressQueryResult status{};                                                        \
    if (get_proc(#name, &fn, entry_version(#name), CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || \
        fn == nullptr) {                                                                            \
      loaded.failure = "the CUDA driver is too old for cutune (no " #name " for CUDA " +           \
                       std::to_string(CUDA_VERSION) + ")";                                          \
      return loaded;                                                                                \
    }                                                                                               \
    api.name = reinterpret_cast<decltype(api.name)>(fn);                                            \
  }
  CUTUNE_DRIVER_FUNCTIONS(CUTUNE_RESOLVE)
#undef CUTUNE_RESOLVE
  CUresult init = api.cuInit(0);
  if (init == CUDA_ERROR_NO_DEVICE) {
    loaded.failure = "no CUDA device: the driver is installed but sees no GPU";
  } else if (init != CUDA_SUCCESS) {
    loaded.failure = "no CUDA device: " + describe(init, "cuInit");
  }
  return loaded;
}

const Loaded& loaded() {
  static const Loaded instance = load();
  return instance;
}

}  // namespace

const DriverApi& driver() {
  const Loaded& l = loaded();
  if (l.failure) throw NoDeviceError(*l.failure);
  return l.api;
}

std::string describe(CUresult result, const char* call) {
  const DriverApi& api = loaded().api;
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName != nullptr) api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString != nullptr) api.cuGetErrorString(result, &text);
  std::string out = std::string(call) + ": " + (name ? name : "CUDA error " + std::to_string(result));
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

void check(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) throw CudaError(describe(result, call));
}

bool is_sticky(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

}  // namespace cutune::detail
