// Reads a buffer's "fill" and an output's "expected": cutune's named fills, a constant, a range, a generator
// expression of the element index, or a file of raw elements.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>

#include "cutune/error.hpp"
#include "spec_reader.hpp"

namespace cutune::detail {
namespace {

std::optional<double> finite_number(const Json& j) {
  if (!j.is_number()) return std::nullopt;
  const double v = j.get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// A constant as a Value: integers stay exact (int64 and uint64 buffers hold more digits than a double).
std::optional<Value> constant_value(const Json& j) {
  if (j.is_boolean()) return Value(j.get<bool>() ? 1 : 0);
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    return Value(static_cast<std::int64_t>(j.get<std::uint64_t>()));  // uint64 bit pattern, as scalar_bytes writes it
  }
  if (j.is_number_integer()) return Value(j.get<std::int64_t>());
  if (auto v = finite_number(j)) return Value(*v);
  return std::nullopt;
}

// [a, b] of two finite numbers.
std::pair<double, double> pair_of(const Json& j, const std::string& field, const FieldReader& reader,
                                  const char* what) {
  if (!j.is_array() || j.size() != 2 || !finite_number(j[0]) || !finite_number(j[1])) {
    reader.fail(field, std::string("must be a list of two numbers, ") + what);
  }
  return {j[0].get<double>(), j[1].get<double>()};
}

}  // namespace

FillRule read_fill(const Json& j, const std::string& field, ElementType type, const FieldReader& reader,
                   const std::vector<std::string>& shape_names) {
  static constexpr std::pair<std::string_view, Fill> kNamed[] = {
      {"random", Fill::Random}, {"zero", Fill::Zero}, {"one", Fill::One}, {"poison", Fill::Poison}};
  if (j.is_string()) {
    const auto it = std::find_if(std::begin(kNamed), std::end(kNamed),
                                 [&](const auto& f) { return j.get<std::string>() == f.first; });
    if (it == std::end(kNamed)) {
      reader.fail(field, "must be \"random\", \"zero\", \"one\", \"poison\", a number, or an object with one of "
                         "constant, uniform, normal, generator, file");
    }
    return FillRule(it->second);
  }
  FillRule rule;
  if (j.is_number() || j.is_boolean()) {
    const auto v = constant_value(j);
    if (!v) reader.fail(field, "must be a finite number");
    rule.kind = Fill::Constant;
    rule.constant = *v;
    return rule;
  }
  if (!j.is_object() || j.size() != 1) {
    reader.fail(field, "must be a name, a number, or an object with one of constant, uniform, normal, generator, file");
  }
  const std::string key = j.begin().key();
  const Json& v = j.begin().value();
  const std::string sub = field + "." + key;
  if (key == "constant") {
    const auto c = constant_value(v);
    if (!c) reader.fail(sub, "must be a finite number");
    rule.kind = Fill::Constant;
    rule.constant = *c;
  } else if (key == "uniform") {
    rule.kind = Fill::Uniform;
    std::tie(rule.low, rule.high) = pair_of(v, sub, reader, "[low, high]");
    if (rule.low > rule.high) reader.fail(sub, "low must not exceed high");
    if (is_integer(type) && (rule.low != std::trunc(rule.low) || rule.high != std::trunc(rule.high))) {
      reader.fail(sub, "an integer buffer's range must have integer ends");
    }
  } else if (key == "normal") {
    rule.kind = Fill::Normal;
    std::tie(rule.low, rule.high) = pair_of(v, sub, reader, "[mean, standard deviation]");
    if (rule.high < 0) reader.fail(sub, "the standard deviation must be >= 0");
  } else if (key == "generator") {
    rule.kind = Fill::Generator;
    if (!v.is_string() && !v.is_number()) reader.fail(sub, "must be an expression of i (a string)");
    std::vector<std::string> names{"i"};
    names.insert(names.end(), shape_names.begin(), shape_names.end());
    try {
      Expr e = v.is_string() ? Expr::parse(v.get<std::string>()) : Expr::constant(*constant_value(v));
      e.bind(names);
      rule.generator = std::move(e);
    } catch (const SpecError& e) {
      reader.fail(sub, std::string(e.what()) + " (a generator may use i, the element's index, and the shape's names)");
    }
  } else if (key == "file") {
    rule.kind = Fill::File;
    if (!v.is_string() || v.get<std::string>().empty()) reader.fail(sub, "must be a file name");
    rule.file = v.get<std::string>();
  } else {
    reader.fail(field, "unknown fill '" + key + "' (constant, uniform, normal, generator or file)");
  }
  return rule;
}

}  // namespace cutune::detail
