// Start configurations in a space: their own positions, or their nearest configurations' there.
#include "cutune/start_positions.hpp"

#include <algorithm>
#include <limits>
#include <optional>

namespace cutune {
namespace {

// The position of the configuration nearest to `c` in the space (start_positions() says which), or none.
std::optional<std::size_t> nearest_in_space(const KernelSpec& spec, const Config& c,
                                            const std::unordered_map<std::string, std::size_t>& index_of) {
  std::optional<std::size_t> nearest;
  std::size_t fewest = std::numeric_limits<std::size_t>::max();
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
    const auto& values = spec.parameters[p].values;
    const auto at = std::find(values.begin(), values.end(), c.values[p]);
    if (at == values.end()) continue;
    const std::size_t own = static_cast<std::size_t>(at - values.begin());
    for (std::size_t v = 0; v < values.size(); ++v) {
      const std::size_t steps = v > own ? v - own : own - v;
      if (steps == 0 || steps >= fewest) continue;
      Config other = c;
      other.values[p] = values[v];
      const auto it = index_of.find(spec.format(other));
      if (it != index_of.end()) nearest = it->second, fewest = steps;
    }
  }
  return nearest;
}

}  // namespace

std::vector<std::size_t> start_positions(const KernelSpec& spec, const std::vector<Config>& configs,
                                         const std::unordered_map<std::string, std::size_t>& index_of) {
  std::vector<std::size_t> positions;
  for (const Config& c : configs) {
    const auto it = index_of.find(spec.format(c));
    const auto at = it != index_of.end() ? std::optional<std::size_t>(it->second) : nearest_in_space(spec, c, index_of);
    if (at) positions.push_back(*at);
  }
  return positions;
}

}  // namespace cutune
