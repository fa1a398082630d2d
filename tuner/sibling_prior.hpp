// The prior of a tuning run: what the database holds of the same kernel version and shape on other GPUs.
#pragma once

#include <string>
#include <unordered_map>

#include "cutune/database.hpp"
#include "cutune/prior.hpp"

namespace cutune::detail {

/// At most this many other GPUs make the prior: the nearest in compute capability first.
inline constexpr std::size_t kPriorSiblings = 3;

/// The outcomes stored for `kernel` (the same name and version hash) at `shape` under the L2 convention `flush` on
/// devices other than `self` (another name, compute capability or SM count), for the configurations of the space
/// being searched (`index_of`: canonical configuration text to index). Other GPUs are taken nearest compute
/// capability first, then most working results, then by name, at most kPriorSiblings of them; one without a working
/// configuration in the space is left out. Empty when there is none.
Prior sibling_prior(Database& database, const DeviceIdentity& self, const KernelIdentity& kernel, const std::string& shape,
                    L2Flush flush, const std::unordered_map<std::string, std::size_t>& index_of);

}  // namespace cutune::detail
