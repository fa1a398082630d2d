// The configuration nearest every parameter's highest level: one pass over the candidates.
#include "first_guess.hpp"

#include <limits>

namespace cutune::detail {

std::uint32_t highest_corner(const SpaceIndex& index, const std::vector<std::uint32_t>& among) {
  const std::size_t n = among.empty() ? index.size() : among.size();
  std::uint32_t best = among.empty() ? 0 : among.front();
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t c = among.empty() ? static_cast<std::uint32_t>(k) : among[k];
    const auto code = index.code(c);
    double distance = 0.0;
    for (std::size_t p = 0; p < code.size(); ++p) {
      const std::size_t top = index.levels(p) - 1;
      if (top > 0) distance += static_cast<double>(top - code[p]) / static_cast<double>(top);
    }
    if (distance < best_distance || (distance == best_distance && c < best)) best = c, best_distance = distance;
  }
  return best;
}

}  // namespace cutune::detail
