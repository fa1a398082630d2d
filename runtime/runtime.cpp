// The runtime API: picks a kernel's configuration from the database and makes it ready to launch (a compiled kernel,
// or a library family's call); tuning on demand of the shapes it had no result for.
#include "cutune/runtime.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <vector>

#include "base/log.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "driver/cluster_launch.hpp"
#include "driver/constant_symbol.hpp"
#include "fallback_model.hpp"
#include "runtime_impl.hpp"

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

// What `tune --kernel` is given for a spec passed as such: its name when it is a built-in kernel of this version,
// else nothing (a spec of one's own is tuned on demand when asked for by its file).
std::string builtin_tune_name(const KernelSpec& spec) {
  for (const std::string& name : builtin_kernels()) {
    if (name == spec.name) return load_kernel(name).hash == spec.hash ? name : std::string();
  }
  return {};
}


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

// On the tuning thread: the stored best of the shape, if tuning stored one, made ready while the application goes on;
// an operation's: that of the implementation its rule now launches there.
std::unique_ptr<RuntimeKernel> Runtime::Impl::prepare_tuned(const detail::TuneJob& job) {
  const KernelSpec* spec = &job.spec;
  BestConfig choice;
  {
    const std::lock_guard lock(mutex);  // the database connection is the requests' too
    if (job.operation) spec = &job.operation->implementations[implementation_at(*job.operation, job.shape)];
    choice = choose(*spec, job.shape);
  }
  if (choice.match != Match::Exact) return nullptr;
  return make(*spec, job.shape, std::move(choice));
}

std::string kept_key(const std::string& name, const std::string& hash, const Shape& shape) {
  std::string key = name;
  key += '\0';
  key += hash;
  key += '\0';
  key += shape.str();
  return key;
}

Runtime::Impl::Kept& Runtime::Impl::get(const KernelSpec& spec, const Shape& shape,
                                        const std::string_view* name_or_spec, bool alone) {
  const std::string key = kept_key(spec.name, spec.hash, shape);
  if (auto it = kernels.find(key); it != kernels.end()) {
    Kept& kept = it->second;
    answer(kept);
    // Kept only as an operation's implementation so far: asked for on its own, its shape is wanted and tuned like any.
    if (alone && !kept.noted) note_untuned(kept, spec, shape, name_or_spec);
    return kept;
  }
  Kept made;
  made.kernel = make(spec, shape, choose(spec, shape));
  Kept& kept = kernels[key] = std::move(made);
  if (alone) note_untuned(kept, spec, shape, name_or_spec);
  return kept;
}

void Runtime::Impl::note_untuned(Kept& kept, const KernelSpec& spec, const Shape& shape,
                                 const std::string_view* name_or_spec) {
  kept.noted = true;
  const BestConfig& choice = kept.kernel->choice();
  if (choice.match == Match::Exact) return;
  WantedShape key;
  key.kernel = {spec.name, spec.hash};
  key.device = device.identity();
  key.flush = choice.flush;
  key.shape = shape.str();
  kept.wanted = &wanted.note(std::move(key), db ? &*db : nullptr);
  if (on_demand == nullptr) return;
  if (std::string tune_as = tune_name(name_or_spec, spec); !tune_as.empty()) {
    kept.tuning = on_demand->submit(std::move(tune_as), spec, shape, choice.flush);
  } else {
    detail::logger()->warn("runtime: {} at {} is not tuned on demand: a spec of one's own is, when asked for by "
                           "its file", spec.name, shape.str());
  }
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
  if (auto it = impl_->requests.find(request); it != impl_->requests.end()) return impl_->answer(it->second);
  if (is_operation(name_or_spec)) {  // the implementation the rule picks; wanted and tuned as the operation
    const OperationSpec operation = load_operation(name_or_spec);
    Impl::OperationKept& op = impl_->get_operation(operation, operation.parse_shape(shape), &name_or_spec);
    impl_->requests.emplace(std::move(request), Impl::Asked{nullptr, &op});
    return *op.chosen->kernel;
  }
  const KernelSpec spec = load_kernel(name_or_spec);
  Impl::Kept& kept = impl_->get(spec, spec.parse_shape(shape), &name_or_spec);
  impl_->requests.emplace(std::move(request), Impl::Asked{&kept, nullptr});
  return *kept.kernel;
}

const RuntimeKernel& Runtime::kernel(const KernelSpec& spec, const Shape& shape) {
  const std::lock_guard lock(impl_->mutex);
  return *impl_->get(spec, shape, nullptr).kernel;
}

const DeviceIdentity& Runtime::device() const { return impl_->device.identity(); }

Database* Runtime::database() { return impl_->db ? &*impl_->db : nullptr; }

}  // namespace cutune
