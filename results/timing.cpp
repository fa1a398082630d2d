// Summarises timing samples: the median and the interquartile spread by linear interpolation between samples.
#include "cutune/timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace cutune {
namespace {

// Quantile by linear interpolation on sorted samples.
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

Timing summarize(std::vector<double> samples) {
  Timing t;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  t.min = samples.front();
  t.max = samples.back();
  t.median = quantile(samples, 0.5);
  t.spread = t.median > 0 ? (quantile(samples, 0.75) - quantile(samples, 0.25)) / t.median : 0.0;
  return t;
}

}  // namespace cutune
