// The tuner: what it keeps from one shape to the next (lanes, compile pool, cubin cache, upcoming spaces); each shape
// runs as a ShapeRun.
#include "cutune/lazy_space.hpp"
#include "cutune/tuner.hpp"

#include <future>
#include <set>
#include <thread>

#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"
#include "worker/compiler_processes.hpp"
#include "measure/evaluator.hpp"
#include "worker/worker_client.hpp"
#include "base/log.hpp"
#include "tuner/dispatch.hpp"
#include "tuner/shape_run.hpp"

namespace cutune {

Tuner::Tuner(const Device& device, Database& database, TuneOptions options)
    : identity_(device.identity()), limits_(device.limits()), ordinals_{device.ordinal()}, device_(&device),
      database_(database), options_(std::move(options)) {}

Tuner::Tuner(DeviceIdentity identity, DeviceLimits limits, int ordinal, Database& database, TuneOptions options)
    : Tuner(std::move(identity), limits, std::vector<int>{ordinal}, database, std::move(options)) {}

Tuner::Tuner(DeviceIdentity identity, DeviceLimits limits, std::vector<int> ordinals, Database& database,
             TuneOptions options)
    : identity_(std::move(identity)), limits_(limits), ordinals_(std::move(ordinals)), database_(database),
      options_(std::move(options)) {
  if (!options_.isolate) throw InputError("a tuner without a Device object measures in worker processes only");
  if (ordinals_.empty()) throw InputError("a tuner needs at least one GPU");
  if (std::set<int>(ordinals_.begin(), ordinals_.end()).size() != ordinals_.size()) {
    throw InputError("a GPU appears twice in the tuner's list of GPUs");
  }
}

Tuner::~Tuner() = default;

CompilePool& Tuner::compile_pool() {
  if (!pool_) pool_ = std::make_unique<CompilePool>(options_.compile_threads, compile_runners());
  return *pool_;
}

detail::Dispatcher& Tuner::lanes(CubinCache* cache) {
  if (lanes_) return *lanes_;
  std::vector<detail::Dispatcher::LaneFactory> factories;
  if (!options_.isolate) {
    const Device& device = *device_;
    const MeasureOptions measure = options_.measure;
    factories.push_back([&device, measure, cache](std::size_t id, detail::Outbox& outbox) {
      return detail::make_local_lane(id, device.ordinal(),
                                     [&device, measure, cache] { return detail::make_in_process_evaluator(device, measure, cache); },
                                     outbox);
    });
  } else {
    detail::WorkerSettings settings;
    settings.executable = detail::find_worker_executable();
    if (settings.executable.empty()) {
      throw Error("cutune-worker was not found beside this program; set CUTUNE_WORKER to its path, or measure in "
                  "this process (--no-isolate)");
    }
    settings.measure = options_.measure;
    settings.cache_dir = cache != nullptr ? cache->directory().string() : std::string();
    settings.timeout_floor_s = options_.timeout_floor_s;
    for (int ordinal : ordinals_) {
      settings.device = ordinal;
      factories.push_back([settings](std::size_t id, detail::Outbox& outbox) {
        return detail::make_local_lane(id, settings.device, [settings] { return detail::make_worker_evaluator(settings); },
                                       outbox);
      });
    }
  }
  for (const auto& remote : options_.remote_lanes) factories.push_back(remote.make);
  lanes_ = std::make_unique<detail::Dispatcher>(factories);
  return *lanes_;
}

ShapeReport Tuner::tune(const KernelSpec& spec, const Shape& shape) { return detail::ShapeRun(*this, spec, shape).run(); }

const detail::NvrtcRunnerFactory& Tuner::compile_runners() {
  if (compile_runners_chosen_) return compile_runners_;
  compile_runners_chosen_ = true;
  const unsigned usable = usable_cpus(), machine = std::thread::hardware_concurrency();
  if (options_.compile_threads == 0 && usable < machine) {
    detail::logger()->warn(
        "compiling on {} thread{}: this process may run on {} of the machine's {} CPUs (its affinity: an MPI launcher "
        "binds each rank to a core or socket by default); `mpirun --bind-to none`, or a larger cpuset, lets compiles "
        "use more",
        usable, usable == 1 ? "" : "s", usable, machine);
  }
  if (options_.compile_processes) compile_runners_ = detail::compiler_processes_if_found();
  return compile_runners_;
}

CubinCache* Tuner::cache() {
  if (options_.use_cache && !cache_) {
    cache_ = std::make_unique<CubinCache>(options_.cache_dir.empty() ? CubinCache::default_directory()
                                                                     : std::filesystem::path(options_.cache_dir));
  }
  return cache_.get();
}

void Tuner::expect(const KernelSpec& spec, const std::vector<Shape>& shapes) {
  // The workers start now too (a process and a CUDA context each, about half a second), while the first shape
  // enumerates its space and reads the database. What fails here fails again, in its place, in tune().
  try {
    if (!shapes.empty()) lanes(cache());
  } catch (const std::exception&) {
    pool_.reset();
    lanes_.reset();
  }
  for (const Shape& shape : shapes) {
    auto& slot = upcoming_[{&spec, shape.str()}];
    if (!slot.valid()) {
      slot = std::async(std::launch::async, [&spec, shape, limits = limits_] {
        return tuning_space(spec, shape, limits);
      });
    }
  }
}

}  // namespace cutune
