// SampleGrowth: what tuning adds to the uniform sample of a space too large to hold (tuning_space()) from outside it:
// the configurations asked for first, those earlier runs stored, and, as tuning goes on, the valid neighbours of the
// best configurations measured, so that refinement around the best is not confined to the sample's few per cent.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cutune/lazy_space.hpp"
#include "cutune/shard.hpp"
#include "cutune/space.hpp"

namespace cutune {

class SampleGrowth {
 public:
  /// The whole space of `spec` at `shape` within `limits`, whose uniform sample, whole (before Space::shard), is
  /// `sample`; `part` is the shard being tuned.
  SampleGrowth(const KernelSpec& spec, const Shape& shape, const DeviceLimits& limits, const Space& sample, Shard part);

  /// Appends to `space` (this part of the sample, and what was added to it) each of `configs` that is valid in the
  /// whole space, of this part, and in neither the whole sample nor `space`; `index_of` (the configurations' texts to
  /// their indices in `space`) gets the new ones. A configuration outside the sample belongs to the part its place in
  /// the cartesian product falls in (Shard::holds of that place), so parts never add the same one. Returns how many.
  std::size_t add(Space& space, std::unordered_map<std::string, std::size_t>& index_of,
                  const std::vector<Config>& configs) const;

  /// add() of the valid neighbours (one parameter changed: LazySpace::neighbours) of each of `centres` that was not
  /// a centre before; returns how many configurations were added.
  std::size_t grow(Space& space, std::unordered_map<std::string, std::size_t>& index_of,
                   const std::vector<Config>& centres);

 private:
  const KernelSpec& spec_;
  LazySpace lazy_;
  std::vector<std::vector<Value>> values_;  // each parameter's values: places in the cartesian product
  std::vector<std::uint64_t> sample_;       // the whole sample's places, sorted
  Shard part_;
  std::set<std::uint64_t> centres_;         // places grown around already
};

/// How a budget of `to_measure` evaluations is spent on a sampled space: `first` on the sample (and what was added to
/// it before tuning), then rounds of `round`, each after growing around the best.
struct GrowthPlan {
  std::size_t first = 0;
  std::size_t round = 0;
};
GrowthPlan growth_plan(std::size_t to_measure);

/// The best configurations a round grows around.
inline constexpr std::size_t kGrowthCentres = 4;

}  // namespace cutune
