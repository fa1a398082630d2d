// Internals of spec reading shared by the JSON reader and the KernelSpec methods.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "cutune/spec.hpp"

namespace cutune::detail {

using Json = nlohmann::ordered_json;

bool is_identifier(std::string_view s);
std::string_view trim(std::string_view s);
/// A whole-string decimal number: an integer when it has no '.', exponent, inf or nan.
std::optional<Value> parse_number(std::string_view s);

template <typename Range, typename Format>
std::string join(const Range& items, std::string_view separator, Format format) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += format(item);
  }
  return out;
}

/// Fills `spec` from a parsed spec document; throws SpecError naming the spec and the field.
void read_spec(const Json& root, KernelSpec& spec);
/// Reads a spec's "pipeline" section (pipeline_reader.cpp) into spec.pipeline, after everything else was read.
void read_pipeline(const Json& section, KernelSpec& spec);

}  // namespace cutune::detail
