// Where a tuning run's wall time went: exclusive phases of the tuner's thread that add up to the wall time.
#pragma once

#include <array>
#include <string_view>
#include <utility>

namespace cutune {

/// A run's wall time by phase, seconds. At every moment the tuner's thread is in exactly one phase, so the phases
/// add up to wall_s; while it waits for the GPUs, the wait counts as measuring when a GPU measures, as start-up when
/// one is still starting or preparing the shape, and as waiting for compiles while no GPU has anything to measure.
struct PhaseTimes {
  double wall_s = 0.0;
  double startup_s = 0.0;       ///< workers, CUDA contexts, buffers and input fills, reference results, the space
  double compile_wait_s = 0.0;  ///< compiling while no GPU measures (the GPUs wait for a compile)
  double measure_s = 0.0;       ///< a GPU loading, verifying and timing configurations
  double search_s = 0.0;        ///< the strategy proposing configurations and hearing their outcomes
  double store_s = 0.0;         ///< reading and writing the database
  double other_s = 0.0;         ///< everything else: handing out work, progress output, ...
  /// NVRTC time summed over compile threads; it overlaps the phases above and is not part of wall_s.
  double compile_cpu_s = 0.0;

  /// The exclusive phases, in the order above, with their names as the CLI and the report print them.
  std::array<std::pair<std::string_view, double>, 6> phases() const {
    return {{{"start-up", startup_s},
             {"waiting for compiles", compile_wait_s},
             {"measuring", measure_s},
             {"searching", search_s},
             {"storing", store_s},
             {"other", other_s}}};
  }
  /// The sum of the exclusive phases: wall_s, up to rounding, for a run the tuner timed.
  double phase_sum() const { return startup_s + compile_wait_s + measure_s + search_s + store_s + other_s; }
};

/// Every figure of PhaseTimes with its name as the database and the exchange formats store it.
inline constexpr std::array<std::pair<std::string_view, double PhaseTimes::*>, 8> kPhaseTimeFields{{
    {"wall_s", &PhaseTimes::wall_s},
    {"startup_s", &PhaseTimes::startup_s},
    {"compile_wait_s", &PhaseTimes::compile_wait_s},
    {"measure_s", &PhaseTimes::measure_s},
    {"search_s", &PhaseTimes::search_s},
    {"store_s", &PhaseTimes::store_s},
    {"other_s", &PhaseTimes::other_s},
    {"compile_cpu_s", &PhaseTimes::compile_cpu_s},
}};

/// Adds every figure of `b` to `a`'s: the time of several runs.
inline PhaseTimes& operator+=(PhaseTimes& a, const PhaseTimes& b) {
  for (const auto& [name, field] : kPhaseTimeFields) a.*field += b.*field;
  return a;
}

}  // namespace cutune
