// What a spec's launch geometry says of each configuration at a shape on a GPU before anything is compiled: how many
// blocks and units of work, how many waves they take over the SMs, how full those waves are, how much shared memory
// and how many threads each block has. The default search draws its first proposals from the launches whose waves
// keep the GPU busiest (SearchInputs), and the runtime's fallback model scales measured times by the same units of work.
#pragma once

#include <cstdint>
#include <vector>

#include "cutune/search_inputs.hpp"
#include "cutune/space.hpp"
#include "cutune/spec.hpp"

namespace cutune {

/// The launch's units of work at `shape`: its blocks as if the GPU had unboundedly many SMs. For an ordinary grid,
/// its blocks; for a persistent grid (min(tiles, SM_COUNT)), the tiles its blocks take in turns. At least 1.
double work_units(const KernelSpec& spec, const Config& config, const Shape& shape);

/// Blocks of `launch` that fit on one SM at once, as far as its shared memory and threads tell (registers are known
/// only after compiling): at least 1.
std::int64_t resident_blocks_estimate(const Launch& launch, const DeviceLimits& limits);

/// Per configuration of `configs` (valid at `shape`), in this order: blocks (launched on `limits.sm_count` SMs),
/// units (work_units()), resident (resident_blocks_estimate()), waves (units over the SMs' resident slots), slot_use
/// (the share of the slots those waves hold that has work: 1 when the last wave is full), shared_memory (bytes per
/// block), threads (per block), work_per_unit (the metric's amount, FLOPs or bytes, over the units; NaN for a spec
/// measured in time only). slot_use is favoured high, and at 0.9 or more counts as full whatever the space's median.
/// A configuration whose geometry cannot be resolved gets NaN throughout.
SearchInputs launch_inputs(const KernelSpec& spec, const std::vector<Config>& configs, const Shape& shape,
                          const DeviceLimits& limits);

}  // namespace cutune
