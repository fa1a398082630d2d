// The runtime API: picks a kernel's configuration from the database, loads its cubin, and launches it.
#include "cutune/runtime.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "driver/cluster_launch.hpp"
#include "driver/cuda_driver.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "cutune/tensor_map.hpp"
#include "base/log.hpp"
#include "fallback_model.hpp"
#include "library_launch.hpp"
#include "operation_choice.hpp"
#include "on_demand.hpp"
#include "wanted_log.hpp"
#include "driver/constant_symbol.hpp"
#include "driver/device_memory.hpp"
#include "driver/tensor_map_encode.hpp"

namespace cutune {
namespace {

// The application's device: the one its current context belongs to. cuCtxGetDevice is outside the tuner's
// driver table, so it is looked up here, in the libcuda.so.1 that detail::driver() has loaded.
int current_device() {
  detail::driver();
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) return 0;
  using GetDevice = CUresult (*)(CUdevice*);
  auto get_device = reinterpret_cast<GetDevice>(dlsym(library, "cuCtxGetDevice"));
  CUdevice device = 0;
  const bool found = get_device != nullptr && get_device(&device) == CUDA_SUCCESS;
  dlclose(library);
  return found ? static_cast<int>(device) : 0;
}

// Whether the GPU's architecture can run a configuration valid at the shape: its target, and its cluster.
bool architecture_runs(const KernelSpec& spec, const Config& config, const Shape& shape, const DeviceLimits& limits) {
  return !architecture_lacks(spec, spec.scope(config, &shape), spec.resolve(spec.launch, config, shape, limits.sm_count),
                             limits.compute_capability);
}

// The spec's default configuration, or where the shape or the GPU's architecture rules it out (an alignment it
// needs, an sm_90a target), the valid configuration that differs from it in the fewest parameters (the first such
// in enumeration order).
Config default_at(const KernelSpec& spec, const Shape& shape, const DeviceLimits& limits) {
  const Config preferred = spec.default_config();
  if (!invalid_config(spec, spec.format(preferred), shape.str()) && architecture_runs(spec, preferred, shape, limits)) {
    return preferred;
  }
  const Space space = Space::enumerate(spec, shape, limits);
  const Config* best = nullptr;
  std::size_t best_distance = spec.parameters.size() + 1;
  for (const Config& c : space.configs()) {
    std::size_t distance = 0;
    for (std::size_t p = 0; p < c.values.size(); ++p) distance += !(c.values[p] == preferred.values[p]);
    if (distance < best_distance) best = &c, best_distance = distance;
  }
  return best != nullptr ? *best : preferred;  // no valid configuration at all: the default itself
}

std::string type_name(const Argument& a) {
  if (a.tensor_map) return "CUtensorMap (passed as the device pointer of its tensor)";
  return std::string(to_string(a.type)) + (a.is_buffer ? "*" : "");
}

// What `tune --kernel` is given for a spec passed as such: its name when it is a built-in kernel of this version,
// else nothing (a spec of one's own is tuned on demand when asked for by its file).
std::string builtin_tune_name(const KernelSpec& spec) {
  for (const std::string& name : builtin_kernels()) {
    if (name == spec.name) return load_kernel(name).hash == spec.hash ? name : std::string();
  }
  return {};
}

constexpr std::size_t kTensorAlignment = 16;  // cuTensorMapEncodeTiled: the tensor's address, in bytes

}  // namespace

BestConfig choose_config(Database* db, const KernelSpec& spec, const DeviceIdentity& device, const Shape& shape,
                         std::optional<L2Flush> flush) {
  const L2Flush convention = spec.l2_flush(flush);
  if (db != nullptr) {
    auto found = db->best_with_fallback({spec.name, spec.hash, device, shape.str(), convention});
    // A database may come from elsewhere: a stored configuration that is not one of the spec's at its own shape
    // is refused.
    if (found) {
      if (auto why = invalid_config(spec, found->result.config, found->shape)) {
        throw DatabaseError("database " + db->path().string() + ": the stored best configuration of " + spec.name +
                            " at " + found->shape + " on " + found->device.name + " is not valid: " + *why);
      }
      if (found->match == Match::Exact) return *found;
    }
    // A library family's configuration (a rank among the heuristic's answers) names an algorithm only at the shape
    // it was measured at: elsewhere the default, the library's own choice.
    if (!spec.library) {
      // No result of its own: every configuration this GPU measured for the kernel competes (fallback_model.hpp).
      const auto tuned =
          db->top_results(device, {spec.name, spec.hash}, convention, detail::kFallbackCandidatesPerShape);
      if (auto predicted = detail::predict_best(spec, device, shape, tuned, convention)) return *predicted;
      // Nothing of this GPU runs at the shape: another GPU's of the same compute capability, where valid here.
      if (found && !invalid_config(spec, found->result.config, shape.str())) return *found;
    }
  }
  BestConfig fallback;
  fallback.match = Match::Default;
  fallback.result.config =
      spec.format(default_at(spec, shape, limits_of_compute_capability(device.cc_major * 10 + device.cc_minor)));
  fallback.kernel = {spec.name, spec.hash};
  fallback.device = device;
  fallback.shape = shape.str();
  fallback.flush = convention;
  return fallback;
}

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

