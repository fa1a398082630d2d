// What other GPUs measured, turned into features the surrogate's trees can split on.
#pragma once

#include <cstdint>
#include <vector>

#include "cutune/prior.hpp"
#include "search_state.hpp"

namespace cutune::detail {

/// At most this many other GPUs become features; more add little and slow every fit.
inline constexpr std::size_t kPriorColumns = 3;
/// The levels of a prior column: ranks in 64ths of the space.
inline constexpr std::uint16_t kPriorLevels = 64;

/// One column per other GPU of `prior` that measured a working configuration of the space (at most kPriorColumns, in
/// the prior's order), row after row: configuration c's entries are at [c * k, c * k + k). Each entry is the rank of
/// that GPU's log time at c among the space's configurations, in kPriorLevels levels (0: fastest); a failure there ranks
/// last, and a configuration it did not measure takes the prediction of a tree ensemble fitted to what it did
/// (seeded with `seed`). Trees then split on "was fast on that GPU" wherever that tells configurations apart here,
/// and ignore it where it does not. Empty when no other GPU measured a working configuration.
std::vector<std::uint16_t> prior_columns(const SpaceIndex& index, const Prior& prior, std::uint64_t seed);

/// The configurations below level `below` in some column of `columns` (prior_columns()), in index order: those some
/// other GPU ranks among its fastest `below` / kPriorLevels.
std::vector<std::uint32_t> prior_favourites(const SpaceIndex& index, const std::vector<std::uint16_t>& columns,
                                            std::uint16_t below);

}  // namespace cutune::detail
