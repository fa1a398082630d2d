// The tuner: the facade over its resources (tuner/tuner_resources.hpp); each shape runs as a ShapeRun.
#include "cutune/tuner.hpp"

#include <set>

#include "cutune/error.hpp"
#include "tuner/shape_run.hpp"
#include "tuner/tuner_resources.hpp"

namespace cutune {

Tuner::Tuner(const Device& device, Database& database, TuneOptions options)
    : resources_(std::make_unique<detail::TunerResources>(device.identity(), device.limits(),
                                                          std::vector<int>{device.ordinal()}, &device, database,
                                                          std::move(options))) {}

Tuner::Tuner(DeviceIdentity identity, DeviceLimits limits, int ordinal, Database& database, TuneOptions options)
    : Tuner(std::move(identity), limits, std::vector<int>{ordinal}, database, std::move(options)) {}

Tuner::Tuner(DeviceIdentity identity, DeviceLimits limits, std::vector<int> ordinals, Database& database,
             TuneOptions options) {
  if (!options.isolate) throw InputError("a tuner without a Device object measures in worker processes only");
  if (ordinals.empty()) throw InputError("a tuner needs at least one GPU");
  if (std::set<int>(ordinals.begin(), ordinals.end()).size() != ordinals.size()) {
    throw InputError("a GPU appears twice in the tuner's list of GPUs");
  }
  resources_ = std::make_unique<detail::TunerResources>(std::move(identity), limits, std::move(ordinals), nullptr,
                                                        database, std::move(options));
}

Tuner::~Tuner() = default;

ShapeReport Tuner::tune(const KernelSpec& spec, const Shape& shape) {
  return detail::ShapeRun(*resources_, spec, shape).run();
}

ShapeReport Tuner::tune(const KernelSpec& spec, const Shape& shape, std::size_t budget) {
  return detail::ShapeRun(*resources_, spec, shape, budget).run();
}

ShapeReport Tuner::tune(const KernelSpec& spec, const Shape& shape, std::size_t budget, std::size_t compile_ahead) {
  return detail::ShapeRun(*resources_, spec, shape, budget, compile_ahead).run();
}

void Tuner::expect(const KernelSpec& spec, const std::vector<Shape>& shapes) { resources_->expect(spec, shapes); }

}  // namespace cutune