namespace {

// Where each constant-memory argument goes in the loaded module, and how many bytes it takes at the kernel's shape.
void find_constant_symbols(const KernelSpec& spec, const Config& config, const Shape& shape,
                           const detail::Module& module, std::vector<CUdeviceptr>& symbols,
                           std::vector<std::size_t>& bytes) {
  const std::vector<Value> scope = spec.scope(config, &shape);
  for (const Argument& a : spec.arguments) {
    symbols.push_back(0);
    bytes.push_back(0);
    if (!a.in_constant_memory()) continue;
    bytes.back() = static_cast<std::size_t>(a.size.eval(scope).as_int()) * element_size(a.type);
    if (auto why = detail::constant_symbol(module, a, bytes.back(), &symbols.back())) {
      throw CudaError(spec.name + " at " + shape.str() + ": " + *why);
    }
  }
}

}  // namespace

RuntimeKernel::RuntimeKernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RuntimeKernel::~RuntimeKernel() = default;
const KernelSpec& RuntimeKernel::spec() const { return impl_->spec; }
const Shape& RuntimeKernel::shape() const { return impl_->shape; }
const BestConfig& RuntimeKernel::choice() const { return impl_->choice; }
const Config& RuntimeKernel::config() const { return impl_->config; }
const Launch& RuntimeKernel::geometry() const { return impl_->geometry; }
void* RuntimeKernel::function() const { return impl_->function; }
void RuntimeKernel::make_current() const { impl_->device->make_current(); }
bool RuntimeKernel::from_cache() const { return impl_->from_cache; }
double RuntimeKernel::ready_ms() const { return impl_->ready_ms; }

void RuntimeKernel::launch(void* stream, const KernelArg* data, std::size_t count) const {
  const std::span<const KernelArg> args(data, count);
  const Impl& k = *impl_;
  if (args.size() != k.arg_bytes.size()) {
    throw InputError(k.spec.name + " takes " + std::to_string(k.arg_bytes.size()) + " arguments, got " +
                     std::to_string(args.size()));
  }
  // cuLaunchKernel reads each argument through a pointer; it copies them before returning.
  std::array<void*, 16> small{};
  std::vector<void*> large(args.size() > small.size() ? args.size() : 0);
  void** params = large.empty() ? small.data() : large.data();
  // Tensor maps are encoded here, over the pointer passed in their place: a host-side call of about a microsecond,
  // and nothing shared between threads launching at once.
  std::vector<CUtensorMap> maps(k.tensor_map_count, CUtensorMap{});
  std::size_t next_map = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Argument& a = k.spec.arguments[i];
    if (args[i].bytes != k.arg_bytes[i]) {
      throw InputError("argument " + std::to_string(i + 1) + " (" + a.name + ") of " + k.spec.name + " is a " +
                       type_name(a) + " of " + std::to_string(k.arg_bytes[i]) + " bytes, got " +
                       std::to_string(args[i].bytes) + " bytes");
    }
  }
  k.device->make_current();
  if (k.library) {
    k.library->launch(stream, data);
    return;
  }
  std::size_t next_param = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Argument& a = k.spec.arguments[i];
    if (k.constant_symbols[i] != 0) {  // constant memory: the data at the address passed, copied in on the stream
      CUdeviceptr data = 0;
      std::memcpy(&data, args[i].address, sizeof data);
      if (data == 0) throw InputError("argument " + std::to_string(i + 1) + " (" + a.name + ") of " + k.spec.name +
                                      " is a null pointer; constant memory is copied from it");
      detail::check(detail::driver().cuMemcpyAsync(k.constant_symbols[i], data, k.constant_bytes[i],
                                                    static_cast<CUstream>(stream)),
                    "cuMemcpyAsync(constant memory)");
      if (!a.is_parameter()) continue;
    }
    params[next_param] = const_cast<void*>(args[i].address);
    if (k.unread_maps[i]) {
      params[next_param++] = &maps[next_map++];  // zero bytes in the place of a map this configuration never reads
      continue;
    }
    if (!k.tensor_maps[i]) {
      ++next_param;
      continue;
    }
    CUdeviceptr tensor = 0;
    std::memcpy(&tensor, args[i].address, sizeof tensor);
    if (tensor % kTensorAlignment != 0) {
      throw InputError("argument " + std::to_string(i + 1) + " (" + a.name + ") of " + k.spec.name +
                       ": the tensor's address must be a multiple of 16 bytes for TMA");
    }
    CUtensorMap& map = maps[next_map++];
    detail::check(detail::encode_tensor_map(*k.tensor_maps[i], tensor, &map), "cuTensorMapEncodeTiled");
    params[next_param++] = &map;
  }
  detail::check(detail::launch_kernel(k.function, k.geometry, static_cast<CUstream>(stream), params),
                k.geometry.cluster_size() > 1 ? "cuLaunchKernelEx" : "cuLaunchKernel");
}

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

