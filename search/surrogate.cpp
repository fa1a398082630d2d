// Fitting the tree-ensemble surrogate to clipped log times, and the expected improvement.
#include "surrogate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace cutune::detail {
namespace {

constexpr std::size_t kRefitShare = 50;

}  // namespace

double expected_improvement(double best, double mean, double stddev) {
  const double gain = best - mean;
  if (stddev <= 1e-12) return std::max(gain, 0.0);
  const double z = gain / stddev;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi);
  return gain * cdf + stddev * pdf;
}

bool Surrogate::stale(const History& history) const {
  const std::size_t told = history.told_order().size();
  return told != fitted_ && (fitted_ == 0 || told >= fitted_ + std::max<std::size_t>(1, fitted_ / kRefitShare));
}

void Surrogate::fit(const SpaceIndex& index, const History& history, Rng& rng) {
  const auto& told = history.told_order();
  y_.clear();
  for (std::uint32_t i : told) y_.push_back(log_time(history.value(i)));
  std::vector<double> sorted(y_);
  const std::size_t mid = sorted.size() / 2;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(mid), sorted.end());
  double cap = sorted[mid];
  if (!std::isfinite(cap)) {
    cap = -std::numeric_limits<double>::infinity();
    for (double v : y_)
      if (std::isfinite(v)) cap = std::max(cap, v);
  }
  for (double& v : y_) v = std::min(v, cap);
  forest_.fit(index, told, y_, rng, Forest::Options{});
  fitted_ = told.size();
}

}  // namespace cutune::detail
