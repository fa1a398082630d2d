// An extremely randomised trees regression ensemble over level codes: the surrogate model of Bayesian optimisation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "search_state.hpp"

namespace cutune::detail {

/// Per configuration, the ordered features the trees split on: a space's level codes (SpaceIndex::codes()), with any
/// columns a prior adds after them (prior_features.hpp).
struct Features {
  const std::uint16_t* data = nullptr;
  std::size_t width = 0;
  std::span<const std::uint16_t> row(std::size_t config) const { return {data + config * width, width}; }
};

/// A space's level codes as features; `index` must outlive them.
inline Features level_codes(const SpaceIndex& index) { return {index.codes().data(), index.dimensions()}; }

/// Trees split on "level of parameter p <= t", which suits spaces whose parameters are ordered but far from
/// continuous; the spread of the trees' predictions stands in for the model's uncertainty.
class Forest {
 public:
  struct Options {
    std::size_t trees = 24;
    std::size_t min_leaf = 2;      ///< a node with fewer samples than twice this is a leaf
    std::size_t split_tries = 0;   ///< random splits compared per node; 0: one per parameter
  };

  /// Fits to `rows` (configurations, whose features are rows of `features`) with targets `y`.
  void fit(const Features& features, std::span<const std::uint32_t> rows, std::span<const double> y, Rng& rng,
           const Options& options);
  /// The trees' mean and standard deviation at a configuration.
  void predict(std::span<const std::uint16_t> code, double& mean, double& stddev) const;
  std::size_t trees() const { return roots_.size(); }
  /// The prediction a leaf (from leaves()) holds.
  double leaf_value(std::int32_t leaf) const { return nodes_[static_cast<std::size_t>(leaf)].value; }
  /// Appends the leaf a configuration falls into in each tree (trees() node numbers): two configurations in the
  /// same leaf of a tree are the same to that tree.
  void leaves(std::span<const std::uint16_t> code, std::vector<std::int32_t>& out) const;

 private:
  struct Node {
    std::int32_t left = -1;        // -1: a leaf holding `value`
    std::int32_t right = -1;
    std::uint16_t feature = 0;
    std::uint16_t threshold = 0;   // go left when level <= threshold
    double value = 0.0;
  };

  std::int32_t build(std::size_t begin, std::size_t end, Rng& rng, const Options& options);
  std::int32_t leaf(std::int32_t root, std::span<const std::uint16_t> code) const;

  std::vector<Node> nodes_;
  std::vector<std::int32_t> roots_;
  // Fitting scratch: the rows under construction and their targets, kept to avoid reallocating per tree.
  Features features_;
  std::vector<std::uint32_t> rows_;
  std::vector<double> y_;
};

}  // namespace cutune::detail
