// LazySpace: a spec's valid configurations without enumerating them: counted (exactly where a walk that keeps nothing
// is cheap, else estimated with bounds), drawn uniformly, checked and their neighbours found through the constraints.
// Memory stays that of one configuration whatever the space's size.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cutune/space.hpp"
#include "cutune/spec.hpp"

namespace cutune {

class SpaceRules;

/// How many valid configurations a space holds: exact, or an estimate with a 95% interval.
struct SpaceCount {
  bool exact = false;
  double value = 0.0;         ///< the count (exact), or the estimate
  double low = 0.0, high = 0.0;  ///< the interval (both equal to value when exact)
  std::uint64_t probes = 0;   ///< random descents behind an estimate (0 when exact)
};
/// A count as `tune space` prints it: the integer below a million, else three significant digits ("1.23e+09").
std::string count_text(double count);

class LazySpace {
 public:
  /// As Space::enumerate: the spec's constraints at `shape` (those on the shape left out without one) and the device's
  /// launch limits; throws what it throws for a wrong shape or geometry.
  LazySpace(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits);
  ~LazySpace();
  LazySpace(LazySpace&&) noexcept;
  LazySpace& operator=(LazySpace&&) noexcept;

  const KernelSpec& spec() const;
  std::uint64_t cartesian_size() const;

  /// Counts by a depth-first walk that keeps nothing if it ends within `visits` visits of the tree (the exact count),
  /// else estimates from `probes` random descents (Knuth's estimator: the product of the valid choices met on the way
  /// down, averaged; unbiased), with a 95% interval of its mean, clipped to [0, cartesian_size()].
  SpaceCount count(std::uint64_t visits, std::size_t probes, std::uint64_t seed) const;

  /// A valid configuration drawn uniformly from all of them (values drawn uniformly for each parameter in order, the
  /// draw started afresh as soon as a constraint fails: every valid configuration has the same chance), or nullopt
  /// when `tries` fresh starts found none; `starts` (when given) says how many it made.
  std::optional<Config> draw(std::mt19937_64& rng, std::uint64_t tries, std::uint64_t* starts = nullptr) const;

  /// Whether `c` (a value of each parameter's list) is valid: every constraint and the launch limits.
  bool valid(const Config& c) const;

  /// The valid configurations that differ from `c` in exactly one parameter, in parameter order, then value order.
  std::vector<Config> neighbours(const Config& c) const;

  /// Calls `visit` with each valid configuration in enumeration order (Space::enumerate's), holding none of them;
  /// returns how many there were.
  std::uint64_t for_each(const std::function<void(const Config&)>& visit) const;

  /// The first valid configuration in enumeration order (Space::enumerate's first), found by a walk that stops there;
  /// nullopt when there is none.
  std::optional<Config> first() const;

 private:
  std::unique_ptr<SpaceRules> rules_;
};

/// Valid configurations up to which a space is enumerated whole (by tuning, and by `tune space` to say what removed
/// the rest): held in memory, a configuration costs some hundreds of bytes.
inline constexpr std::uint64_t kEnumerateUpTo = 2'000'000;
/// The uniform sample that tuning takes of a larger space: this many valid configurations.
inline constexpr std::size_t kTunedSample = 100'000;
/// Fresh starts of LazySpace::draw that a sample may take in all (tens of seconds at most on one core).
inline constexpr std::uint64_t kSampleStarts = 200'000'000;

/// The space tuning searches. Every valid configuration, as Space::enumerate gives them, where the cartesian product
/// is at most kTunedSample or a walk that keeps nothing counts at most kEnumerateUpTo valid configurations (or, where
/// the walk does not end, the estimate's interval lies below that: the same proposals for the same seed as ever); else kTunedSample distinct valid configurations drawn uniformly
/// (LazySpace::draw, a fixed seed: every job and every resume of a run tunes the same sample), in enumeration order,
/// in the memory of those configurations; Space::sample_of() then says how many the whole space holds (exact or
/// estimated). The draws take at most kSampleStarts fresh starts in all: where few starts are valid the sample is
/// smaller, and where none was found the space is enumerated after all.
Space tuning_space(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits);

}  // namespace cutune
