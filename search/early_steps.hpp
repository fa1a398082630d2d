// What the default strategy decides before its model knows much: where the initial design's points go, and which
// of the refinement steps the model cannot tell apart comes first. Both lean on what the first guess leans on
// (first_guess.hpp): a GPU kernel's fastest configurations mostly use much of what its parameters offer, and its
// lowest corner (every parameter at its lowest value) is among the slowest fifth on 17 of the 24 recorded spaces of
// bench/RESULTS.md.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "search_state.hpp"

namespace cutune::detail {

/// The distance between two configurations in level positions scaled to [0, 1] per parameter, summed over the
/// parameters of more than one level.
double scaled_distance(const SpaceIndex& index, std::size_t a, std::size_t b);

/// The same distance from the lowest corner (every parameter at its lowest level; a point that need not be a
/// configuration of the space).
double from_lowest_corner(const SpaceIndex& index, std::size_t config);

/// Of `candidates` (not empty), the one farthest from everything in `told` and `pending` and from the lowest corner,
/// as if that had been asked and found slow; ties go to the earlier candidate. A design spread by distance alone
/// (maximin) puts its point after the first guess at or near the lowest corner, the farthest from it, and the next
/// ones at the low ends of many ranges: on five recorded spaces that second evaluation was at a median of 1.2 to 3.4
/// times the optimum (3.35 on reduce 2^26, where one configuration in six is within 5%).
std::size_t farthest_from_asked_and_lowest(const SpaceIndex& index, std::span<const std::size_t> candidates,
                                           std::span<const std::uint32_t> told,
                                           std::span<const std::uint32_t> pending);

/// How one refinement step ranks against another that the model predicts alike: by `level_moves` (how many levels it
/// moves, whatever the parameter's number of levels), then by a seeded draw, so that with few outcomes every
/// parameter's one-level move is as likely to come first.
struct StepOrder {
  double level_moves = 0.0;
  std::uint64_t draw = 0;
  bool operator<(const StepOrder& other) const {
    return level_moves < other.level_moves || (level_moves == other.level_moves && draw < other.draw);
  }
};

/// `step`'s StepOrder as a move from `centre`, its draw from `salt` (one per run, from the seed).
StepOrder step_order(const SpaceIndex& index, std::size_t step, std::size_t centre, std::uint64_t salt);

}  // namespace cutune::detail
