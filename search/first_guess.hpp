// The default strategy's first guess in a space it knows nothing of: the configuration nearest every parameter's
// highest value. Tuning parameters mostly grow the work a thread or block takes on (tile sizes, vector widths, items
// per thread, pipeline stages), and the fastest configurations of a GPU kernel mostly use much of that: of the 24
// recorded spaces of bench/RESULTS.md, this configuration is among the fastest fifth on 16 and the lowest corner
// among the slowest fifth on 17.
#pragma once

#include <cstdint>
#include <vector>

#include "search_state.hpp"

namespace cutune::detail {

/// Of `among` (indices into `index`; every configuration when empty), the one nearest every parameter's highest
/// level, in level positions scaled to [0, 1] per parameter (summed over the parameters); ties go to the lowest
/// index. `index` must hold a configuration.
std::uint32_t highest_corner(const SpaceIndex& index, const std::vector<std::uint32_t>& among);

}  // namespace cutune::detail
