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
  };
  // By (name, version, shape); requests by name are also remembered by their own text, so that a repeated request
  // neither parses the spec again nor formats the shape.
  std::unordered_map<std::string, Kept> kernels;
  std::unordered_map<std::string, Kept*> requests;  // elements of an unordered_map keep their address
  detail::WantedLog wanted;
  // Kernels handed out before tuning on demand replaced them: references to them stay valid.
  std::vector<std::unique_ptr<RuntimeKernel>> replaced;
  // Last, so that it stops (and with it the preparing of kernels, which uses the members above) before they go.
  std::unique_ptr<detail::OnDemandTuner> on_demand;

  explicit Impl(int ordinal) : device(ordinal) {}
  /// `name_or_spec`: what the application asked for, when it gave a name or a spec file (for tuning on demand).
  Kept& get(const KernelSpec& spec, const Shape& shape, const std::string_view* name_or_spec);
  /// The kept kernel of the implementation launched at `shape`: implementation_at()'s, or where that is the untuned
  /// implementation and it cannot run there, the other one.
  Kept& get_operation(const OperationSpec& operation, const Shape& shape);
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

/// What `tune --kernel` is given for a spec asked for by name or file (as load_kernel() tells them apart): the name
/// of a built-in, a spec file's absolute path; for a spec passed as such (null), its name when it is a built-in.
std::string tune_name(const std::string_view* name_or_spec, const KernelSpec& spec);

}  // namespace cutune
