// SpaceRules: the spec's constraints placed by the parameters they name, and the launch checks of a full configuration.
#include "cutune/space_rules.hpp"

#include <algorithm>

#include "cutune/error.hpp"

namespace cutune {
namespace {

constexpr const char* kAxis[] = {"x", "y", "z"};

void require_shape_free(const KernelSpec& spec, const Expr& e, const std::string& what) {
  for (const auto& name : spec.shape_names) {
    if (e.uses(name)) throw InputError(what + " '" + e.text() + "' depends on the shape; give a shape");
  }
}

}  // namespace

SpaceRules::SpaceRules(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits)
    : spec_(spec), limits_(limits), with_grid_(shape.has_value()) {
  const std::size_t n = spec_.parameters.size();
  if (shape) {
    if (shape->dims.size() != spec_.shape_names.size()) {
      throw InputError("shape " + shape->str() + " does not have the " + std::to_string(spec_.shape_names.size()) +
                       " dimensions of " + spec_.name);
    }
  } else {
    for (const auto& b : spec_.launch.block) require_shape_free(spec_, b, "block");
    require_shape_free(spec_, spec_.launch.shared_memory, "shared_memory");
  }
  scope_.resize(n);
  for (std::size_t i = 0; i < spec_.shape_names.size(); ++i) scope_.emplace_back(shape ? shape->dims[i] : std::int64_t{0});
  scope_.emplace_back(limits_.sm_count);  // SM_COUNT, the grid's last slot

  constraints_at_.resize(n + 1);
  for (const auto& c : spec_.constraints) {
    const bool on_shape = std::any_of(spec_.shape_names.begin(), spec_.shape_names.end(),
                                      [&](const std::string& name) { return c.uses(name); });
    if (!shape && on_shape) continue;
    std::size_t depth = 0;
    for (std::size_t p = 0; p < n; ++p) {
      if (c.uses(spec_.parameters[p].name)) depth = p + 1;
    }
    constraints_at_[depth].push_back(&c);
  }

  subtree_.assign(n + 1, 1);
  for (std::size_t d = n; d-- > 0;) {
    if (__builtin_mul_overflow(subtree_[d + 1], spec_.parameters[d].values.size(), &subtree_[d])) {
      throw InputError("the space of " + spec_.name + " has more than 2^64 points");
    }
  }
}

void SpaceRules::set(const Config& c) {
  for (std::size_t p = 0; p < parameters(); ++p) scope_[p] = c.values.at(p);
}

bool SpaceRules::holds_at(std::size_t depth) const {
  for (const Expr* c : constraints_at_[depth]) {
    if (!c->eval(scope_).truthy()) return false;
  }
  return true;
}

std::int64_t SpaceRules::integer(const Expr& e, const char* field, int axis) const {
  const Value v = e.eval(scope_);
  try {
    return v.as_int();
  } catch (const SpecError&) {
    const std::string name = axis < 0 ? field : std::string(field) + "." + kAxis[axis];
    throw SpecError("spec " + spec_.name + ": " + name + " '" + e.text() + "' is " + v.str() + ", not an integer");
  }
}

SpaceRules::Launchable SpaceRules::launchable() const {
  Launch launch;
  for (int i = 0; i < 3; ++i) {
    launch.block[i] = integer(spec_.launch.block[i], "block", i);
    if (with_grid_) launch.grid[i] = integer(spec_.launch.grid[i], "grid", i);
  }
  launch.shared_memory = integer(spec_.launch.shared_memory, "shared_memory", -1);
  for (int i = 0; i < 3; ++i) launch.cluster[i] = integer(spec_.launch.cluster[i], "cluster", i);
  // What the architecture lacks is counted apart from what exceeds its limits.
  if (architecture_lacks(spec_, scope_, launch, limits_.compute_capability)) return Launchable::Target;
  if (check_launch(launch, limits_, with_grid_)) return Launchable::Device;
  return Launchable::Ok;
}

bool SpaceRules::valid(const Config& c) {
  set(c);
  for (std::size_t d = 0; d <= parameters(); ++d) {
    if (!holds_at(d)) return false;
  }
  return launchable() == Launchable::Ok;
}

Config SpaceRules::config() const {
  return Config{{scope_.begin(), scope_.begin() + static_cast<std::ptrdiff_t>(parameters())}};
}

}  // namespace cutune
