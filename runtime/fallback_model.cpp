// The fallback model (fallback_model.hpp): measured times carried to an untuned shape by volume and waves.
#include "fallback_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "cutune/error.hpp"
#include "cutune/launch_inputs.hpp"
#include "cutune/lookup_keys.hpp"
#include "cutune/space.hpp"

namespace cutune::detail {

namespace {

// A launch's fixed cost, which no volume scales: a few microseconds (launch, first loads, the epilogue's tail).
constexpr double kLaunchMs = 0.005;
// How much less a measurement counts per unit of distance between the logs of the shapes' dimensions.
constexpr double kDistancePenalty = 0.05;

double volume(const Shape& s) {
  double v = 1.0;
  for (const auto d : s.dims) v *= static_cast<double>(std::max<std::int64_t>(d, 1));
  return v;
}

// Per-unit work times waves, up to a constant: the time of the launch's work at a shape. The units of work
// (work_units(): a grid's blocks, a persistent grid's tiles) are counted in waves over the GPU's block slots.
double wave_work(const KernelSpec& spec, const Config& config, const Shape& shape, double slots) {
  const double units = work_units(spec, config, shape);
  return std::ceil(units / slots) * volume(shape) / units;
}

}  // namespace

double predict_ms(const KernelSpec& spec, const Config& config, const Result& measured, const Shape& at,
                  const Shape& to, int sm_count) {
  const double slots = static_cast<double>(std::max(sm_count, 1)) * std::max(measured.blocks_per_sm, 1);
  const double fixed = std::min(kLaunchMs, 0.5 * measured.median_ms);
  const double scaled =
      (measured.median_ms - fixed) * wave_work(spec, config, to, slots) / wave_work(spec, config, at, slots);
  return (fixed + scaled) * (1.0 + kDistancePenalty * shape_distance(at.str(), to.str()));
}

std::optional<BestConfig> predict_best(const KernelSpec& spec, const DeviceIdentity& device, const Shape& shape,
                                       const std::vector<TunedResults>& tuned, L2Flush flush) {
  const DeviceLimits limits = limits_of_compute_capability(device.cc_major * 10 + device.cc_minor);
  // Each configuration once: predicted from the nearest shape it was measured at.
  struct Evidence {
    const Result* result = nullptr;
    Shape at;
    double distance = std::numeric_limits<double>::infinity();
  };
  std::map<std::string, Evidence> nearest;
  for (const TunedResults& t : tuned) {
    Shape at;
    try {
      at = spec.parse_shape(t.shape);
    } catch (const Error&) {
      continue;  // another rank of shape (an older spec's): not comparable
    }
    const double d = shape_distance(t.shape, shape.str());
    for (const Result& r : t.results) {
      Evidence& e = nearest[r.config];
      if (d < e.distance) e = {&r, at, d};
    }
  }
  std::optional<BestConfig> best;
  double best_ms = std::numeric_limits<double>::infinity();
  for (const auto& [text, e] : nearest) {
    if (!std::isfinite(e.distance) || invalid_config(spec, text, shape.str())) continue;
    const Config config = spec.parse_config(text);
    if (architecture_lacks(spec, spec.scope(config, &shape), spec.resolve(spec.launch, config, shape, device.sm_count),
                           limits.compute_capability)) {
      continue;
    }
    const double ms = predict_ms(spec, config, *e.result, e.at, shape, device.sm_count);
    if (ms < best_ms || (ms == best_ms && best && text < best->result.config)) {
      best_ms = ms;
      best.emplace();
      best->result = *e.result;
      best->kernel = {spec.name, spec.hash};
      best->device = device;
      best->shape = e.at.str();
      best->match = Match::Predicted;
      best->distance = e.distance;
      best->flush = flush;
    }
  }
  return best;
}

}  // namespace cutune::detail
