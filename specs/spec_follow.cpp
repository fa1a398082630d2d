// The command line's --follow: parameters that change what is computed, named by the user, added to the spec's
// "reference"."follow" so that each configuration is verified against the reference configuration at its own values.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "cutune/error.hpp"
#include "cutune/spec_follow.hpp"
#include "spec_reader.hpp"

namespace cutune {
namespace {

std::string parameter_list(const KernelSpec& spec) {
  std::string out;
  for (const Parameter& p : spec.parameters) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

std::size_t parameter_index(const KernelSpec& spec, const std::string& name) {
  const auto p = std::find_if(spec.parameters.begin(), spec.parameters.end(),
                              [&](const Parameter& q) { return q.name == name; });
  if (p == spec.parameters.end()) {
    throw InputError("--follow '" + name + "': " + spec.name + " has no such parameter (its parameters: " +
                     parameter_list(spec) + ")");
  }
  return static_cast<std::size_t>(p - spec.parameters.begin());
}

}  // namespace

KernelSpec follow_parameters(const KernelSpec& spec, const std::vector<std::string>& names) {
  std::vector<std::string> added;
  for (const std::string& name : names) {
    const std::size_t index = parameter_index(spec, name);
    const bool followed = std::find(spec.reference_follow.begin(), spec.reference_follow.end(), index) !=
                          spec.reference_follow.end();
    if (!followed && std::find(added.begin(), added.end(), name) == added.end()) added.push_back(name);
  }
  if (added.empty()) return spec;  // nothing new: the same spec, and the same version
  if (!spec.reference_config) {
    throw InputError("--follow " + added.front() + ": " + spec.name + "'s reference is the kernel '" +
                     spec.reference_kernel + "', which computes one output for every configuration; --follow needs a " +
                     "reference configuration (\"reference\": {\"configuration\": ...})");
  }
  detail::Json root = detail::Json::parse(spec.json);
  detail::Json& follow = root["reference"]["follow"];
  if (!follow.is_array()) follow = detail::Json::array();
  for (const std::string& name : added) follow.push_back(name);
  // The spec as if it named them itself: its text changes, so does its version (what is verified is not the same).
  return KernelSpec::from_json(root.dump(1), spec.source, spec.source_name, spec.folder);
}

}  // namespace cutune
