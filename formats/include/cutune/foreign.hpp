// Results of other tuners in cutune's database: T4 result files (Kernel Tuner's and KTT's dialects) and Kernel Tuner
// cache files are read into runs, and cutune's runs are written as both (formats "t4" and "kt-cache" of exchange.hpp;
// a cache holds one kernel on one device at one shape and L2 convention, kt_export.cpp says how it is written).
//
// What a foreign record becomes (the keys of the database):
// - device: the name the file gives (or --device); compute capability and SM count from known_gpu(), 0 when the
//   GPU is not in that table (the run's command then says so);
// - kernel: the file's kernel name (or --kernel), and as its hash foreign_kernel_hash() of that name and the
//   parameter names, never a hash of source and spec, so foreign results never share a version with cutune's own
//   kernels, and a cache and a T4 file of the same kernel share one;
// - shape: the problem size joined by 'x' (4096x4096), or --shape;
// - configuration: NAME=VALUE in the file's parameter order;
// - status: Kernel Tuner's failure names and T4's invalidity, mapped as foreign_status() documents; a cache written by
//   cutune names its status ("cutune_status") where Kernel Tuner's verdict does not say it, and that status is kept;
// - times: milliseconds; the objective value of the file (Kernel Tuner's "time" is the mean of its launches) is
//   the result's median_ms, so the optimum is the one the other tool reported; compile, verification, benchmark,
//   framework and strategy times (a cache's compile_time ... strategy_time, T4's compilation_time, validation,
//   framework, search_algorithm) are kept as Result's compile_ms ... search_ms, unknown (NaN) where absent;
// - L2 convention: read, as the files do not say (their kernel versions are never cutune's, so their times are
//   compared only with other imported results of the same kernel);
// - provenance: host "(imported)", the importing cutune's version, and a command naming the format and file; the
//   run's uid is a hash of the file's content and the context, so importing a file twice changes nothing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cutune/database.hpp"
#include "cutune/result.hpp"

namespace cutune {

/// What a foreign file does not say about its results (T4 files name no device, kernel or problem size). Empty
/// fields take the file's own values; given ones replace them.
struct ForeignContext {
  std::string device;  ///< e.g. "NVIDIA A100-PCIE-40GB"
  std::string kernel;  ///< e.g. "convolution_kernel"
  std::string shape;   ///< e.g. "4096x4096"
  bool empty() const { return device.empty() && kernel.empty() && shape.empty(); }
};

/// A GPU model's key fields, for files that give only a name.
struct KnownGpu {
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
};
/// Compute capability and SM count of the GPU models found in published tuning data (A100, A4000, A6000,
/// RTX 3090, RTX 2080 Ti, RTX 2080, ...), matched on the model's name inside the device name; nullopt otherwise.
std::optional<KnownGpu> known_gpu(std::string_view device_name);

/// The kernel hash of foreign results: hash_hex("foreign\n" + kernel name + "\n" + parameter names joined by ',').
std::string foreign_kernel_hash(std::string_view kernel_name, std::string_view parameter_names);

/// Kernel Tuner's failure names and T4's invalidity values as cutune statuses:
///   CompilationFailedConfig, T4 "compile"    -> compile_error
///   InvalidConfig, T4 "constraints"          -> launch_error (a configuration the device cannot launch)
///   RuntimeFailedConfig, T4 "runtime"        -> runtime_error
///   T4 "timeout"                             -> timeout
///   T4 "correctness"                         -> wrong_result
///   T4 "correct"                             -> ok
///   any other failure name (NonFiniteTime, ...) -> runtime_error
Status foreign_status(std::string_view name);

/// Imports a T4 or Kernel Tuner cache file (format "t4" or "kt-cache", or detected when empty) with `context`
/// filling in or replacing what the file says. Throws InputError when a needed field is neither in the file
/// nor in the context, naming the option that supplies it.
ImportSummary import_foreign_file(Database& db, const std::filesystem::path& file, std::string_view format,
                                  const ForeignContext& context);

}  // namespace cutune
