// Fitting and evaluating the extremely randomised trees surrogate.
#include "forest.hpp"

#include <algorithm>
#include <cmath>

namespace cutune::detail {

void Forest::fit(const Features& features, std::span<const std::uint32_t> rows, std::span<const double> y, Rng& rng,
                 const Options& options) {
  features_ = features;
  nodes_.clear();
  roots_.clear();
  for (std::size_t t = 0; t < options.trees; ++t) {
    rows_.assign(rows.begin(), rows.end());
    y_.assign(y.begin(), y.end());
    roots_.push_back(build(0, rows_.size(), rng, options));
  }
}

std::int32_t Forest::build(std::size_t begin, std::size_t end, Rng& rng, const Options& options) {
  const std::size_t n = end - begin;
  double sum = 0.0, sum_sq = 0.0;
  for (std::size_t i = begin; i < end; ++i) sum += y_[i], sum_sq += y_[i] * y_[i];
  const double mean = sum / static_cast<double>(n);
  const auto self = static_cast<std::int32_t>(nodes_.size());
  nodes_.push_back(Node{-1, -1, 0, 0, mean});
  if (n < 2 * options.min_leaf || sum_sq - sum * mean <= 1e-12 * static_cast<double>(n)) return self;

  // Extra-Trees: draw a random threshold for several random parameters and keep the split that explains most
  // variance; parameters constant within the node cannot split and are skipped.
  const std::size_t d = features_.width;
  const std::size_t tries = options.split_tries ? options.split_tries : d;
  double best_score = 0.0;
  std::uint16_t best_feature = 0, best_threshold = 0;
  bool found = false;
  for (std::size_t k = 0; k < tries; ++k) {
    const std::size_t p = rng.below(d);
    std::uint16_t lo = 0xffff, hi = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint16_t l = features_.row(rows_[i])[p];
      lo = std::min(lo, l);
      hi = std::max(hi, l);
    }
    if (lo == hi) continue;
    const auto t = static_cast<std::uint16_t>(lo + rng.below(hi - lo));
    double left_sum = 0.0;
    std::size_t left_n = 0;
    for (std::size_t i = begin; i < end; ++i) {
      if (features_.row(rows_[i])[p] <= t) left_sum += y_[i], ++left_n;
    }
    const double right_sum = sum - left_sum;
    const std::size_t right_n = n - left_n;
    // The between-children sum of squares: maximising it minimises the children's variance.
    const double score = left_sum * left_sum / static_cast<double>(left_n) +
                         right_sum * right_sum / static_cast<double>(right_n);
    if (!found || score > best_score) {
      best_score = score;
      best_feature = static_cast<std::uint16_t>(p);
      best_threshold = t;
      found = true;
    }
  }
  if (!found) return self;

  std::size_t mid = begin;
  for (std::size_t i = begin; i < end; ++i) {
    if (features_.row(rows_[i])[best_feature] <= best_threshold) {
      std::swap(rows_[i], rows_[mid]);
      std::swap(y_[i], y_[mid]);
      ++mid;
    }
  }
  const std::int32_t left = build(begin, mid, rng, options);
  const std::int32_t right = build(mid, end, rng, options);
  nodes_[static_cast<std::size_t>(self)].left = left;
  nodes_[static_cast<std::size_t>(self)].right = right;
  nodes_[static_cast<std::size_t>(self)].feature = best_feature;
  nodes_[static_cast<std::size_t>(self)].threshold = best_threshold;
  return self;
}

std::int32_t Forest::leaf(std::int32_t root, std::span<const std::uint16_t> code) const {
  std::int32_t at = root;
  for (const Node* node = &nodes_[static_cast<std::size_t>(at)]; node->left >= 0; node = &nodes_[static_cast<std::size_t>(at)]) {
    at = code[node->feature] <= node->threshold ? node->left : node->right;
  }
  return at;
}

void Forest::predict(std::span<const std::uint16_t> code, double& mean, double& stddev) const {
  double sum = 0.0, sum_sq = 0.0;
  for (std::int32_t root : roots_) {
    const double value = nodes_[static_cast<std::size_t>(leaf(root, code))].value;
    sum += value;
    sum_sq += value * value;
  }
  const double t = static_cast<double>(roots_.size());
  mean = sum / t;
  stddev = std::sqrt(std::max(0.0, sum_sq / t - mean * mean));
}

void Forest::leaves(std::span<const std::uint16_t> code, std::vector<std::int32_t>& out) const {
  for (std::int32_t root : roots_) out.push_back(leaf(root, code));
}

}  // namespace cutune::detail
