// Where a search's start configurations (a spec's "start" list, `tune --start`) are in the space it searches.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "cutune/spec.hpp"

namespace cutune {

/// The positions of `configs` in a space whose configuration texts (KernelSpec::format) map to positions by
/// `index_of`, in order. A configuration not in the space stands in for its nearest one there: the configuration that
/// differs from it in one parameter by the fewest steps along that parameter's values (ties: the earlier parameter,
/// then the smaller value); one with no such neighbour is left out. A start tile that won elsewhere often breaks only a
/// rule of this shape (a raster group larger than the tiles, more stages than K has slabs): its neighbour keeps the
/// rest of it. Repeats are kept (start_first() asks each once).
std::vector<std::size_t> start_positions(const KernelSpec& spec, const std::vector<Config>& configs,
                                         const std::unordered_map<std::string, std::size_t>& index_of);

}  // namespace cutune
