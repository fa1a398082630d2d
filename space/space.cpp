// Enumerates a spec's valid configurations by backtracking, pruning with constraints and device limits.
#include "cutune/space.hpp"

#include <algorithm>

#include "cutune/error.hpp"

namespace cutune {
namespace detail {
namespace {

constexpr const char* kAxis[] = {"x", "y", "z"};

std::string dims_text(const std::array<std::int64_t, 3>& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

void require_shape_free(const KernelSpec& spec, const Expr& e, const std::string& what) {
  for (const auto& name : spec.shape_names) {
    if (e.uses(name)) throw InputError(what + " '" + e.text() + "' depends on the shape; give a shape");
  }
}

// Depth-first walk over the parameters; a constraint sits at the depth where its last parameter is bound,
// so one failing check removes the whole subtree below it without visiting it.
class Enumerator {
 public:
  Enumerator(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits)
      : spec_(spec), limits_(limits), with_grid_(shape.has_value()) {
    const std::size_t n = spec.parameters.size();
    if (shape) {
      if (shape->dims.size() != spec.shape_names.size()) {
        throw InputError("shape " + shape->str() + " does not have the " + std::to_string(spec.shape_names.size()) +
                         " dimensions of " + spec.name);
      }
    } else {
      for (const auto& b : spec.launch.block) require_shape_free(spec, b, "block");
      require_shape_free(spec, spec.launch.shared_memory, "shared_memory");
    }
    values_.resize(n);
    for (std::size_t i = 0; i < spec.shape_names.size(); ++i) {
      values_.emplace_back(shape ? shape->dims[i] : std::int64_t{0});
    }
    values_.emplace_back(limits.sm_count);  // SM_COUNT, the grid's last slot

    constraints_at_.resize(n + 1);
    for (const auto& c : spec.constraints) {
      // Without a shape, a constraint on the shape cannot be decided: the space is then every configuration
      // that is valid at some shape.
      const bool on_shape = std::any_of(spec.shape_names.begin(), spec.shape_names.end(),
                                        [&](const std::string& name) { return c.uses(name); });
      if (!shape && on_shape) continue;
      std::size_t depth = 0;
      for (std::size_t p = 0; p < n; ++p) {
        if (c.uses(spec.parameters[p].name)) depth = p + 1;
      }
      constraints_at_[depth].push_back(&c);
    }

    subtree_.assign(n + 1, 1);
    for (std::size_t d = n; d-- > 0;) {
      if (__builtin_mul_overflow(subtree_[d + 1], spec.parameters[d].values.size(), &subtree_[d])) {
        throw InputError("the space of " + spec.name + " has more than 2^64 points");
      }
    }
  }

  void run() { visit(0); }

  std::uint64_t cartesian_size() const { return subtree_[0]; }
  std::vector<Config> configs;
  std::uint64_t removed_by_constraints = 0;
  std::uint64_t removed_by_device = 0;
  std::uint64_t removed_by_target = 0;

 private:
  void visit(std::size_t depth) {
    for (const Expr* c : constraints_at_[depth]) {
      if (!c->eval(values_).truthy()) {
        removed_by_constraints += subtree_[depth];
        return;
      }
    }
    if (depth == spec_.parameters.size()) {
      keep_if_launchable();
      return;
    }
    for (const Value& v : spec_.parameters[depth].values) {
      values_[depth] = v;
      visit(depth + 1);
    }
  }

  std::int64_t integer(const Expr& e, const std::string& field) const {
    const Value v = e.eval(values_);
    try {
      return v.as_int();
    } catch (const SpecError&) {
      throw SpecError("spec " + spec_.name + ": " + field + " '" + e.text() + "' is " + v.str() + ", not an integer");
    }
  }

  void keep_if_launchable() {
    Launch launch;
    for (std::size_t i = 0; i < 3; ++i) {
      launch.block[i] = integer(spec_.launch.block[i], std::string("block.") + kAxis[i]);
      if (with_grid_) launch.grid[i] = integer(spec_.launch.grid[i], std::string("grid.") + kAxis[i]);
    }
    launch.shared_memory = integer(spec_.launch.shared_memory, "shared_memory");
    for (std::size_t i = 0; i < 3; ++i) launch.cluster[i] = integer(spec_.launch.cluster[i], std::string("cluster.") + kAxis[i]);
    // What the architecture lacks is counted apart from what exceeds its limits.
    if (architecture_lacks(spec_, values_, launch, limits_.compute_capability)) {
      ++removed_by_target;
      return;
    }
    if (check_launch(launch, limits_, with_grid_)) {
      ++removed_by_device;
      return;
    }
    if (configs.size() == max_configs()) {
      throw InputError("the space of " + spec_.name + " has more than " + std::to_string(max_configs()) +
                       " valid configurations (" + std::to_string(cartesian_size()) + " combinations), more than " +
                       "cutune holds in memory (" + std::to_string(kMaxSpaceBytes >> 30) + " GiB): narrow it with "
                       "constraints or --where");
    }
    configs.push_back(
        Config{{values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(spec_.parameters.size())}});
  }

  // The valid configurations kept in memory at most: kMaxSpaceBytes of them (a 10^10-point space such as BAT's FFT,
  // 3^21 combinations without constraints, would otherwise exhaust memory before saying anything).
  static constexpr std::size_t kMaxSpaceBytes = std::size_t{4} << 30;
  std::size_t max_configs() const {
    return kMaxSpaceBytes / (sizeof(Config) + std::max<std::size_t>(1, spec_.parameters.size()) * sizeof(Value));
  }

  const KernelSpec& spec_;
  const DeviceLimits& limits_;
  bool with_grid_;
  std::vector<Value> values_;                             // the scope: parameters bound so far, then the shape
  std::vector<std::vector<const Expr*>> constraints_at_;  // by the number of parameters bound
  std::vector<std::uint64_t> subtree_;                    // subtree_[d]: points below a prefix of d parameters
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
    std::uint64_t position = 0;
    for (std::size_t p = 0; p < parameter_values.size(); ++p) {
      const auto& values = parameter_values[p];
      const auto it = std::find(values.begin(), values.end(), config.values[p]);
      if (it == values.end()) {
        throw InputError("configuration " + std::to_string(c) + ": value " + config.values[p].str() + " of parameter " +
                         std::to_string(p) + " is not among its values");
      }
      position = position * values.size() + static_cast<std::uint64_t>(it - values.begin());
    }
    positions.push_back(position);
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
