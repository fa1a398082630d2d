// A spec's "verify" section: what outputs are compared with, each output's own tolerance and the part of it compared.
#include <algorithm>

#include "cutune/error.hpp"
#include "spec_reader.hpp"

namespace cutune {
namespace {

constexpr std::pair<VerifyMode, std::string_view> kModeNames[] = {
    {VerifyMode::Reference, "reference"}, {VerifyMode::Default, "default"}, {VerifyMode::None, "none"}};

const OutputCheckRule* rule_of(const KernelSpec& spec, std::string_view output) {
  const auto it = std::find_if(spec.verify.outputs.begin(), spec.verify.outputs.end(),
                               [&](const OutputCheckRule& r) { return r.output == output; });
  return it == spec.verify.outputs.end() ? nullptr : &*it;
}

// Reads the section; every error names the field through `reader`.
class VerifyReader {
 public:
  VerifyReader(const detail::FieldReader& reader, const KernelSpec& spec) : reader_(reader), spec_(spec) {}

  VerifyRule read(const detail::Json& j) const {
    if (!j.is_object()) reader_.fail("verify", "must be an object with \"mode\" and/or \"outputs\"");
    reader_.check_keys(j, "verify", {"mode", "outputs"});
    VerifyRule rule;
    if (j.contains("mode")) {
      const detail::Json& mode = j["mode"];
      rule.mode = mode.is_string() ? parse_verify_mode(mode.get<std::string>()) : std::nullopt;
      if (!rule.mode) reader_.fail("verify.mode", "must be " + std::string(kVerifyModeNames) + ", not " + mode.dump());
    }
    if (j.contains("outputs")) {
      const detail::Json& outputs = j["outputs"];
      if (!outputs.is_object()) {
        reader_.fail("verify.outputs", "must be an object of output name: {atol, rtol, region}");
      }
      for (const auto& item : outputs.items()) rule.outputs.push_back(output(item.key(), item.value()));
    }
    return rule;
  }

 private:
  OutputCheckRule output(const std::string& name, const detail::Json& j) const {
    const std::string field = "verify.outputs." + name;
    const auto arg = std::find_if(spec_.arguments.begin(), spec_.arguments.end(),
                                  [&](const Argument& a) { return a.name == name; });
    if (arg == spec_.arguments.end() || !arg->is_buffer || !arg->output) {
      std::string names;
      for (const Argument& a : spec_.arguments)
        if (a.is_buffer && a.output) names += (names.empty() ? "" : ", ") + a.name;
      reader_.fail(field, "'" + name + "' is not an output buffer (outputs: " + names + ")");
    }
    if (!j.is_object()) reader_.fail(field, "must be an object with atol, rtol and/or region");
    reader_.check_keys(j, field, {"atol", "rtol", "region"});
    OutputCheckRule rule;
    rule.output = name;
    if (j.contains("atol")) rule.atol = bound(j["atol"], field + ".atol");
    if (j.contains("rtol")) rule.rtol = bound(j["rtol"], field + ".rtol");
    if (j.contains("region")) rule.region = region(j["region"], field + ".region");
    return rule;
  }

  // An expression over the shape's names only: verification is the same for every configuration.
  Expr shape_expression(const detail::Json& j, const std::string& field) const {
    Expr e = reader_.expression(j, field);
    for (const Parameter& p : spec_.parameters) {
      if (e.uses(p.name)) reader_.fail(field, "may use shape names only, not the parameter " + p.name);
    }
    return e;
  }

  Expr bound(const detail::Json& j, const std::string& field) const {
    if (j.is_number() && !(j.get<double>() >= 0.0)) reader_.fail(field, "must be a number >= 0");
    return shape_expression(j, field);
  }

