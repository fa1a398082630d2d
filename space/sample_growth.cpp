// Growing a sampled space: validity through the constraints, parts by place in the cartesian product.
#include "cutune/sample_growth.hpp"

#include <algorithm>

namespace cutune {

SampleGrowth::SampleGrowth(const KernelSpec& spec, const Shape& shape, const DeviceLimits& limits, const Space& sample,
                           Shard part)
    : spec_(spec), lazy_(spec, shape, limits), part_(part) {
  for (const auto& p : spec.parameters) values_.push_back(p.values);
  sample_.reserve(sample.size());
  for (const Config& c : sample.configs())
    if (const auto place = grid_position(values_, c)) sample_.push_back(*place);
  std::sort(sample_.begin(), sample_.end());
}

std::size_t SampleGrowth::add(Space& space, std::unordered_map<std::string, std::size_t>& index_of,
                              const std::vector<Config>& configs) const {
  std::size_t added = 0;
  for (const Config& c : configs) {
    const auto place = grid_position(values_, c);
    if (!place || !part_.holds(static_cast<std::size_t>(*place % part_.count))) continue;
    if (std::binary_search(sample_.begin(), sample_.end(), *place)) continue;
    std::string text = spec_.format(c);
    if (index_of.count(text) != 0 || !lazy_.valid(c)) continue;
    index_of.emplace(std::move(text), space.size());
    space.append(c);
    ++added;
  }
  return added;
}

std::size_t SampleGrowth::grow(Space& space, std::unordered_map<std::string, std::size_t>& index_of,
                               const std::vector<Config>& centres) {
  std::size_t added = 0;
  for (const Config& c : centres) {
    const auto place = grid_position(values_, c);
    if (!place || !centres_.insert(*place).second) continue;
    added += add(space, index_of, lazy_.neighbours(c));
  }
  return added;
}

GrowthPlan growth_plan(std::size_t to_measure) {
  // Half on the sample: its best is then about as good as a uniform search of that many finds, and the other half
  // refines around it where the sample holds only a few per cent of the neighbours.
  const std::size_t first = to_measure - to_measure / 2;
  return {first, std::max<std::size_t>(8, to_measure / 10)};
}

}  // namespace cutune
