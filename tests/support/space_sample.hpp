// A deterministic sample of a space that holds every value of every parameter at least once, for tests that
// cannot afford the whole space (GEMM: compiles on the CI machine, correctness runs on the GPU).
#pragma once

#include <algorithm>
#include <cstddef>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cutune/space.hpp"
#include "cutune/spec.hpp"

namespace cutune::testing {

/// The integer value of parameter `name` in `c`; throws where the spec has no such parameter.
inline std::int64_t value(const KernelSpec& spec, const Config& c, const std::string& name) {
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    if (spec.parameters[p].name == name) return c.values[p].as_int();
  throw std::logic_error("no parameter " + name);
}

/// At least `count` configurations of `all` (all of them when it is smaller): first, for each value of each
/// parameter, a configuration that has it; then configurations at an even stride through the space.
inline std::vector<Config> sample_configs(const KernelSpec& spec, const std::vector<Config>& all, std::size_t count) {
  std::set<std::size_t> chosen;
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
    for (const Value& v : spec.parameters[p].values) {
      // Spread the picks: start looking at a point that depends on the parameter and value.
      const std::size_t start = (p * 7919 + chosen.size() * 104729) % std::max<std::size_t>(all.size(), 1);
      for (std::size_t i = 0; i < all.size(); ++i) {
        const std::size_t at = (start + i) % all.size();
        if (all[at].values[p] == v) {
          chosen.insert(at);
          break;
        }
      }
    }
  }
  const std::size_t wanted = std::min(count, all.size());
  const std::size_t stride = std::max<std::size_t>(1, all.size() / std::max<std::size_t>(wanted, 1));
  for (std::size_t i = 0; chosen.size() < wanted; i = (i + stride) % all.size()) {
    while (chosen.count(i)) i = (i + 1) % all.size();  // taken: the next free one (wanted <= size, so one exists)
    chosen.insert(i);
  }
  std::vector<Config> out;
  for (std::size_t i : chosen) out.push_back(all[i]);
  return out;
}
inline std::vector<Config> sample_space(const KernelSpec& spec, const Space& space, std::size_t count) {
  return sample_configs(spec, space.configs(), count);
}

/// The configurations of `space` whose parameter `name` has `value` (an instruction path, say), in order.
inline std::vector<Config> configs_with(const KernelSpec& spec, const Space& space, const std::string& name,
                                        std::int64_t value) {
  std::size_t p = 0;
  while (p < spec.parameters.size() && spec.parameters[p].name != name) ++p;
  std::vector<Config> out;
  for (const Config& c : space.configs()) {
    if (p < spec.parameters.size() && c.values[p].as_int() == value) out.push_back(c);
  }
  return out;
}

}  // namespace cutune::testing
