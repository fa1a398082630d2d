// The configurations the search inputs favour (design_inputs.hpp).
#include "design_inputs.hpp"

#include <algorithm>
#include <cmath>

namespace cutune::detail {

std::vector<std::uint32_t> favoured_by(const SearchInputs& inputs, std::size_t configs) {
  std::vector<bool> keep(configs, true);
  for (std::size_t f = 0; f < inputs.favour_high.size(); ++f) {
    const std::size_t k = inputs.favour_high[f];
    std::vector<double> known;
    for (std::size_t c = 0; c < configs; ++c)
      if (!std::isnan(inputs.at(c, k))) known.push_back(inputs.at(c, k));
    if (known.empty()) continue;
    const auto middle = known.begin() + static_cast<std::ptrdiff_t>(known.size() / 2);
    std::nth_element(known.begin(), middle, known.end());
    const double bar = f < inputs.favour_enough.size() ? std::min(*middle, inputs.favour_enough[f]) : *middle;
    for (std::size_t c = 0; c < configs; ++c) keep[c] = keep[c] && !std::isnan(inputs.at(c, k)) && inputs.at(c, k) >= bar;
  }
  std::vector<std::uint32_t> out;
  for (std::size_t c = 0; c < configs; ++c)
    if (keep[c]) out.push_back(static_cast<std::uint32_t>(c));
  if (out.size() == configs) out.clear();
  return out;
}

}  // namespace cutune::detail
