// Parameter values at the edge of their range that few valid configurations take. Constraints often tie a
// parameter's extreme to one value of another (a block 1,024 threads wide only one row high), so that a uniform draw
// over the configurations, as the initial design's, seldom lands there and a model learns nothing of those values.
#pragma once

#include <cstdint>
#include <vector>

#include "search_state.hpp"

namespace cutune::detail {

/// A parameter's lowest or highest level with the configurations that take it.
struct RareEdge {
  std::size_t parameter = 0;
  std::uint16_t level = 0;
  std::vector<std::uint32_t> configs;
};

/// The lowest and the highest level of each parameter of more than one level that fewer than `limit` of `index`'s
/// configurations take (the lowest first, parameters in order), each with those configurations in index order.
std::vector<RareEdge> rare_edges(const SpaceIndex& index, double limit);

}  // namespace cutune::detail
