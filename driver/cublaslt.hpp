// cuBLASLt, loaded at run time like the driver, so that cutune starts, compiles and tunes its own kernels on machines
// without it; only a library family (cutune/library.hpp) needs it, and says so when it is missing.
#pragma once

#include <cublasLt.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cutune::detail {

#define CUTUNE_CUBLASLT_FUNCTIONS(X)                                                                             \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetVersion) X(cublasLtGetStatusName) X(cublasLtMatmulDescCreate) \
  X(cublasLtMatmulDescDestroy) X(cublasLtMatmulDescSetAttribute) X(cublasLtMatrixLayoutCreate)                    \
  X(cublasLtMatrixLayoutDestroy) X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy)             \
  X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmul)                     \
  X(cublasLtMatmulAlgoConfigGetAttribute) X(cublasLtMatmulAlgoConfigSetAttribute) X(cublasLtMatmulAlgoGetIds)       \
  X(cublasLtMatmulAlgoInit) X(cublasLtMatmulAlgoCheck) X(cublasLtMatmulAlgoCapGetAttribute)

struct CublasLtApi {
#define CUTUNE_DECLARE(name) decltype(&::name) name = nullptr;
  CUTUNE_CUBLASLT_FUNCTIONS(CUTUNE_DECLARE)
#undef CUTUNE_DECLARE
  std::string soname;  ///< the file dlopen found
};

/// The sonames looked for, newest first: the toolkit's own major version, then the one before it.
const std::vector<std::string>& cublaslt_sonames();

/// Loads the first of `sonames` that dlopen finds and resolves every entry point; nullopt with `why` set when none
/// is found or one lacks an entry point.
std::optional<CublasLtApi> load_cublaslt(const std::vector<std::string>& sonames, std::string& why);

/// The process's cuBLASLt, loaded once. Throws CudaError naming `needed_by` (the spec that runs through it) and the
/// files looked for when it is missing.
const CublasLtApi& cublaslt(std::string_view needed_by);

/// cublasLtGetVersion() of the process's cuBLASLt (e.g. 130100), recorded with a library family's runs; 0 when it
/// cannot be loaded.
int cublaslt_version();

/// The message of that error: `needed_by` runs through cuBLASLt, `why` it is unusable.
std::string cublaslt_missing(std::string_view needed_by, std::string_view why);

/// "cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED"; the number when the library's name for it is unknown.
std::string describe(cublasStatus_t status, const char* call);

}  // namespace cutune::detail
