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

void Surrogate::add_columns(const SpaceIndex& index, const std::vector<std::uint16_t>& columns) {
  const std::size_t d = index.dimensions();
  if (columns.empty()) return;
  const std::size_t k = columns.size() / index.size(), width = d + k;
  with_prior_.resize(index.size() * width);
  for (std::size_t c = 0; c < index.size(); ++c) {
    const auto code = index.code(c);
    std::copy(code.begin(), code.end(), with_prior_.begin() + static_cast<std::ptrdiff_t>(c * width));
    std::copy_n(columns.begin() + static_cast<std::ptrdiff_t>(c * k), k, with_prior_.begin() + static_cast<std::ptrdiff_t>(c * width + d));
  }
  features_ = Features{with_prior_.data(), width};
}

void Surrogate::fit(const History& history, Rng& rng) {
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
  forest_.fit(features_, told, y_, rng, Forest::Options{});
  fitted_ = told.size();
}

}  // namespace cutune::detail

namespace cutune::detail {

std::vector<std::uint32_t> fastest_told(const History& history, std::size_t k) {
  std::vector<std::uint32_t> told(history.told_order());
  const std::size_t keep = std::min(k, told.size());
  std::partial_sort(told.begin(), told.begin() + static_cast<std::ptrdiff_t>(keep), told.end(),
                    [&history](std::uint32_t a, std::uint32_t b) { return history.value(a) < history.value(b); });
  told.resize(keep);
  return told;
}

std::optional<std::uint32_t> best_ready(std::vector<std::pair<double, std::uint32_t>>& ranked, double limit,
                                        const std::function<bool(std::size_t)>& ready, std::size_t checks) {
  std::sort(ranked.begin(), ranked.end());
  ranked.erase(std::unique(ranked.begin(), ranked.end()), ranked.end());
  for (const auto& [rating, config] : ranked) {
    if (rating > limit || checks-- == 0) break;
    if (ready(config)) return config;
  }
  return std::nullopt;
}

void ScoredCandidates::rank(const Surrogate& model, const SpaceIndex& index, const History& history, Rng& rng,
                            const Sizes& sizes) {
  candidates_.clear();
  if (history.unasked_count() <= sizes.score_all) {
    for (std::size_t i = 0; i < history.size(); ++i)
      if (!history.asked(i)) candidates_.push_back(static_cast<std::uint32_t>(i));
  } else {
    for (std::size_t k = 0; k < sizes.random; ++k) candidates_.push_back(static_cast<std::uint32_t>(*history.random_unasked(rng)));
    for (std::uint32_t centre : fastest_told(history, sizes.centres)) {
      scratch_.clear();
      index.hamming_neighbours(centre, scratch_);
      for (std::uint32_t i : scratch_)
        if (!history.asked(i)) candidates_.push_back(i);
    }
    // Random draws and neighbourhoods overlap; scoring a configuration twice would let it be taken twice.
    std::sort(candidates_.begin(), candidates_.end());
    candidates_.erase(std::unique(candidates_.begin(), candidates_.end()), candidates_.end());
  }
  const double best = log_time(history.value(*history.best()));
  improvement_.clear();
  for (std::uint32_t c : candidates_) {
    double mean = 0.0, stddev = 0.0;
    model.predict(c, mean, stddev);
    improvement_.push_back(expected_improvement(best, mean, stddev));
  }
  penalty_.reset(model.forest(), model.features(), candidates_);
  discount_pending(model, history);
}

std::optional<std::size_t> ScoredCandidates::best(const History& history) const {
  std::optional<std::size_t> best;
  double best_score = 0.0;
  // Candidates are in ascending configuration order, so the first of equal scores has the lowest index.
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    if (history.asked(candidates_[i])) continue;
    const double s = score(i);
    if (!best || s > best_score) best = i, best_score = s;
  }
  return best;
}

void ScoredCandidates::discount_pending(const Surrogate& model, const History& history) {
  penalty_.clear();
  for (std::uint32_t p : history.pending()) penalty_.add(model.forest(), model.features(), p);
}

}  // namespace cutune::detail
