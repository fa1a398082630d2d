// Enumerates a spec's valid configurations by backtracking, pruning with constraints and device limits.
#include "cutune/space.hpp"

#include <algorithm>

#include "cutune/error.hpp"
#include "cutune/space_rules.hpp"

namespace cutune {
namespace detail {
namespace {

constexpr const char* kAxis[] = {"x", "y", "z"};

std::string dims_text(const std::array<std::int64_t, 3>& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

// Depth-first walk over the parameters (SpaceRules places each constraint where its last parameter is bound), keeping
// every valid configuration.
class Enumerator {
 public:
  Enumerator(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits)
      : rules_(spec, shape, limits) {}

  void run() { visit(0); }

  std::uint64_t cartesian_size() const { return rules_.subtree(0); }
  std::vector<Config> configs;
  std::uint64_t removed_by_constraints = 0;
  std::uint64_t removed_by_device = 0;
  std::uint64_t removed_by_target = 0;

 private:
  void visit(std::size_t depth) {
    if (!rules_.holds_at(depth)) {
      removed_by_constraints += rules_.subtree(depth);
      return;
    }
    if (depth == rules_.parameters()) {
      keep_if_launchable();
      return;
    }
    for (const Value& v : rules_.spec().parameters[depth].values) {
      rules_.set(depth, v);
      visit(depth + 1);
    }
  }

  void keep_if_launchable() {
    switch (rules_.launchable()) {
      case SpaceRules::Launchable::Target: ++removed_by_target; return;
      case SpaceRules::Launchable::Device: ++removed_by_device; return;
      case SpaceRules::Launchable::Ok: break;
    }
    if (configs.size() == max_configs()) {
      throw InputError("the space of " + rules_.spec().name + " has more than " + std::to_string(max_configs()) +
                       " valid configurations (" + std::to_string(cartesian_size()) + " combinations), more than " +
                       "cutune holds in memory (" + std::to_string(kMaxSpaceBytes >> 30) + " GiB): narrow it with "
                       "constraints or --where");
    }
    configs.push_back(rules_.config());
  }

  // The valid configurations kept in memory at most: kMaxSpaceBytes of them (a 10^10-point space such as BAT's FFT,
  // 3^21 combinations without constraints, would otherwise exhaust memory before saying anything).
  static constexpr std::size_t kMaxSpaceBytes = std::size_t{4} << 30;
  std::size_t max_configs() const {
    return kMaxSpaceBytes / (sizeof(Config) + std::max<std::size_t>(1, rules_.parameters()) * sizeof(Value));
  }

  SpaceRules rules_;
};

}  // namespace
}  // namespace detail

Space Space::enumerate(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits) {
  detail::Enumerator e(spec, shape, limits);
  e.run();
  Space space;
  space.configs_ = std::move(e.configs);
  space.cartesian_size_ = e.cartesian_size();
  space.removed_by_constraints_ = e.removed_by_constraints;
  space.removed_by_device_ = e.removed_by_device;
  space.removed_by_target_ = e.removed_by_target;
  return space;
}

Space Space::from_configs(const std::vector<std::vector<Value>>& parameter_values, std::vector<Config> configs) {
  Space space;
  space.cartesian_size_ = 1;
  for (const auto& values : parameter_values) {
    if (__builtin_mul_overflow(space.cartesian_size_, values.size(), &space.cartesian_size_)) {
      throw InputError("a space of the given parameter values has more than 2^64 points");
    }
  }
  // Each configuration as its position in the grid (mixed radix, last parameter fastest) detects duplicates
  // without hashing Values.
  std::vector<std::uint64_t> positions;
  positions.reserve(configs.size());
  for (std::size_t c = 0; c < configs.size(); ++c) {
    const Config& config = configs[c];
    if (config.values.size() != parameter_values.size()) {
      throw InputError("configuration " + std::to_string(c) + " has " + std::to_string(config.values.size()) +
                       " values for " + std::to_string(parameter_values.size()) + " parameters");
    }
    std::size_t p = 0;
    const auto position = grid_position(parameter_values, config, &p);
    if (!position) {
      throw InputError("configuration " + std::to_string(c) + ": value " + config.values[p].str() + " of parameter " +
                       std::to_string(p) + " is not among its values");
    }
    positions.push_back(*position);
  }
  std::vector<std::uint64_t> sorted = positions;
  std::sort(sorted.begin(), sorted.end());
  const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) {
    const auto first = std::find(positions.begin(), positions.end(), *dup) - positions.begin();
    throw InputError("configuration " + std::to_string(first) + " occurs twice");
  }
  space.removed_by_constraints_ = space.cartesian_size_ - configs.size();
  space.configs_ = std::move(configs);
  return space;
}

Space Space::where_runs(const std::function<bool(const Config&)>& runs) const {
  Space kept = *this;
  kept.configs_.clear();
  for (const Config& c : configs_) {
    if (runs(c)) kept.configs_.push_back(c);
  }
  kept.removed_by_device_ += configs_.size() - kept.configs_.size();
  return kept;
}

std::optional<std::uint64_t> grid_position(const std::vector<std::vector<Value>>& parameter_values, const Config& config,
                                           std::size_t* missing) {
  std::uint64_t position = 0;
  for (std::size_t p = 0; p < parameter_values.size(); ++p) {
    const auto& values = parameter_values[p];
    const auto it = std::find(values.begin(), values.end(), config.values[p]);
    if (it == values.end()) {
      if (missing) *missing = p;
      return std::nullopt;
    }
    position = position * values.size() + static_cast<std::uint64_t>(it - values.begin());
  }
  return position;
}

std::optional<std::string> check_launch(const Launch& launch, const DeviceLimits& limits, bool check_grid) {
  using detail::kAxis;
  for (std::size_t i = 0; i < 3; ++i) {
    if (launch.block[i] <= 0)
      return "block." + std::string(kAxis[i]) + " = " + std::to_string(launch.block[i]) + " is not positive";
  }
  std::int64_t threads = 0;
  const bool overflow = __builtin_mul_overflow(launch.block[0], launch.block[1], &threads) ||
                        __builtin_mul_overflow(threads, launch.block[2], &threads);
  if (overflow) return "block " + detail::dims_text(launch.block) + " has more than 2^63 threads";
  if (threads > limits.max_threads_per_block) {
    return std::to_string(threads) + " threads per block > " + std::to_string(limits.max_threads_per_block);
  }
  for (std::size_t i = 0; i < 3; ++i) {
    if (launch.block[i] > limits.max_block[i]) {
      return "block." + std::string(kAxis[i]) + " = " + std::to_string(launch.block[i]) + " > " +
             std::to_string(limits.max_block[i]);
    }
  }
  if (launch.shared_memory < 0) {
    return "dynamic shared memory of " + std::to_string(launch.shared_memory) + " bytes is negative";
  }
  if (launch.shared_memory > limits.max_shared_per_block_optin) {
    return std::to_string(launch.shared_memory) + " bytes of dynamic shared memory > " +
           std::to_string(limits.max_shared_per_block_optin);
  }
  if (auto why = check_cluster(launch, limits, check_grid)) return why;
  if (check_grid) {
    for (std::size_t i = 0; i < 3; ++i) {
      if (launch.grid[i] <= 0)
        return "grid." + std::string(kAxis[i]) + " = " + std::to_string(launch.grid[i]) + " is not positive";
      if (launch.grid[i] > limits.max_grid[i]) {
        return "grid." + std::string(kAxis[i]) + " = " + std::to_string(launch.grid[i]) + " > " +
               std::to_string(limits.max_grid[i]);
      }
    }
  }
  return std::nullopt;
}

}  // namespace cutune
