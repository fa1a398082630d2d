// Loads libcublasLt with dlopen and resolves its entry points with dlsym.
#include "cublaslt.hpp"

#include <dlfcn.h>

#include "cutune/error.hpp"

namespace cutune::detail {

const std::vector<std::string>& cublaslt_sonames() {
  static const std::vector<std::string> names = {"libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR),
                                                 "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR - 1)};
  return names;
}

std::optional<CublasLtApi> load_cublaslt(const std::vector<std::string>& sonames, std::string& why) {
  void* library = nullptr;
  CublasLtApi api;
  for (const std::string& name : sonames) {
    library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) {
      api.soname = name;
      break;
    }
  }
  if (library == nullptr) {
    why = "none of ";
    for (std::size_t i = 0; i < sonames.size(); ++i) why += (i == 0 ? "" : ", ") + sonames[i];
    why += " is on the library path";
    return std::nullopt;
  }
#define CUTUNE_RESOLVE(name)                                                             \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));                \
  if (api.name == nullptr) {                                                             \
    why = api.soname + " has no " #name " (cutune needs cuBLASLt " +                     \
          std::to_string(CUBLAS_VER_MAJOR - 1) + " or later)";                           \
    return std::nullopt;                                                                 \
  }
  CUTUNE_CUBLASLT_FUNCTIONS(CUTUNE_RESOLVE)
#undef CUTUNE_RESOLVE
  return api;
}

std::string cublaslt_missing(std::string_view needed_by, std::string_view why) {
  return std::string(needed_by) + " runs through cuBLASLt, which cannot be loaded: " + std::string(why) +
         " (install the CUDA toolkit's cuBLAS, or tune the operation's templates by their own names)";
}

const CublasLtApi& cublaslt(std::string_view needed_by) {
  struct Loaded {
    std::optional<CublasLtApi> api;
    std::string why;
  };
  static const Loaded loaded = [] {
    Loaded l;
    l.api = load_cublaslt(cublaslt_sonames(), l.why);
    return l;
  }();
  if (!loaded.api) throw CudaError(cublaslt_missing(needed_by, loaded.why));
  return *loaded.api;
}

int cublaslt_version() {
  try {
    return static_cast<int>(cublaslt("cublasLtGetVersion").cublasLtGetVersion());
  } catch (const CudaError&) {
    return 0;
  }
}

std::string describe(cublasStatus_t status, const char* call) {
  const char* name = nullptr;
  try {
    name = cublaslt(call).cublasLtGetStatusName(status);
  } catch (const CudaError&) {  // a status came from somewhere, so the library is there; if not, the number
  }
  return std::string(call) + ": " +
         (name != nullptr ? std::string(name) : "cuBLAS status " + std::to_string(static_cast<int>(status)));
}

}  // namespace cutune::detail
