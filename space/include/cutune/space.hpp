// Space: the spec's parameter values × its constraints, minus what the device cannot launch.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cutune/shard.hpp"
#include "cutune/spec.hpp"

namespace cutune {

/// What a device can launch. Defaults are those of compute capability 9.0.
struct DeviceLimits {
  std::int64_t max_threads_per_block = 1024;
  std::array<std::int64_t, 3> max_block{1024, 1024, 64};
  std::array<std::int64_t, 3> max_grid{2147483647, 65535, 65535};
  std::int64_t max_shared_per_block = 48 * 1024;            ///< without opt-in, bytes
  std::int64_t max_shared_per_block_optin = 227 * 1024;     ///< with opt-in, bytes
  /// major * 10 + minor: which architecture-specific target (sm_90a) runs, and whether clusters launch (90 and up).
  int compute_capability = 90;
  /// Blocks per cluster; above 8 (the portable size) the launch allows a non-portable size for the kernel.
  std::int64_t max_cluster_size = 16;
  /// Multiprocessors: SM_COUNT in grid expressions (an H100 SXM's or H200's 132 where no device is known).
  std::int64_t sm_count = 132;
};

/// The limits of a GPU of compute capability `cc` (major * 10 + minor) where they are not known from a device: those
/// of 9.0 with its compute capability, and no clusters below 9.0. For `tune space` and `tune compile --arch`.
DeviceLimits limits_of_compute_capability(int cc);

/// The valid configurations of a spec, in enumeration order (the cartesian product in parameter order,
/// last parameter fastest), with counts of what was removed and why.
class Space {
 public:
  /// Enumerates, checking each constraint as soon as the parameters it names are bound. Block size and
  /// dynamic shared memory are checked against `limits`; grid size only when a shape is given. Without a shape,
  /// constraints that name the shape are not applied (the configurations valid at some shape); throws InputError
  /// when the block or shared-memory geometry needs shape names and no shape is given.
  static Space enumerate(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits);
  /// A space of given configurations, e.g. those recorded in another tuner's cache. `parameter_values` lists each
  /// parameter's values (the full grid, giving cartesian_size()); every configuration must take one of them per
  /// parameter. What the grid holds beyond `configs` counts as removed by constraints. Throws InputError on a
  /// configuration of the wrong arity, a value outside its parameter's list, or a duplicate configuration.
  static Space from_configs(const std::vector<std::vector<Value>>& parameter_values, std::vector<Config> configs);

  /// The configurations of one part (Shard), in the same order; the others count as removed_by_shard(). The part
  /// depends only on this space, so jobs that enumerate the same space (same spec version, shape, constraints and
  /// device limits) split it the same way.
  Space shard(const Shard& part) const;

  const std::vector<Config>& configs() const& { return configs_; }
  /// From a temporary Space (`Space::enumerate(...).configs()`), the configurations themselves: a reference into the
  /// temporary would dangle in a range-for, which has cost a crash twice.
  std::vector<Config> configs() && { return std::move(configs_); }
  std::size_t size() const { return configs_.size(); }
  std::uint64_t cartesian_size() const { return cartesian_size_; }
  std::uint64_t removed_by_constraints() const { return removed_by_constraints_; }
  std::uint64_t removed_by_device() const { return removed_by_device_; }
  /// Valid configurations left to the other parts of a shard() (0 for a whole space).
  std::uint64_t removed_by_shard() const { return removed_by_shard_; }
  /// Configurations that need what this GPU's architecture lacks (architecture_lacks()): an architecture-specific
  /// target of another compute capability, or clusters or tensor maps below compute capability 9.0.
  std::uint64_t removed_by_target() const { return removed_by_target_; }
  /// When this is a uniform sample of a larger space (tuning_space()): how many valid configurations that space holds,
  /// exact or estimated; 0 for a whole space.
  double sample_of() const { return sample_of_; }
  void set_sample_of(double valid) { sample_of_ = valid; }
  /// The configurations `runs` admits, in the same order; the others count as removed_by_device() (what a vendor
  /// library does not run on this device at the shape).
  Space where_runs(const std::function<bool(const Config&)>& runs) const;
  /// Adds a configuration to a sample from outside it (SampleGrowth: the caller checks that it is valid and new).
  void append(Config c) { configs_.push_back(std::move(c)); }

 private:
  std::vector<Config> configs_;
  std::uint64_t cartesian_size_ = 0;
  std::uint64_t removed_by_constraints_ = 0;
  std::uint64_t removed_by_device_ = 0;
  std::uint64_t removed_by_shard_ = 0;
  std::uint64_t removed_by_target_ = 0;
  double sample_of_ = 0.0;
};

/// A configuration's place in the grid of `parameter_values` (mixed radix, last parameter fastest: the enumeration's
/// order), or nullopt (with the parameter in `missing`) when a value is not among its parameter's; the grid must hold
/// at most 2^64 points.
std::optional<std::uint64_t> grid_position(const std::vector<std::vector<Value>>& parameter_values, const Config& config,
                                           std::size_t* missing = nullptr);

/// Why a launch exceeds the limits, or nullopt when it fits.
std::optional<std::string> check_launch(const Launch& launch, const DeviceLimits& limits, bool check_grid);
/// What a configuration needs that a GPU of compute capability `cc` lacks: an architecture-specific target of another
/// compute capability, a cluster of several blocks or a tensor-map argument below 9.0; nullopt when it has it all.
/// `scope` as KernelSpec::scope(), `launch` its resolved geometry (the cluster is what counts).
std::optional<std::string> architecture_lacks(const KernelSpec& spec, const std::vector<Value>& scope,
                                              const Launch& launch, int cc);
/// Why a launch's cluster cannot be launched (no clusters before compute capability 9.0, too many blocks, a grid
/// that is not a multiple of it when `check_grid`), or nullopt when it can (always for a cluster of one block).
std::optional<std::string> check_cluster(const Launch& launch, const DeviceLimits& limits, bool check_grid);

}  // namespace cutune
