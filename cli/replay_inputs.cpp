// What a kernel's spec adds to a replay of its recorded space (replay_inputs.hpp).
#include "replay_inputs.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "commands.hpp"
#include "cutune/error.hpp"
#include "cutune/launch_inputs.hpp"
#include "cutune/start_positions.hpp"

namespace cutune::cli {
namespace {

// The cache's configurations in the spec's parameter order (the cache may list its parameters in another order). A
// parameter the spec gained after the recording (none of the cache's) takes its default value in every configuration.
std::vector<Config> in_spec_order(const KernelSpec& spec, const KtCache& cache, const Space& space) {
  const std::vector<std::string> names = cache.parameter_names();
  std::vector<std::optional<std::size_t>> from(spec.parameters.size());
  std::size_t found = 0;
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
    const auto it = std::find(names.begin(), names.end(), spec.parameters[p].name);
    if (it == names.end()) continue;
    from[p] = static_cast<std::size_t>(it - names.begin());
    ++found;
  }
  if (found != names.size()) {
    for (const std::string& name : names) {
      if (std::none_of(spec.parameters.begin(), spec.parameters.end(), [&](const Parameter& p) { return p.name == name; }))
        throw InputError("--kernel " + spec.name + ": the spec has no parameter " + name + ", which the cache has");
    }
  }
  std::vector<Config> out;
  out.reserve(space.size());
  for (const auto& config : space.configs()) {
    Config c;
    for (std::size_t p = 0; p < from.size(); ++p)
      c.values.push_back(from[p] ? config.values[*from[p]] : spec.parameters[p].default_value);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

void add_kernel_knowledge(const ReplayKernel& kernel, const KtCache& cache, const RecordedSpace& recorded,
                          ReplayOptions& options) {
  if (kernel.kernel.empty()) return;
  if (kernel.shape.empty()) throw InputError("--kernel needs --shape, the shape the cache was recorded at");
  if (kernel.sm_count < 1) throw InputError("--sm-count must be at least 1");
  const KernelSpec spec = load_chosen_kernel(kernel.kernel, "", "", nullptr, false);
  const Shape shape = spec.parse_shape(kernel.shape);
  const std::vector<Config> configs = in_spec_order(spec, cache, recorded.space);
  DeviceLimits limits;
  limits.sm_count = kernel.sm_count;
  if (!kernel.no_inputs) options.inputs = launch_inputs(spec, configs, shape, limits);
  if (!kernel.start) return;
  std::unordered_map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < configs.size(); ++i) index_of.emplace(spec.format(configs[i]), i);
  options.start = start_positions(spec, spec.start, index_of);  // as `tune` finds them
}

}  // namespace cutune::cli
