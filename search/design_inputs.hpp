// What the search inputs (search_inputs.hpp) favour, for the default strategy's initial design.
#pragma once

#include <cstdint>
#include <vector>

#include "cutune/search_inputs.hpp"

namespace cutune::detail {

/// The configurations (of `configs`) whose every favoured input is known and at or above the median of its known
/// values (or its favour_enough), in index order; empty when `inputs` favours nothing or that keeps every configuration.
std::vector<std::uint32_t> favoured_by(const SearchInputs& inputs, std::size_t configs);

}  // namespace cutune::detail