// What `tune --kernel` is given for a spec asked for by name or file (as load_kernel() tells them apart): the name
// of a built-in, a spec file's absolute path; for a spec passed as such (null), its name when it is a built-in.
std::string tune_name(const std::string_view* name_or_spec, const KernelSpec& spec) {
  if (name_or_spec == nullptr) return builtin_tune_name(spec);
  if (!name_or_spec->ends_with(".json")) return spec.name;
  std::error_code error;
  return std::filesystem::absolute(*name_or_spec, error).string();
}

void Runtime::Impl::start_on_demand(const RuntimeOptions& options) {
  if (!db) throw InputError("tuning on demand (tune_budget) needs a database to tune into");
  const std::filesystem::path path = std::filesystem::absolute(options.database);
  if (::access(path.c_str(), W_OK) != 0 || ::access(path.parent_path().c_str(), W_OK) != 0) {
    throw InputError("tuning on demand stores its results in the database, and '" + options.database.string() +
                     "' (or its folder) is not writable");
  }
  detail::OnDemandSettings settings;
  settings.budget = options.tune_budget;
  settings.program = detail::find_tune_program(options.tune_program);
  settings.database = path;
  if (cache) settings.cache_directory = std::filesystem::absolute(cache->directory());
  settings.device = device.ordinal();
  on_demand = std::make_unique<detail::OnDemandTuner>(
      std::move(settings), [this](const detail::TuneJob& job) { return prepare_tuned(job); });
}

// On the tuning thread: the stored best of the shape, if tuning stored one, made ready while the application goes on.
std::unique_ptr<RuntimeKernel> Runtime::Impl::prepare_tuned(const detail::TuneJob& job) {
  BestConfig choice;
  {
    const std::lock_guard lock(mutex);  // the database connection is the requests' too
    choice = choose(job.spec, job.shape);
  }
  if (choice.match != Match::Exact) return nullptr;
  return make(job.spec, job.shape, std::move(choice));
}

Runtime::Impl::Kept& Runtime::Impl::get(const KernelSpec& spec, const Shape& shape,
                                        const std::string_view* name_or_spec) {
  std::string key = spec.name;
  key += '\0';
  key += spec.hash;
  key += '\0';
  key += shape.str();
  if (auto it = kernels.find(key); it != kernels.end()) {
    answer(it->second);
    return it->second;
  }
  Kept kept;
  kept.kernel = make(spec, shape, choose(spec, shape));
  const BestConfig& choice = kept.kernel->choice();
  if (choice.match != Match::Exact) {
    WantedShape key;
    key.kernel = {spec.name, spec.hash};
    key.device = device.identity();
    key.flush = choice.flush;
    key.shape = shape.str();
    kept.wanted = &wanted.note(std::move(key), db ? &*db : nullptr);
    if (on_demand != nullptr) {
      if (std::string tune_as = tune_name(name_or_spec, spec); !tune_as.empty()) {
        kept.tuning = on_demand->submit(std::move(tune_as), spec, shape, choice.flush);
      } else {
        detail::logger()->warn("runtime: {} at {} is not tuned on demand: a spec of one's own is, when asked for by "
                               "its file", spec.name, shape.str());
      }
    }
  }
  return kernels[key] = std::move(kept);
}