  std::vector<Expr> list(const detail::Json& j, const std::string& field, std::size_t size) const {
    if (!j.is_array() || j.size() != size) {
      reader_.fail(field, "must be a list of " + std::to_string(size) + " expressions, one per extent");
    }
    std::vector<Expr> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      out.push_back(shape_expression(j[i], field + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  RegionRule region(const detail::Json& j, const std::string& field) const {
    if (!j.is_object()) {
      reader_.fail(field, "must be an object with \"extents\" and \"margin\", or \"extents\", \"begin\" and \"end\"");
    }
    reader_.check_keys(j, field, {"extents", "margin", "begin", "end"});
    if (!j.contains("extents")) reader_.fail(field + ".extents", "missing");
    const detail::Json& extents = j["extents"];
    if (!extents.is_array() || extents.empty() || extents.size() > 3) {
      reader_.fail(field + ".extents", "must be a list of 1 to 3 expressions, innermost first");
    }
    RegionRule rule;
    rule.extents = list(extents, field + ".extents", extents.size());
    const std::size_t rank = rule.extents.size();
    if (j.contains("margin")) {
      if (j.contains("begin") || j.contains("end")) {
        reader_.fail(field, "give \"margin\" or \"begin\" and \"end\", not both");
      }
      rule.margin = true;
      const detail::Json& margin = j["margin"];
      if (margin.is_array()) {
        rule.begin = list(margin, field + ".margin", rank);
      } else {
        rule.begin.assign(rank, shape_expression(margin, field + ".margin"));
      }
      rule.end = rule.begin;
    } else {
      if (!j.contains("begin") || !j.contains("end")) {
        reader_.fail(field, "needs \"margin\", or both \"begin\" and \"end\"");
      }
      rule.begin = list(j["begin"], field + ".begin", rank);
      rule.end = list(j["end"], field + ".end", rank);
    }
    return rule;
  }

  const detail::FieldReader& reader_;
  const KernelSpec& spec_;
};

}  // namespace

std::string_view to_string(VerifyMode m) {
  for (const auto& [mode, name] : kModeNames)
    if (mode == m) return name;
  return "reference";
}

std::optional<VerifyMode> parse_verify_mode(std::string_view text) {
  for (const auto& [mode, name] : kModeNames)
    if (name == text) return mode;
  return std::nullopt;
}

std::string Region::coordinates(std::uint64_t index) const {
  std::string out = "[";
  for (int d = 0; d < rank; ++d) {
    const auto extent = static_cast<std::uint64_t>(extents[static_cast<std::size_t>(d)]);
    out += (d ? ", " : "") + std::to_string(index % extent);
    index /= extent;
  }
  return out + "]";
}

Tolerance KernelSpec::tolerance_at(const Shape& shape, std::string_view output) const {
  const OutputCheckRule* rule = rule_of(*this, output);
  if (rule == nullptr || (!rule->atol && !rule->rtol)) return tolerance_at(shape);
  const std::vector<Value> values = scope(default_config(), &shape);
  Tolerance t{(rule->atol ? *rule->atol : tolerance.atol).eval(values).as_double(),
              (rule->rtol ? *rule->rtol : tolerance.rtol).eval(values).as_double()};
  if (!(t.atol >= 0.0) || !(t.rtol >= 0.0)) {
    throw InputError("spec " + name + ": the tolerance of " + std::string(output) + " at shape " + shape.str() +
                     " is negative (atol " + std::to_string(t.atol) + ", rtol " + std::to_string(t.rtol) + ")");
  }
  return t;
}

std::optional<Region> KernelSpec::region_at(const Shape& shape, std::string_view output, std::int64_t count) const {
  const OutputCheckRule* rule = rule_of(*this, output);
  if (rule == nullptr || !rule->region) return std::nullopt;
  const RegionRule& r = *rule->region;
  const std::vector<Value> values = scope(default_config(), &shape);
  const std::string where =
      "spec " + name + ": the verify region of " + std::string(output) + " at shape " + shape.str();
  Region region;
  region.rank = static_cast<int>(r.extents.size());
  std::int64_t product = 1;
  for (std::size_t d = 0; d < r.extents.size(); ++d) {
    region.extents[d] = r.extents[d].eval(values).as_int();
    if (region.extents[d] <= 0) {
      throw InputError(where + ": extent " + std::to_string(d) + " is " + std::to_string(region.extents[d]));
    }
    product *= region.extents[d];
  }
  if (product != count) {
    throw InputError(where + ": the extents multiply to " + std::to_string(product) + ", but " + std::string(output) +
                     " has " + std::to_string(count) + " elements");
  }
  for (std::size_t d = 0; d < r.extents.size(); ++d) {
    const std::int64_t extent = region.extents[d];
    const std::int64_t begin = r.begin[d].eval(values).as_int();
    const std::int64_t end = r.margin ? extent - r.end[d].eval(values).as_int() : r.end[d].eval(values).as_int();
    if (begin < 0 || end > extent || begin >= end) {
      throw InputError(where + ": dimension " + std::to_string(d) + " of extent " + std::to_string(extent) +
                       " would compare indices " + std::to_string(begin) + " to " + std::to_string(end - 1) +
                       ", which hold no element of the array");
    }
    region.begin[d] = begin;
    region.end[d] = end;
  }
  return region;
}

void check_verification(const KernelSpec& spec, const Shape& shape, VerifyMode mode) {
  const std::vector<Value> values = spec.scope(spec.default_config(), &shape);
  bool has_output = false;
  for (const Argument& a : spec.arguments) {
    if (!a.is_buffer || !a.output) continue;
    has_output = true;
    spec.tolerance_at(shape, a.name);
    spec.region_at(shape, a.name, a.size.eval(values).as_int());
  }
  if (!has_output && mode != VerifyMode::None) {
    throw InputError("spec " + spec.name + " has no output buffer to compare with a reference: tune it with "
                     "--verify none");
  }
}

VerifyMode KernelSpec::verify_mode(std::optional<VerifyMode> asked) const {
  if (asked) return *asked;
  return verify.mode.value_or(VerifyMode::Reference);
}

namespace detail {

bool compares_nothing(const Json* root) {
  if (root == nullptr || !root->is_object() || !root->contains("verify")) return false;
  const Json& verify = (*root)["verify"];
  return verify.is_object() && verify.contains("mode") && verify["mode"] == "none";
}

void read_verify(const Json& section, const FieldReader& reader, KernelSpec& spec) {
  spec.verify = VerifyReader(reader, spec).read(section);
}

}  // namespace detail
}  // namespace cutune
