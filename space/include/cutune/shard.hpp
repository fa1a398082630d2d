// Shard: one of n deterministic parts of the work, so that n independent jobs (a Slurm job array) cover one run.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cutune {

/// Part `index` of `count`, 1-based as Slurm's SLURM_ARRAY_TASK_ID with --array=1-N. A space's configuration at
/// position p (in enumeration order) belongs to part p mod count + 1: the parts interleave, so each holds every
/// region of the space, and together they hold each configuration exactly once.
struct Shard {
  std::size_t index = 1;
  std::size_t count = 1;

  /// "i/n" with 1 <= i <= n <= 2^20 (digits only); throws InputError naming the text otherwise.
  static Shard parse(std::string_view text);
  /// True for the one part that is the whole space (1/1).
  bool whole() const { return count == 1; }
  /// Whether the configuration at `position` belongs to this part.
  bool holds(std::size_t position) const { return position % count + 1 == index; }
  std::string str() const { return std::to_string(index) + "/" + std::to_string(count); }
};

}  // namespace cutune
