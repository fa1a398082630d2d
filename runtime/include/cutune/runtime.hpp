// The C++ runtime API: ready-to-launch kernels whose configuration comes from the tuning database.
//
//   cutune::Runtime runtime({.database = "cutune.db"});
//   const cutune::RuntimeKernel& transpose = runtime.kernel("transpose", "8192x4096");
//   transpose(stream, d_out, d_in, 8192, 4096);   // the spec's arguments, in its order
//   std::cout << cutune::to_string(transpose.choice().match);  // which rule chose the configuration
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <optional>
#if __cplusplus >= 202002L
#include <span>
#endif
#include <string>
#include <string_view>
#include <vector>

#include "cutune/cubin_cache.hpp"
#include "cutune/database.hpp"
#include "cutune/operation.hpp"
#include "cutune/spec.hpp"

namespace cutune {

class RuntimePipeline;

/// The configuration for (kernel version, device, shape): the stored best of this very shape (Match::Exact); else,
/// of every configuration this GPU measured for the kernel version (the fastest few of each tuned shape), the one
/// predicted fastest at this shape and valid there (Match::Predicted, fallback_model.hpp); else another GPU's of the
/// same compute capability at its nearest tuned shape, where valid here (Match::SameArchitecture); else the spec's
/// default configuration (Match::Default; `result` then holds only the configuration), also without a database
/// (null). Where the default itself breaks a constraint at this shape, the valid configuration nearest to it (fewest
/// parameters changed).
/// Only results measured under the L2 convention spec.l2_flush(flush) count (`flush`, else the spec's, else Read).
BestConfig choose_config(Database* db, const KernelSpec& spec, const DeviceIdentity& device, const Shape& shape,
                         std::optional<L2Flush> flush = std::nullopt);

/// Which implementation of an operation runs at a shape, and why.
struct OperationChoice {
  std::size_t implementation = 0;  ///< an index into the operation's implementations
  std::vector<BestConfig> answers;  ///< each implementation's choose_config() at the shape, in the operation's order
  std::string reason;               ///< the rule that chose, in words
};
/// The rule the runtime launches an operation by (Runtime::kernel of an operation): the fastest implementation
/// measured at this very shape on this GPU model; at a shape none was, the untuned implementation (the library's own
/// choice), unless a template was predicted from a shape where this GPU measured it at least 5% faster than the untuned
/// implementation; without an untuned implementation, the first one's fallback. Results count as in choose_config().
OperationChoice choose_operation(Database* db, const OperationSpec& operation, const DeviceIdentity& device,
                                 const Shape& shape, std::optional<L2Flush> flush = std::nullopt);

/// One launch argument: the address of a value the kernel takes (a device pointer or a scalar) and its size.
struct KernelArg {
  const void* address = nullptr;
  std::size_t bytes = 0;
};

/// A compiled and loaded kernel for one shape, with its launch geometry resolved. Owned by its Runtime.
class RuntimeKernel {
 public:
  struct Impl;
  explicit RuntimeKernel(std::unique_ptr<Impl> impl);
  ~RuntimeKernel();
  RuntimeKernel(const RuntimeKernel&) = delete;
  RuntimeKernel& operator=(const RuntimeKernel&) = delete;

  const KernelSpec& spec() const;
  const Shape& shape() const;
  /// The configuration, the rule that chose it and the measurement behind it (see choose_config()).
  const BestConfig& choice() const;
  const Config& config() const;
  const Launch& geometry() const;
  /// The loaded kernel (a CUfunction; null for a library family, whose launch is the library's call), for launches the runtime does not make itself (a host pipeline's chunks),
  /// made after make_current(), which makes the kernel's context (its device's primary one) current on this thread.
  void* function() const;
  void make_current() const;
  /// Whether the binary came from the on-disk cubin cache rather than a compile.
  bool from_cache() const;
  /// Milliseconds from the request to a ready kernel: lookup, cubin (cache or compile), module load.
  double ready_ms() const;

  /// Enqueues the kernel on `stream` (a CUstream or cudaStream_t; null is the legacy default stream). One argument
  /// per spec argument, in the spec's order; their count and sizes are checked (InputError), a failed launch
  /// throws CudaError. In the place of a CUtensorMap argument goes the device pointer of the tensor it describes
  /// (16-byte aligned): the map is encoded over it at each launch, with the chosen configuration's box. In the place
  /// of a constant-memory argument goes the address of its data (device or host memory): it is copied into the
  /// kernel's __constant__ array on `stream` before the launch (launches on other streams with other contents at the
  /// same time would race for that one array). A spec with a cluster launches with it (cuLaunchKernelEx). Thread-safe.
  void launch(void* stream, const KernelArg* args, std::size_t count) const;
  void launch(void* stream, std::initializer_list<KernelArg> args) const { launch(stream, args.begin(), args.size()); }
#if __cplusplus >= 202002L
  void launch(void* stream, std::span<const KernelArg> args) const { launch(stream, args.data(), args.size()); }
#endif
  /// launch() with the values themselves: kernel(stream, d_out, d_in, m, n).
  template <typename... Args>
  void operator()(void* stream, const Args&... args) const {
    const std::array<KernelArg, sizeof...(Args)> list{KernelArg{&args, sizeof(Args)}...};
    launch(stream, list.data(), list.size());
  }

