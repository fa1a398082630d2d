// Reads the parameters of a cuBLASLt configuration family: ALGO and the CUBLASLT_ALGO_CONFIG_* attributes, each value
// one cuBLASLt can be given (which of them an algorithm supports at a shape is the library's to say, when it runs).
#include <algorithm>
#include <limits>
#include <vector>

#include "cutune/library.hpp"
#include "spec_reader.hpp"

namespace cutune::detail {
namespace {

// The values an attribute may take: [low, high], and for SCHEME and SWIZZLE the few cuBLASLt defines.
struct AttributeRange {
  std::int64_t low = 0;
  std::int64_t high = std::numeric_limits<std::int32_t>::max();
  std::vector<std::int64_t> only;  // when not empty, the values allowed
  const char* what = "";
};

AttributeRange range_of(std::string_view name) {
  if (name == "SPLITK") {
    return {-1, std::numeric_limits<std::int32_t>::max(), {}, "-1 (the algorithm's own split) or whole numbers from 1 (no split)"};
  }
  if (name == "SCHEME") return {0, 4, {0, 1, 2, 4}, "0 (none), 1 (in place), 2 (compute type) or 4 (output type)"};
  if (name == "SWIZZLE") return {0, 1, {0, 1}, "0 or 1"};
  if (name == "CLUSTER") return {0, std::numeric_limits<std::uint16_t>::max(), {}, "cublasLtClusterShape_t numbers (0 automatic)"};
  if (name == "TILE") return {0, std::numeric_limits<std::int32_t>::max(), {}, "cublasLtMatmulTile_t numbers"};
  if (name == "STAGES") return {0, std::numeric_limits<std::int32_t>::max(), {}, "cublasLtMatmulStages_t numbers"};
  if (name == "CUSTOM") return {0, std::numeric_limits<std::int32_t>::max(), {}, "whole numbers from 0"};
  return {0, std::numeric_limits<std::int32_t>::max(), {}, "algorithm ids, whole numbers from 0"};  // ALGO
}

bool in_range(const Value& v, const AttributeRange& r) {
  if (v.is_float()) return false;
  const std::int64_t x = v.as_int();
  if (r.low == -1 && x == 0) return false;  // SPLITK: no zero parts
  if (!r.only.empty()) return std::find(r.only.begin(), r.only.end(), x) != r.only.end();
  return x >= r.low && x <= r.high;
}

std::string allowed_names() {
  std::string out(kLibraryAlgoName);
  for (std::string_view n : kLibraryAttributeNames) out += ", " + std::string(n);
  return out;
}

}  // namespace

bool has_algo_parameter(const KernelSpec& spec) {
  return std::any_of(spec.parameters.begin(), spec.parameters.end(),
                     [](const Parameter& p) { return p.name == kLibraryAlgoName; });
}

LibraryAlgoParameters read_algo_parameters(const FieldReader& reader, const KernelSpec& spec) {
  LibraryAlgoParameters out;
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
    const Parameter& parameter = spec.parameters[p];
    const auto named = std::find(std::begin(kLibraryAttributeNames), std::end(kLibraryAttributeNames), parameter.name);
    if (parameter.name == kLibraryAlgoName) {
      out.algo = p;
    } else if (named != std::end(kLibraryAttributeNames)) {
      out.attributes[static_cast<std::size_t>(named - std::begin(kLibraryAttributeNames))] = p;
    } else {
      reader.fail("parameters." + parameter.name,
                  "a cublasLt configuration family's parameters are among " + allowed_names() +
                      (parameter.name == kLibraryRankName ? " (RANK picks a heuristic's answer: a family by rank has no ALGO)"
                                                           : ""));
    }
    const AttributeRange range = range_of(parameter.name);
    for (const Value& v : parameter.values) {
      if (!in_range(v, range)) reader.fail("parameters." + parameter.name, std::string("values must be ") + range.what);
    }
  }
  return out;
}

}  // namespace cutune::detail
