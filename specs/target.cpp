// Reads a spec's "target" and decides, per configuration, which architecture-specific target it compiles for.
#include "cutune/target.hpp"

#include <algorithm>
#include <cctype>

#include "spec_reader.hpp"

namespace cutune {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::optional<int> arch_compute_capability(std::string_view arch) {
  if (!arch.starts_with("sm_")) return std::nullopt;
  std::string_view digits = arch.substr(3);
  if (digits.ends_with('a')) digits.remove_suffix(1);
  // sm_90 is 9.0 and sm_100 10.0: the last digit is the minor version.
  if (!all_digits(digits) || digits.size() < 2 || digits.size() > 4 || digits.front() == '0') return std::nullopt;
  return std::stoi(std::string(digits));
}

bool is_arch_specific(std::string_view arch) { return arch.ends_with('a') && arch_compute_capability(arch); }

std::vector<std::string> required_targets(const KernelSpec& spec, const std::vector<Value>& scope) {
  std::vector<std::string> out;
  for (const TargetRule& rule : spec.targets) {
    if (rule.when.eval(scope).truthy()) out.push_back(rule.arch);
  }
  return out;
}

std::vector<std::string> required_targets(const KernelSpec& spec, const Config& config) {
  if (spec.targets.empty()) return {};
  return required_targets(spec, spec.scope(config, nullptr));
}

std::optional<std::string> target_unavailable(const KernelSpec& spec, const std::vector<Value>& scope, int cc) {
  const std::vector<std::string> targets = required_targets(spec, scope);
  if (targets.size() > 1) return "it needs both " + targets[0] + " and " + targets[1] + ", which no GPU has";
  if (targets.empty() || arch_compute_capability(targets[0]) == cc) return std::nullopt;
  const int needed = *arch_compute_capability(targets[0]);
  return "it needs " + targets[0] + " (compute capability " + std::to_string(needed / 10) + "." +
         std::to_string(needed % 10) + "), the GPU has " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}

std::string compile_arch(const KernelSpec& spec, const Config& config, const std::string& device_arch) {
  const std::vector<std::string> targets = required_targets(spec, config);
  return targets.empty() ? device_arch : targets.front();
}

namespace detail {

void read_targets(const Json& j, const FieldReader& reader, KernelSpec& spec) {
  const std::string usage = "must be a target such as \"sm_90a\" or an object {\"sm_90a\": CONDITION, ...}";
  auto check_name = [&](const std::string& name, const std::string& field) {
    if (!is_arch_specific(name)) {
      reader.fail(field, "'" + name + "' is not an architecture-specific target (sm_<major><minor>a: sm_90a, "
                                      "sm_100a, sm_120a, ...)");
    }
  };
  if (j.is_string()) {
    const std::string name = j.get<std::string>();
    check_name(name, "target");
    TargetRule rule{name, Expr::constant(1)};
    rule.when.bind(spec.scope_names());
    spec.targets.push_back(std::move(rule));
    return;
  }
  if (!j.is_object() || j.empty()) reader.fail("target", usage);
  for (const auto& item : j.items()) {
    const std::string field = "target." + item.key();
    check_name(item.key(), field);
    TargetRule rule{item.key(), reader.expression(item.value(), field)};
    // A binary serves every shape, so what it is compiled for cannot depend on one.
    for (const auto& name : spec.shape_names) {
      if (rule.when.uses(name)) reader.fail(field, "may use parameter names only, not the shape's " + name);
    }
    spec.targets.push_back(std::move(rule));
  }
}

}  // namespace detail
}  // namespace cutune