 private:
  std::unique_ptr<Impl> impl_;
};

/// Where the runtime finds its configurations and binaries.
struct RuntimeOptions {
  /// The tuning database; empty: none, every kernel runs its spec's default configuration. It must exist.
  std::filesystem::path database;
  /// Compiled kernels are read from and written to this cache; empty: compile every time.
  std::filesystem::path cache_directory = CubinCache::default_directory();
  /// CUDA device ordinal; -1: the device of the context current on the calling thread (as the CUDA runtime
  /// chose it), or device 0 when none is current.
  int device = -1;
  /// The L2 convention whose results count (l2_flush.hpp): times measured under another are never compared with
  /// them. Unset: each spec's "measure.flush", else Read, as `tune` stores them by default.
  std::optional<L2Flush> flush = {};
  /// Tuning on demand: above 0, a shape kernel() has no result of its own for is launched with the fallback at once
  /// and tuned in the background with this budget (the `tune` program, in a process of its own, on this device,
  /// into `database`, which must be writable); the first kernel() after its tuning stored a result hands out the
  /// tuned kernel. Kernels asked for by name or spec file only (kernel(name_or_spec, shape)), or by a KernelSpec of
  /// a built-in kernel.
  int tune_budget = 0;
  /// The `tune` program for tuning on demand; empty: $CUTUNE_TUNE, else beside this program, else where cutune was
  /// built or installed.
  std::filesystem::path tune_program = {};
};

/// Hands out ready-to-launch kernels on one device, in its primary context (the one the CUDA runtime uses), which
/// it holds (retains) from construction to destruction.
/// Kernels are kept: asking again for the same kernel and shape is a map lookup. Thread-safe.
class Runtime {
 public:
  /// Throws NoDeviceError without a GPU, DatabaseError when the database cannot be opened, InputError when it
  /// does not exist (or, tuning on demand, when it is not writable or the tune program is not found).
  explicit Runtime(RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// A built-in kernel by name, or a spec file (.json), for a shape written "8192x4096". The reference stays
  /// valid as long as the Runtime; with tuning on demand, a later request may hand out another kernel, the tuned
  /// one (the earlier reference stays valid and keeps its configuration). Throws InputError/SpecError for unknown kernels or bad shapes, CudaError
  /// when the configuration does not compile or load.
  const RuntimeKernel& kernel(std::string_view name_or_spec, std::string_view shape);
  const RuntimeKernel& kernel(const KernelSpec& spec, const Shape& shape);
  /// An operation's implementation at `shape` (a name or file given to kernel() above may name an operation too):
  /// the fastest of those measured at this very shape; at a shape none was, the untuned implementation (the library's
  /// own choice) unless a template was predicted from a shape where it beat the library by 5%; the kernel is that
  /// implementation's (spec() says which, choice() why its configuration). docs/applications.md, "Operations".
  /// A shape none was measured at is the operation's wanted shape (under its name and OperationSpec::hash()) and,
  /// with tune_budget, tuned on demand for every implementation (`tune --kernel OPERATION`); a later request then
  /// hands out the winner. An OperationSpec passed as such is tuned on demand when it is a built-in operation.
  const RuntimeKernel& kernel(const OperationSpec& operation, const Shape& shape);

  /// The tuned host pipeline of a spec with a pipeline section, for a shape (cutune/runtime_pipeline.hpp): its
  /// kernel comes from kernel(), its chunk size and streams from the same configuration. Throws InputError when
  /// the spec has no pipeline section.
  RuntimePipeline pipeline(std::string_view name_or_spec, std::string_view shape);

  const DeviceIdentity& device() const;
  /// The CUDA device ordinal of that device.
  int ordinal() const;
  /// The database in use, or null.
  Database* database();

  /// The shapes this Runtime was asked for and had no result of their own for (a fallback or the spec's default
  /// answered), with how often and when. Each is added to the database's wanted list (`tune wanted`, `tune
  /// --wanted`) when first asked for, and the counts of repeated requests when the Runtime ends; a read-only
  /// database (or none) leaves them here, for save_wanted() and `tune wanted --add FILE`.
  std::vector<WantedShape> wanted() const;
  void save_wanted(const std::filesystem::path& path) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune
