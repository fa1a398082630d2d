// A spec that extends another: {"extends": "gemm_fp8.json", "name": ..., ...} is that spec with the named fields
// replaced (objects merged field by field, null removing one), as RFC 7386's JSON merge patch does; its "arguments"
// may also be an object keyed by argument name, each entry merged into the base's argument of that name.
#include <algorithm>
#include <string>
#include <vector>

#include "cutune/error.hpp"
#include "spec_reader.hpp"

namespace cutune::detail {
namespace {

constexpr std::size_t kMostBases = 8;  // a chain of specs extending specs, each one naming the next

std::string chain_text(const std::vector<std::string>& chain) {
  std::string out;
  for (const auto& name : chain) out += (out.empty() ? "" : " -> ") + name;
  return out;
}

std::string argument_names(const Json& arguments) {
  std::string out;
  for (const auto& a : arguments) {
    const bool named = a.is_object() && a.contains("name") && a["name"].is_string();
    out += (out.empty() ? "" : ", ") + (named ? a["name"].get<std::string>() : std::string("(unnamed)"));
  }
  return out;
}

// Merges {"A": {...}, "bias": null} into the base's list of arguments: each entry into the argument of its name, in
// the base's order; null removes the argument.
void patch_arguments(Json& arguments, const Json& patch, const std::string& base_name) {
  const std::string where = "spec: extends: arguments: ";
  if (!arguments.is_array()) {
    throw SpecError(where + "an object of patches by name needs a list of arguments in '" + base_name + "'");
  }
  for (const auto& item : patch.items()) {
    const std::string& name = item.key();  // a plain name: lambdas may not capture structured bindings before C++20
    const Json& change = item.value();
    const auto named = std::find_if(arguments.begin(), arguments.end(), [&](const Json& a) {
      return a.is_object() && a.contains("name") && a["name"] == name;
    });
    if (named == arguments.end()) {
      throw SpecError(where + "'" + name + "' is not an argument of '" + base_name + "' (its arguments: " +
                      argument_names(arguments) + ")");
    }
    if (change.is_null()) {
      arguments.erase(named);
    } else if (!change.is_object()) {
      throw SpecError(where + "'" + name + "': must be an object of the fields to change, or null, not " + change.dump());
    } else {
      named->merge_patch(change);
    }
  }
}

Json expanded(Json spec, const std::function<std::string(const std::string&)>& read, std::vector<std::string>& chain) {
  if (!spec.contains("extends")) return spec;
  const Json& named = spec["extends"];
  if (!named.is_string() || named.get<std::string>().empty()) {
    throw SpecError("spec: extends: must name the spec file it extends, such as \"gemm_fp8.json\", not " + named.dump());
  }
  const std::string name = named.get<std::string>();
  if (std::find(chain.begin(), chain.end(), name) != chain.end()) {
    chain.push_back(name);
    throw SpecError("spec: extends: the specs extend each other in a circle (" + chain_text(chain) + ")");
  }
  chain.push_back(name);
  if (chain.size() > kMostBases) {
    throw SpecError("spec: extends: more than " + std::to_string(kMostBases) + " specs in a chain (" +
                    chain_text(chain) + ")");
  }
  Json base = Json::parse(read(name), nullptr, false);
  if (base.is_discarded() || !base.is_object()) {
    throw SpecError("spec: extends: '" + name + "' is not a spec (a JSON object)");
  }
  Json merged = expanded(std::move(base), read, chain);
  spec.erase("extends");
  if (spec.contains("arguments") && spec["arguments"].is_object()) {
    patch_arguments(merged["arguments"], spec["arguments"], name);
    spec.erase("arguments");
  }
  merged.merge_patch(spec);
  return merged;
}

}  // namespace

std::string resolve_extends(std::string text, const std::function<std::string(const std::string&)>& read) {
  Json root = Json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object() || !root.contains("extends")) return text;
  std::vector<std::string> chain;
  return expanded(std::move(root), read, chain).dump(2);
}

}  // namespace cutune::detail
