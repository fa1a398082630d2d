// The initial design's spread and the refinement steps' order before the model can rank them.
#include "early_steps.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace cutune::detail {

double scaled_distance(const SpaceIndex& index, std::size_t a, std::size_t b) {
  const auto ca = index.code(a), cb = index.code(b);
  double d = 0.0;
  for (std::size_t p = 0; p < ca.size(); ++p)
    if (index.levels(p) > 1) d += std::abs(ca[p] - cb[p]) / static_cast<double>(index.levels(p) - 1);
  return d;
}

double from_lowest_corner(const SpaceIndex& index, std::size_t config) {
  const auto code = index.code(config);
  double d = 0.0;
  for (std::size_t p = 0; p < code.size(); ++p)
    if (index.levels(p) > 1) d += code[p] / static_cast<double>(index.levels(p) - 1);
  return d;
}

std::size_t farthest_from_asked_and_lowest(const SpaceIndex& index, std::span<const std::size_t> candidates,
                                           std::span<const std::uint32_t> told,
                                           std::span<const std::uint32_t> pending) {
  std::size_t best = candidates.front();
  double best_distance = -1.0;
  for (std::size_t c : candidates) {
    double nearest = from_lowest_corner(index, c);
    for (const auto asked : {told, pending})
      for (std::uint32_t a : asked) nearest = std::min(nearest, scaled_distance(index, c, a));
    if (nearest > best_distance) best = c, best_distance = nearest;
  }
  return best;
}

StepOrder step_order(const SpaceIndex& index, std::size_t step, std::size_t centre, std::uint64_t salt) {
  const auto a = index.code(step), b = index.code(centre);
  StepOrder order;
  for (std::size_t p = 0; p < a.size(); ++p) order.level_moves += std::abs(a[p] - b[p]);
  // A splitmix64 finaliser of the configuration and the run's salt: a fixed, seeded order of the configurations.
  std::uint64_t x = (static_cast<std::uint64_t>(step) + salt) * 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  order.draw = x ^ (x >> 31);
  return order;
}

}  // namespace cutune::detail
