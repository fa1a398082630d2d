// A prior from other GPUs: their winners as first proposals, and their times as features of the surrogate.
#include "cutune/prior.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "forest.hpp"
#include "prior_features.hpp"

namespace cutune {
namespace {

// A sibling's working configurations, fastest first (ties: lower index).
std::vector<std::size_t> fastest_of(const SiblingTimes& sibling) {
  std::vector<std::pair<double, std::size_t>> working;
  for (const auto& [index, time] : sibling.times)
    if (time && std::isfinite(*time)) working.emplace_back(*time, index);
  std::sort(working.begin(), working.end());
  std::vector<std::size_t> out;
  for (const auto& w : working) out.push_back(w.second);
  return out;
}

}  // namespace

std::vector<std::size_t> prior_first(const Prior& prior, std::size_t per_sibling) {
  std::vector<std::vector<std::size_t>> ranked;
  for (const auto& sibling : prior.siblings) ranked.push_back(fastest_of(sibling));
  std::vector<std::size_t> out;
  std::unordered_set<std::size_t> seen;
  for (std::size_t k = 0; k < per_sibling; ++k) {
    for (const auto& r : ranked)
      if (k < r.size() && seen.insert(r[k]).second) out.push_back(r[k]);
  }
  return out;
}

std::vector<std::size_t> with_prior_first(std::vector<std::size_t> start, const Prior& prior, std::size_t per_sibling) {
  const std::unordered_set<std::size_t> given(start.begin(), start.end());
  for (std::size_t i : prior_first(prior, per_sibling))
    if (!given.count(i)) start.push_back(i);
  return start;
}

}  // namespace cutune

namespace cutune::detail {
namespace {

constexpr std::uint64_t kImputeStream = 0x9e10f5eedULL;  // the imputing trees' generator, apart from the strategy's

// Log time per configuration of the space as `sibling` knows it: measured, +infinity for a failure, NaN where it
// did not measure.
std::vector<double> sibling_log_times(const SpaceIndex& index, const SiblingTimes& sibling) {
  std::vector<double> v(index.size(), std::numeric_limits<double>::quiet_NaN());
  for (const auto& [c, time] : sibling.times) {
    if (c >= index.size()) throw InputError("a prior names configuration " + std::to_string(c) + " of a space of " + std::to_string(index.size()));
    v[c] = time && std::isfinite(*time) && *time >= 0.0 ? log_time(*time) : std::numeric_limits<double>::infinity();
  }
  return v;
}

// Fills the NaN entries of `v` with the prediction of trees fitted to the others (failures learnt as the slowest
// working time).
void impute(const SpaceIndex& index, std::vector<double>& v, std::uint64_t seed) {
  std::vector<std::uint32_t> rows;
  std::vector<double> y;
  double slowest = -std::numeric_limits<double>::infinity();
  for (double x : v)
    if (std::isfinite(x)) slowest = std::max(slowest, x);
  for (std::size_t c = 0; c < v.size(); ++c) {
    if (std::isnan(v[c])) continue;
    rows.push_back(static_cast<std::uint32_t>(c));
    y.push_back(std::min(v[c], slowest));
  }
  if (rows.size() == v.size()) return;
  Forest forest;
  Rng rng(seed ^ kImputeStream);
  forest.fit(level_codes(index), rows, y, rng, Forest::Options{});
  for (std::size_t c = 0; c < v.size(); ++c) {
    if (!std::isnan(v[c])) continue;
    double stddev = 0.0;
    forest.predict(index.code(c), v[c], stddev);
  }
}

}  // namespace

std::vector<std::uint16_t> prior_columns(const SpaceIndex& index, const Prior& prior, std::uint64_t seed) {
  std::vector<std::vector<std::uint16_t>> columns;
  for (const auto& sibling : prior.siblings) {
    if (columns.size() == kPriorColumns) break;
    std::vector<double> v = sibling_log_times(index, sibling);
    if (std::none_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); })) continue;
    impute(index, v, seed + columns.size());
    std::vector<double> sorted(v);
    std::sort(sorted.begin(), sorted.end());
    auto& column = columns.emplace_back(index.size());
    for (std::size_t c = 0; c < v.size(); ++c) {
      const auto rank = static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), v[c]) - sorted.begin());
      column[c] = static_cast<std::uint16_t>(rank * kPriorLevels / v.size());
    }
  }
  std::vector<std::uint16_t> out(columns.size() * index.size());
  for (std::size_t c = 0; c < index.size(); ++c)
    for (std::size_t k = 0; k < columns.size(); ++k) out[c * columns.size() + k] = columns[k][c];
  return out;
}

std::vector<std::uint32_t> prior_favourites(const SpaceIndex& index, const std::vector<std::uint16_t>& columns,
                                            std::uint16_t below) {
  std::vector<std::uint32_t> out;
  if (columns.empty()) return out;
  const std::size_t k = columns.size() / index.size();
  for (std::size_t c = 0; c < index.size(); ++c) {
    const auto* row = columns.data() + c * k;
    if (*std::min_element(row, row + k) < below) out.push_back(static_cast<std::uint32_t>(c));
  }
  return out;
}

}  // namespace cutune::detail
