// A spec's "defines": names passed to the compiler beside the parameters, whose values are expressions of the
// configuration and the shape (a kernel specialized for its shape reads the shape's extents as constants).
#include <algorithm>

#include "cutune/error.hpp"
#include "cutune/pipeline.hpp"
#include "spec_reader.hpp"

namespace cutune {
namespace {

bool names_a_dimension(const KernelSpec& spec, const Expr& e) {
  return std::any_of(spec.shape_names.begin(), spec.shape_names.end(), [&](const std::string& n) { return e.uses(n); });
}

bool reserved(const KernelSpec& spec, const std::string& name) {
  if (name == "CUTUNE" || name == "CUTUNE_REFERENCE") return true;
  return std::any_of(spec.parameters.begin(), spec.parameters.end(), [&](const Parameter& p) { return p.name == name; });
}

}  // namespace

namespace detail {

void read_defines(const Json& section, const FieldReader& reader, KernelSpec& spec) {
  const std::string usage = "must be an object {\"NAME\": EXPRESSION} or {\"NAME\": {\"value\": EXPRESSION, \"when\": "
                            "CONDITION}}";
  if (!section.is_object()) reader.fail("defines", usage);
  for (const auto& [name, entry] : section.items()) {
    const std::string field = "defines." + name;
    if (!is_identifier(name)) reader.fail(field, "must be a name like [A-Za-z_][A-Za-z0-9_]*");
    if (reserved(spec, name)) reader.fail(field, "is a parameter's or cutune's own name, defined already");
    DefineRule rule;
    rule.name = name;
    if (entry.is_object()) {
      reader.check_keys(entry, field, {"value", "when"});
      if (!entry.contains("value")) reader.fail(field + ".value", "missing");
      rule.value = reader.expression(entry["value"], field + ".value");
      if (entry.contains("when")) {
        rule.when = reader.expression(entry["when"], field + ".when");
        if (names_a_dimension(spec, rule.when)) {
          reader.fail(field + ".when", "may name parameters only: whether a configuration is specialized for its shape "
                                       "must not depend on the shape");
        }
      }
    } else if (entry.is_string() || entry.is_number()) {
      rule.value = reader.expression(entry, field);
    } else {
      reader.fail(field, usage);
    }
    rule.uses_shape = names_a_dimension(spec, rule.value);
    spec.define_rules.push_back(std::move(rule));
  }
}

}  // namespace detail

std::vector<std::string> KernelSpec::defines(const Config& config, const Shape* shape) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < parameters.size() && i < config.values.size(); ++i) {
    if (pipeline && std::count(pipeline->host_parameters.begin(), pipeline->host_parameters.end(), parameters[i].name)) {
      continue;  // a pipeline's chunk and stream counts never reach the kernel source
    }
    out.push_back("-D" + parameters[i].name + "=" + config.values[i].str());
  }
  if (define_rules.empty()) return out;
  const std::vector<Value> values = scope(config, shape);
  for (const DefineRule& rule : define_rules) {
    if (!rule.when.eval(values).truthy()) continue;
    if (rule.uses_shape && shape == nullptr) {
      throw InputError("define " + rule.name + " of " + name + " ('" + rule.value.text() + "') needs the shape: " +
                       format(config) + " is compiled for one shape");
    }
    try {
      out.push_back("-D" + rule.name + "=" + rule.value.eval(values).str());
    } catch (const SpecError& e) {
      throw InputError("define " + rule.name + " of " + name + " at " + (shape ? shape->str() : "no shape") + ": " +
                       e.what());
    }
  }
  return out;
}

bool KernelSpec::shape_specialized(const Config& config) const {
  if (std::none_of(define_rules.begin(), define_rules.end(), [](const DefineRule& r) { return r.uses_shape; })) {
    return false;
  }
  const std::vector<Value> values = scope(config, nullptr);
  return std::any_of(define_rules.begin(), define_rules.end(),
                     [&](const DefineRule& r) { return r.uses_shape && r.when.eval(values).truthy(); });
}

}  // namespace cutune