std::unique_ptr<RuntimeKernel> Runtime::Impl::make(const KernelSpec& spec, const Shape& shape, BestConfig choice) {
  const auto start = std::chrono::steady_clock::now();
  auto k = std::make_unique<RuntimeKernel::Impl>();
  k->spec = spec;
  k->shape = shape;
  k->device = &device;
  k->choice = std::move(choice);
  k->config = spec.parse_config(k->choice.result.config);
  k->geometry = spec.resolve(spec.launch, k->config, shape, device.limits().sm_count);
  for (const auto& a : spec.arguments) {
    // A tensor map's place takes the device pointer of its tensor, over which the launch encodes the map.
    k->arg_bytes.push_back(a.is_buffer || a.tensor_map ? sizeof(CUdeviceptr) : element_size(a.type));
    const bool used = tensor_map_used(spec, a, k->config);
    k->tensor_maps.push_back(used ? std::optional(tensor_map_layout(spec, a, k->config, shape)) : std::nullopt);
    k->unread_maps.push_back(a.tensor_map && !used);
    k->tensor_map_count += a.tensor_map ? 1 : 0;
  }

  if (spec.library) return make_library(std::move(k), start);
  // A shape-specialized configuration compiles for this shape, also when it was measured at another (a fallback).
  const CompileOutput compiled =
      compile_config_cached(cache ? &*cache : nullptr, spec, k->config, device.identity().arch(), &shape);
  k->from_cache = compiled.from_cache;
  if (!compiled.ok) {
    throw CudaError(spec.name + " " + k->choice.result.config + " does not compile for " + device.identity().arch() +
                    ":\n" + compiled.log);
  }
  device.make_current();
  detail::check(k->module.load(compiled.cubin), "cuModuleLoadData");
  detail::check(k->module.function(compiled.lowered_name, &k->function), "cuModuleGetFunction");
  if (k->geometry.shared_memory > 0) {  // opt in: static shared memory may push the total past 48 KiB
    CU_CHECK(cuFuncSetAttribute, k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
             static_cast<int>(k->geometry.shared_memory));
  }
  if (auto why = detail::prepare_cluster_launch(k->function, k->geometry)) {
    throw CudaError(spec.name + " " + k->choice.result.config + ": " + *why);
  }
  find_constant_symbols(k->spec, k->config, k->shape, k->module, k->constant_symbols, k->constant_bytes);
  k->ready_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  detail::logger()->info("runtime: {} {} on {}: {} ({}), {} in {:.2f} ms", spec.name, k->shape.str(),
                         device.identity().name, k->choice.result.config, to_string(k->choice.match),
                         k->from_cache ? "cached cubin" : "compiled", k->ready_ms);
  return std::make_unique<RuntimeKernel>(std::move(k));
}

std::unique_ptr<RuntimeKernel> Runtime::Impl::make_library(std::unique_ptr<RuntimeKernel::Impl> k,
                                                           std::chrono::steady_clock::time_point start) {
  device.make_current();
  k->library = std::make_unique<detail::LibraryLaunch>(k->spec, k->config, k->shape);
  k->constant_symbols.assign(k->spec.arguments.size(), 0);
  k->constant_bytes.assign(k->spec.arguments.size(), 0);
  k->ready_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  detail::logger()->info("runtime: {} {} on {}: {} ({}), {} in {:.2f} ms", k->spec.name, k->shape.str(),
                         device.identity().name, k->choice.result.config, to_string(k->choice.match),
                         k->library->description(), k->ready_ms);
  return std::make_unique<RuntimeKernel>(std::move(k));
}

Runtime::Runtime(RuntimeOptions options)
    : impl_(std::make_unique<Impl>(options.device >= 0 ? options.device : current_device())) {
  // Held for the Runtime's whole life, as the CUDA runtime holds it: otherwise, in a program whose own context is
  // not the primary one, every kernel() would create the primary context and its release destroy it again.
  impl_->device.retain_context();
  if (!options.database.empty()) {
    if (!std::filesystem::exists(options.database)) {
      throw InputError("tuning database '" + options.database.string() + "' does not exist");
    }
    impl_->db.emplace(options.database);
  }
  if (!options.cache_directory.empty()) impl_->cache.emplace(options.cache_directory);
  impl_->flush = options.flush;
  if (options.tune_budget > 0) impl_->start_on_demand(options);
}

