// SpaceRules: what makes a configuration of a spec valid, arranged for checking while its parameters are bound one at
// a time (the enumeration's backtracking, and the lazy space's counts, draws and neighbours).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cutune/space.hpp"
#include "cutune/spec.hpp"

namespace cutune {

/// Each constraint sits at the depth where the last parameter it names is bound (depth d: parameters 0 .. d-1 bound),
/// so a failing check removes every configuration below that prefix at once. Without a shape, constraints that name
/// the shape are left out (the configurations valid at some shape).
class SpaceRules {
 public:
  /// Throws InputError when the shape's arity is wrong, or when the block or shared-memory geometry needs the shape
  /// and none is given, or when the cartesian product exceeds 2^64.
  SpaceRules(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits);
  SpaceRules(const SpaceRules&) = delete;  // the checks point into its own copy of the spec
  SpaceRules& operator=(const SpaceRules&) = delete;

  const KernelSpec& spec() const { return spec_; }
  std::size_t parameters() const { return spec_.parameters.size(); }
  /// Combinations below a prefix of `depth` parameters (the cartesian size at depth 0).
  std::uint64_t subtree(std::size_t depth) const { return subtree_[depth]; }

  /// The scope the checks read: parameters 0 .. depth-1 must be set (set(p, v)) before holds_at(depth).
  void set(std::size_t p, const Value& v) { scope_[p] = v; }
  void set(const Config& c);
  /// Whether the constraints placed at `depth` hold for the parameters bound.
  bool holds_at(std::size_t depth) const;
  /// With every parameter set: what removes the configuration's launch, or Ok.
  enum class Launchable { Ok, Device, Target };
  Launchable launchable() const;
  /// Every constraint, then the launch: whether `c` is a valid configuration.
  bool valid(const Config& c);
  /// The parameters bound so far, as a configuration (after every set()).
  Config config() const;

 private:
  std::int64_t integer(const Expr& e, const char* field, int axis) const;

  const KernelSpec spec_;
  const DeviceLimits limits_;
  bool with_grid_;
  std::vector<Value> scope_;                              // the parameters, then the shape, then SM_COUNT
  std::vector<std::vector<const Expr*>> constraints_at_;  // by the number of parameters bound
  std::vector<std::uint64_t> subtree_;                    // subtree_[d]: points below a prefix of d parameters
};

}  // namespace cutune
