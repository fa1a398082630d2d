// The runtime's private state: what a RuntimeKernel holds, and what a Runtime keeps of the kernels it handed out.
// Shared by runtime.cpp (lookups and kernels), runtime_kernel.cpp (launches) and runtime_operations.cpp.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cutune/device.hpp"
#include "cutune/runtime.hpp"
#include "cutune/tensor_map.hpp"
#include "driver/cuda_driver.hpp"
#include "driver/device_memory.hpp"
#include "library_launch.hpp"
#include "on_demand.hpp"
#include "wanted_log.hpp"

namespace cutune {

struct RuntimeKernel::Impl {
  KernelSpec spec;
  Shape shape;
  BestConfig choice;
  Config config;
  Launch geometry;
  const Device* device = nullptr;
  detail::Module module;
  CUfunction function = nullptr;
  std::vector<std::size_t> arg_bytes;
  std::vector<std::optional<TensorMapLayout>> tensor_maps;  // per argument: the layout of a tensor map at this shape
  std::vector<char> unread_maps;  // per argument: a tensor map the configuration does not read (passed as zeros)
  std::size_t tensor_map_count = 0;
  /// Per argument: a constant-memory argument's __constant__ symbol (0 for the others) and the bytes copied into it.
  std::vector<CUdeviceptr> constant_symbols;
  std::vector<std::size_t> constant_bytes;
  bool from_cache = false;
  double ready_ms = 0.0;
  std::unique_ptr<detail::LibraryLaunch> library;  // a library family's call, in place of the module's kernel
};

struct Runtime::Impl {
  Device device;
  std::optional<Database> db;
  std::optional<CubinCache> cache;
  std::optional<L2Flush> flush;  // RuntimeOptions::flush
  std::mutex mutex;
  // A kernel handed out, and the wanted shape it counts requests of when its shape had no result of its own.
  struct Kept {
    std::unique_ptr<RuntimeKernel> kernel;
    detail::WantedLog::Entry* wanted = nullptr;
    std::shared_ptr<detail::TuneJob> tuning;  // tuning on demand, until its end was seen
    bool noted = false;  // asked for on its own (not only as an operation's implementation): wanted, tuned on demand
  };
  // An operation at a shape: the kept kernel of the implementation its rule launches, and the operation's own wanted
  // shape and tuning on demand (every implementation) when none of them had a result of the shape's own.
  struct OperationKept {
    Kept* chosen = nullptr;
    detail::WantedLog::Entry* wanted = nullptr;
    std::shared_ptr<detail::TuneJob> tuning;
  };
  // A request by its text: a kernel's, or an operation's.
  struct Asked {
    Kept* kept = nullptr;
    OperationKept* operation = nullptr;
  };
  // By (name, version, shape); requests by name are also remembered by their own text, so that a repeated request
  // neither parses the spec again nor formats the shape.
  std::unordered_map<std::string, Kept> kernels;
  std::unordered_map<std::string, OperationKept> operations;
  std::unordered_map<std::string, Asked> requests;  // elements of an unordered_map keep their address
  detail::WantedLog wanted;
  // Kernels handed out before tuning on demand replaced them: references to them stay valid.
  std::vector<std::unique_ptr<RuntimeKernel>> replaced;
  // Last, so that it stops (and with it the preparing of kernels, which uses the members above) before they go.
  std::unique_ptr<detail::OnDemandTuner> on_demand;

  explicit Impl(int ordinal) : device(ordinal) {}
  /// `name_or_spec`: what the application asked for, when it gave a name or a spec file (for tuning on demand).
  /// `alone`: asked for on its own, not as an operation's implementation (whose wanted shape and tuning on demand are
  /// the operation's).
  Kept& get(const KernelSpec& spec, const Shape& shape, const std::string_view* name_or_spec, bool alone = true);
  /// A shape asked for on its own without a result of its own: noted as wanted, and tuned on demand.
  void note_untuned(Kept& kept, const KernelSpec& spec, const Shape& shape, const std::string_view* name_or_spec);
  /// The operation at `shape`, as first asked for (`name_or_file`: the operation's name or file, for tuning on demand;
  /// null for an OperationSpec passed as such).
  OperationKept& get_operation(const OperationSpec& operation, const Shape& shape, const std::string_view* name_or_file);
  /// The kept kernel of the implementation launched at `shape`: implementation_at()'s, or where that is the untuned
  /// implementation and it cannot run there, the other one.
  Kept& implementation_kernel(const OperationSpec& operation, const Shape& shape);
  /// An operation asked for again: the winner once its tuning on demand ended, counted when its shape is wanted.
  const RuntimeKernel& answer_operation(OperationKept& op);
  const RuntimeKernel& answer(Asked& asked) { return asked.kept ? answer(*asked.kept) : answer_operation(*asked.operation); }
  /// The operation's tuning ended: its winner's kernel, made ready on the tuning thread, is kept as its
  /// implementation's at the shape, and launched for the operation from now on.
  void adopt_operation(OperationKept& op);
  /// The implementation of `operation` launched at `shape` (choose_implementation()'s rule over choose()'s answers).
  std::size_t implementation_at(const OperationSpec& operation, const Shape& shape);
  BestConfig choose(const KernelSpec& spec, const Shape& shape) {
    return choose_config(db ? &*db : nullptr, spec, device.identity(), shape, flush);
  }
  std::unique_ptr<RuntimeKernel> make(const KernelSpec& spec, const Shape& shape, BestConfig choice);
  // make()'s end for a library family: its call planned at the shape in place of a compiled kernel.
  std::unique_ptr<RuntimeKernel> make_library(std::unique_ptr<RuntimeKernel::Impl> k,
                                              std::chrono::steady_clock::time_point start);
  void start_on_demand(const RuntimeOptions& options);
  std::unique_ptr<RuntimeKernel> prepare_tuned(const detail::TuneJob& job);

  // A request answered: the tuned kernel once tuning on demand prepared it, and counted when its shape is a wanted
  // one.
  const RuntimeKernel& answer(Kept& kept) {
    if (kept.tuning != nullptr && kept.tuning->done()) adopt_tuned(kept);
    if (kept.wanted != nullptr) detail::WantedLog::count(*kept.wanted);
    return *kept.kernel;
  }
  void adopt_tuned(Kept& kept) {
    if (kept.tuning->ready != nullptr) {
      replaced.push_back(std::move(kept.kernel));
      kept.kernel = std::move(kept.tuning->ready);
      kept.wanted = nullptr;  // the shape has a result of its own now
    }
    kept.tuning.reset();
  }
};

/// What `tune --kernel` is given for an operation asked for by name or file: its name, or the file's absolute path;
/// for an OperationSpec passed as such (null), its name when it is a built-in operation of this version, else nothing.
std::string operation_tune_name(const std::string_view* name_or_file, const OperationSpec& operation);
/// The key of a kept kernel: (name, version, shape).
std::string kept_key(const std::string& name, const std::string& hash, const Shape& shape);

/// What `tune --kernel` is given for a spec asked for by name or file (as load_kernel() tells them apart): the name
/// of a built-in, a spec file's absolute path; for a spec passed as such (null), its name when it is a built-in.
std::string tune_name(const std::string_view* name_or_spec, const KernelSpec& spec);

}  // namespace cutune
