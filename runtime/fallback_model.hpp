// The runtime's answer for a shape nobody tuned: of every configuration this GPU has measured for the kernel (the
// fastest few of each tuned shape), the one predicted fastest at the requested shape and valid there.
#pragma once

#include <optional>
#include <vector>

#include "cutune/database.hpp"
#include "cutune/spec.hpp"

namespace cutune::detail {

/// How many of each tuned shape's fastest results the model considers.
inline constexpr int kFallbackCandidatesPerShape = 8;

/// A measured time carried to another shape of the same kernel, configuration and GPU. Time is taken as a fixed
/// launch cost plus work in waves: the units of work of the launch grid (the spec's geometry at each shape, resolved
/// as if the GPU had unboundedly many SMs: the blocks of a grid, the tiles of a persistent one) run `blocks_per_sm`
/// at a time on each of `sm_count` SMs, and each unit's work is the shape's volume (product of its dimensions) over
/// the units. So a configuration whose grid leaves SMs idle, or adds a last wave, at the requested shape is predicted
/// slower there than the plain ratio of volumes says.
/// Evidence from a shape farther away (distance of the dimensions' logarithms) counts a little less.
double predict_ms(const KernelSpec& spec, const Config& config, const Result& measured, const Shape& at,
                  const Shape& to, int sm_count);

/// The configuration predicted fastest at `shape` (valid there, runnable on the GPU's architecture) among `tuned`,
/// each predicted from the nearest shape it was measured at; Match::Predicted, `shape` the shape its measurement
/// came from. Nullopt when no candidate is valid at `shape`.
std::optional<BestConfig> predict_best(const KernelSpec& spec, const DeviceIdentity& device, const Shape& shape,
                                       const std::vector<TunedResults>& tuned, L2Flush flush);

}  // namespace cutune::detail