Runtime::~Runtime() {
  impl_->on_demand.reset();  // stops the tuning of a shape (what it measured is stored)
  const std::lock_guard lock(impl_->mutex);
  impl_->wanted.store(impl_->db ? &*impl_->db : nullptr);  // the counts of repeated requests
}

std::vector<WantedShape> Runtime::wanted() const {
  const std::lock_guard lock(impl_->mutex);
  return impl_->wanted.shapes();
}

void Runtime::save_wanted(const std::filesystem::path& path) const { cutune::save_wanted(wanted(), path); }

int Runtime::ordinal() const { return impl_->device.ordinal(); }

const RuntimeKernel& Runtime::kernel(std::string_view name_or_spec, std::string_view shape) {
  std::string request(name_or_spec);
  request += '\0';
  request += shape;
  const std::lock_guard lock(impl_->mutex);
  if (auto it = impl_->requests.find(request); it != impl_->requests.end()) return impl_->answer(*it->second);
  if (is_operation(name_or_spec)) {  // the implementation the rule picks, kept and counted under its own name
    const OperationSpec operation = load_operation(name_or_spec);
    Impl::Kept& kept = impl_->get_operation(operation, operation.parse_shape(shape));
    impl_->requests.emplace(std::move(request), &kept);
    return *kept.kernel;
  }
  const KernelSpec spec = load_kernel(name_or_spec);
  Impl::Kept& kept = impl_->get(spec, spec.parse_shape(shape), &name_or_spec);
  impl_->requests.emplace(std::move(request), &kept);
  return *kept.kernel;
}

const RuntimeKernel& Runtime::kernel(const OperationSpec& operation, const Shape& shape) {
  const std::lock_guard lock(impl_->mutex);
  return *impl_->get_operation(operation, shape).kernel;
}

Runtime::Impl::Kept& Runtime::Impl::get_operation(const OperationSpec& operation, const Shape& shape) {
  const std::size_t chosen = implementation_at(operation, shape);
  try {
    return get(operation.implementations[chosen], shape, nullptr);
  } catch (const CudaError& e) {
    // The library's own choice where nothing was measured: a problem it has no algorithm for, or no library at all,
    // leaves the templates.
    if (!operation.untuned || chosen != *operation.untuned || operation.implementations.size() < 2) throw;
    const std::size_t other = chosen == 0 ? 1 : 0;  // the first implementation that is not the untuned one
    detail::logger()->warn("runtime: {} at {}: {}; launching {}", operation.name, shape.str(), e.what(),
                           operation.implementations[other].name);
    return get(operation.implementations[other], shape, nullptr);
  }
}

std::size_t Runtime::Impl::implementation_at(const OperationSpec& operation, const Shape& shape) {
  std::vector<detail::ImplementationAnswer> answers;
  for (const KernelSpec& spec : operation.implementations) {
    detail::ImplementationAnswer a{choose(spec, shape), std::nullopt};
    // A prediction from another shape: how the untuned implementation (the library) did there, for the rule.
    if (a.choice.match == Match::Predicted && operation.untuned && db) {
      const KernelSpec& untuned = operation.implementations[*operation.untuned];
      if (auto there = db->best({untuned.name, untuned.hash, device.identity(), a.choice.shape, a.choice.flush})) {
        a.untuned_ms_there = there->result.median_ms;
      }
    }
    answers.push_back(std::move(a));
  }
  const std::size_t chosen = detail::choose_implementation(operation, answers);
  detail::logger()->debug("runtime: {} at {}: {} ({})", operation.name, shape.str(),
                          operation.implementations[chosen].name, to_string(answers[chosen].choice.match));
  return chosen;
}

const RuntimeKernel& Runtime::kernel(const KernelSpec& spec, const Shape& shape) {
  const std::lock_guard lock(impl_->mutex);
  return *impl_->get(spec, shape, nullptr).kernel;
}

const DeviceIdentity& Runtime::device() const { return impl_->device.identity(); }

Database* Runtime::database() { return impl_->db ? &*impl_->db : nullptr; }

}  // namespace cutune
