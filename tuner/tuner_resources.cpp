// The tuner's resources kept from one shape to the next: compile pool, cubin cache, the dispatcher of the lanes, the
// spaces enumerated ahead.
#include "tuner/tuner_resources.hpp"

#include <future>
#include <thread>

#include "base/log.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"
#include "cutune/lazy_space.hpp"
#include "measure/evaluator.hpp"
#include "measure/workbench.hpp"
#include "tuner/dispatch.hpp"
#include "worker/compiler_processes.hpp"
#include "worker/worker_client.hpp"

namespace cutune::detail {

TunerResources::TunerResources(DeviceIdentity identity, DeviceLimits limits, std::vector<int> ordinals,
                               const Device* device, Database& database, TuneOptions options)
    : identity_(std::move(identity)), limits_(limits), ordinals_(std::move(ordinals)), device_(device),
      database_(database), options_(std::move(options)) {}

TunerResources::~TunerResources() = default;

CompilePool& TunerResources::compile_pool() {
  if (!pool_) pool_ = std::make_unique<CompilePool>(options_.compile_threads, compile_runners());
  return *pool_;
}

Dispatcher& TunerResources::dispatcher(CubinCache* cache) {
  if (dispatcher_) return *dispatcher_;
  std::vector<Dispatcher::LaneFactory> factories;
  if (!options_.isolate) {
    const Device& device = *device_;
    const MeasureOptions measure = options_.measure;
    factories.push_back([&device, measure, cache](std::size_t id, Outbox& outbox) {
      return make_local_lane(id, device.ordinal(),
                             [&device, measure, cache] { return make_in_process_evaluator(device, measure, cache); },
                             outbox);
    });
  } else {
    WorkerSettings settings;
    settings.executable = find_worker_executable();
    if (settings.executable.empty()) {
      throw Error("cutune-worker was not found beside this program; set CUTUNE_WORKER to its path, or measure in "
                  "this process (--no-isolate)");
    }
    settings.measure = options_.measure;
    settings.cache_dir = cache != nullptr ? cache->directory().string() : std::string();
    settings.timeout_floor_s = options_.timeout_floor_s;
    for (int ordinal : ordinals_) {
      settings.device = ordinal;
      factories.push_back([settings](std::size_t id, Outbox& outbox) {
        return make_local_lane(id, settings.device, [settings] { return make_worker_evaluator(settings); }, outbox);
      });
    }
  }
  for (const auto& remote : options_.remote_lanes) factories.push_back(remote.make);
  dispatcher_ = std::make_unique<Dispatcher>(factories);
  return *dispatcher_;
}

void TunerResources::drop_dispatcher() {
  pool_.reset();  // compiles may still run, and post to the lanes' outbox
  dispatcher_.reset();
}

const NvrtcRunnerFactory& TunerResources::compile_runners() {
  if (compile_runners_chosen_) return compile_runners_;
  compile_runners_chosen_ = true;
  const unsigned usable = usable_cpus(), machine = std::thread::hardware_concurrency();
  if (options_.compile_threads == 0 && usable < machine) {
    logger()->warn(
        "compiling on {} thread{}: this process may run on {} of the machine's {} CPUs (its affinity: an MPI launcher "
        "binds each rank to a core or socket by default); `mpirun --bind-to none`, or a larger cpuset, lets compiles "
        "use more",
        usable, usable == 1 ? "" : "s", usable, machine);
  }
  if (options_.compile_processes) compile_runners_ = compiler_processes_if_found();
  return compile_runners_;
}

CubinCache* TunerResources::cache() {
  if (options_.use_cache && !cache_) {
    cache_ = std::make_unique<CubinCache>(options_.cache_dir.empty() ? CubinCache::default_directory()
                                                                     : std::filesystem::path(options_.cache_dir));
  }
  return cache_.get();
}

void TunerResources::expect(const KernelSpec& spec, const std::vector<Shape>& shapes) {
  // The workers start now too (a process and a CUDA context each, about half a second), while the first shape
  // enumerates its space and reads the database. What fails here fails again, in its place, in tune().
  try {
    if (!shapes.empty()) dispatcher(cache());
  } catch (const std::exception&) {
    drop_dispatcher();
  }
  if (!shapes.empty()) warm_compiles(spec, shapes.front());
  for (const Shape& shape : shapes) {
    auto& slot = upcoming_[{&spec, shape.str()}];
    if (!slot.valid()) {
      slot = std::async(std::launch::async, [&spec, shape, limits = limits_] {
        return tuning_space(spec, shape, limits);
      });
    }
  }
}

TunerResources::KeptSpace* TunerResources::kept(const KernelSpec& spec, const std::string& key) {
  for (KeptSpace& k : kept_) {
    if (k.spec == &spec && k.hash == spec.hash && k.constraints == spec.constraints.size() && k.shape == key) return &k;
  }
  return nullptr;
}

std::unique_ptr<KeptSearch> TunerResources::take_search(const KernelSpec& spec, const Shape& shape,
                                                        std::size_t space_size) {
  KeptSpace* k = kept(spec, shape.str());
  if (k == nullptr || !k->search) return nullptr;
  std::unique_ptr<KeptSearch> search = std::move(k->search);
  return search->space_size() == space_size ? std::move(search) : nullptr;
}

void TunerResources::keep_search(const KernelSpec& spec, const Shape& shape, std::unique_ptr<KeptSearch> search) {
  if (KeptSpace* k = kept(spec, shape.str())) k->search = std::move(search);
}

// The kernels a shape's preparation needs before its first configuration is measured (the support kernels, the spec's
// reference) are compiled into the cubin cache now, on the idle compile threads, rather than by the first shape while
// its GPU waits; that shape's own set-up compiles then find them there, or wait for these
// (CubinCache::load_or_compile). A failure here is the first shape's to report, in its place.
void TunerResources::warm_compiles(const KernelSpec& spec, const Shape& shape) {
  CubinCache* const c = cache();
  if (c == nullptr) return;
  CompilePool& pool = compile_pool();
  const std::string arch = identity_.arch();
  for (std::size_t part = 0; !support_warmed_ && part < kSupportParts; ++part) {
    pool.submit([arch, c, part] {
      cache_support_kernels(arch, c, part);
      return CompileOutput{};
    });
  }
  support_warmed_ = true;
  const VerifyMode verify = spec.verify_mode(options_.measure.verify);
  if (verify == VerifyMode::None) return;
  pool.submit([own = std::make_shared<const KernelSpec>(spec), c, verify, arch, shape] {
    return compile_reference_for(c, *own, verify, arch, shape);
  });
}

Space TunerResources::tuning_space_of(const KernelSpec& spec, const Shape& shape) {
  const std::string key = shape.str();
  if (const KeptSpace* k = kept(spec, key)) return k->space;
  Space space;
  if (const auto ahead = upcoming_.find({&spec, key}); ahead != upcoming_.end()) {
    auto future = std::move(ahead->second);
    upcoming_.erase(ahead);
    space = future.get();
  } else {
    space = tuning_space(spec, shape, limits_);
  }
  if (kept_.size() == kKeptSpaces) kept_.pop_front();
  kept_.push_back({&spec, spec.hash, spec.constraints.size(), key, space, nullptr});
  return space;
}

}  // namespace cutune::detail
