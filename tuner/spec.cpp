// Reads kernel specs from JSON and turns configurations, shapes and launch geometry into text and numbers.
#include "cutune/spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cutune/error.hpp"

namespace cutune {
namespace detail {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kKeywords[] = {"and", "or", "not", "True", "False"};

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (const char ch : s) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  }
  return std::find(std::begin(kKeywords), std::end(kKeywords), s) == std::end(kKeywords);
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

template <typename Range, typename Format>
std::string join(const Range& items, std::string_view separator, Format format) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += format(item);
  }
  return out;
}

// A whole-string decimal number: an integer when it has no '.', exponent, inf or nan.
std::optional<Value> parse_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const char* last = s.data() + s.size();
  std::int64_t i = 0;
  if (auto r = std::from_chars(s.data(), last, i); r.ec == std::errc{} && r.ptr == last) return Value(i);
  double f = 0;
  if (auto r = std::from_chars(s.data(), last, f); r.ec == std::errc{} && r.ptr == last) return Value(f);
  return std::nullopt;
}

// Reads one spec; every error names the spec and the field.
class SpecReader {
 public:
  explicit SpecReader(KernelSpec& spec) : spec_(spec) {}

  void read(const Json& root) {
    if (!root.is_object()) fail("(top level)", "must be a JSON object");
    if (const Json* name = root.contains("name") ? &root["name"] : nullptr; name && name->is_string()) {
      prefix_ = "spec " + name->get<std::string>();
    }
    check_keys(root, "(top level)",
               {"name", "description", "source", "kernel", "shape", "parameters", "constraints", "block", "grid",
                "shared_memory", "arguments", "reference", "tolerance", "metric", "compile_options"});
    spec_.name = string_field(root, "name", "name");
    if (spec_.name.empty()) fail("name", "must not be empty");
    if (root.contains("description")) spec_.description = string_field(root, "description", "description");
    string_field(root, "source", "source");
    spec_.kernel = string_field(root, "kernel", "kernel");
    if (spec_.kernel.empty()) fail("kernel", "must not be empty");
    read_shape(required(root, "shape", "shape"));
    read_parameters(required(root, "parameters", "parameters"));
    scope_ = spec_.scope_names();

    if (root.contains("constraints")) {
      const Json& list = root["constraints"];
      if (!list.is_array()) fail("constraints", "must be a list of expressions");
      for (std::size_t i = 0; i < list.size(); ++i) {
        spec_.constraints.push_back(expression(list[i], "constraints[" + std::to_string(i) + "]"));
      }
    }
    spec_.launch = geometry(root, "");
    read_arguments(required(root, "arguments", "arguments"));

    const Json& reference = required(root, "reference", "reference");
    if (!reference.is_object()) {
      fail("reference", "must be an object with kernel, block and grid, or with configuration");
    }
    if (reference.contains("configuration")) {
      read_reference_configuration(reference);
    } else {
      check_keys(reference, "reference", {"kernel", "block", "grid", "shared_memory"});
      spec_.reference_kernel = string_field(reference, "kernel", "reference.kernel");
      if (spec_.reference_kernel.empty()) fail("reference.kernel", "must not be empty");
      spec_.reference_launch = geometry(reference, "reference.");
    }

    if (root.contains("tolerance")) read_tolerance(root["tolerance"]);
    read_metric(required(root, "metric", "metric"));
    if (root.contains("compile_options")) {
      const Json& list = root["compile_options"];
      if (!list.is_array()) fail("compile_options", "must be a list of strings");
      for (const auto& option : list) {
        if (!option.is_string()) fail("compile_options", "must be a list of strings");
        spec_.compile_options.push_back(option.get<std::string>());
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw SpecError(prefix_ + ": " + field + ": " + what);
  }

  const Json& required(const Json& object, const char* key, const std::string& field) const {
    if (!object.contains(key)) fail(field, "missing");
    return object[key];
  }

  void check_keys(const Json& object, const std::string& field, std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail(field, "unknown field '" + key +
                        "' (allowed: " + join(allowed, ", ", [](auto s) { return std::string(s); }) + ")");
      }
    }
  }

  std::string string_field(const Json& object, const char* key, const std::string& field) const {
    const Json& j = required(object, key, field);
    if (!j.is_string()) fail(field, "must be a string");
    return j.get<std::string>();
  }

  std::string identifier(const Json& j, const std::string& field) const {
    if (!j.is_string() || !is_identifier(j.get<std::string>()))
      fail(field, "must be a name like [A-Za-z_][A-Za-z0-9_]*");
    return j.get<std::string>();
  }

  std::optional<Value> number(const Json& j) const {
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max())
      return std::nullopt;
    if (j.is_number_integer()) return Value(j.get<std::int64_t>());
    if (j.is_number_float()) return Value(j.get<double>());
    return std::nullopt;
  }

  Expr expression(const Json& j, const std::string& field) const {
    try {
      Expr e;
      if (j.is_string()) {
        e = Expr::parse(j.get<std::string>());
      } else if (auto v = number(j)) {
        e = Expr::constant(*v);
      } else {
        fail(field, "must be an expression (a string or a number)");
      }
      e.bind(scope_);
      return e;
    } catch (const SpecError& error) {
      if (std::string_view(error.what()).starts_with(prefix_ + ": ")) throw;
      fail(field, error.what());
    }
  }

  void read_shape(const Json& list) {
    if (!list.is_array() || list.empty()) fail("shape", "must be a non-empty list of dimension names");
    for (const auto& j : list) {
      spec_.shape_names.push_back(identifier(j, "shape"));
      if (std::count(spec_.shape_names.begin(), spec_.shape_names.end(), spec_.shape_names.back()) > 1) {
        fail("shape", "'" + spec_.shape_names.back() + "' appears twice");
      }
    }
  }

  void read_parameters(const Json& object) {
    if (!object.is_object() || object.empty()) fail("parameters", "must be a non-empty object of name: values");
    for (const auto& [name, j] : object.items()) {
      const std::string field = "parameters." + name;
      if (!is_identifier(name)) fail(field, "the name must match [A-Za-z_][A-Za-z0-9_]*");
      if (std::find(spec_.shape_names.begin(), spec_.shape_names.end(), name) != spec_.shape_names.end()) {
        fail(field, "'" + name + "' is both a parameter and a shape dimension");
      }
      Parameter p;
      p.name = name;
      const Json* values = &j;
      if (j.is_object()) {
        check_keys(j, field, {"values", "default", "description"});
        values = &required(j, "values", field + ".values");
        if (j.contains("description")) p.description = string_field(j, "description", field + ".description");
      }
      if (!values->is_array() || values->empty()) fail(field, "values must be a non-empty list of numbers");
      for (const auto& v : *values) {
        const auto value = number(v);
        if (!value) fail(field, "values must be numbers");
        if (std::find(p.values.begin(), p.values.end(), *value) != p.values.end()) {
          fail(field, "value " + value->str() + " appears twice");
        }
        p.values.push_back(*value);
      }
      p.default_value = p.values.front();
      if (j.is_object() && j.contains("default")) {
        const auto value = number(j["default"]);
        const auto it = value ? std::find(p.values.begin(), p.values.end(), *value) : p.values.end();
        if (it == p.values.end()) fail(field + ".default", "must be one of the values");
        p.default_value = *it;
      }
      spec_.parameters.push_back(std::move(p));
    }
  }

  std::array<Expr, 3> dimensions(const Json& j, const std::string& field) const {
    if (!j.is_array() || j.empty() || j.size() > 3) fail(field, "must be a list of 1 to 3 expressions");
    std::array<Expr, 3> dims{Expr::constant(1), Expr::constant(1), Expr::constant(1)};
    for (auto& d : dims) d.bind(scope_);
    for (std::size_t i = 0; i < j.size(); ++i) dims[i] = expression(j[i], field + "[" + std::to_string(i) + "]");
    return dims;
  }

  Geometry geometry(const Json& object, const std::string& prefix) const {
    Geometry g;
    g.block = dimensions(required(object, "block", prefix + "block"), prefix + "block");
    g.grid = dimensions(required(object, "grid", prefix + "grid"), prefix + "grid");
    if (object.contains("shared_memory"))
      g.shared_memory = expression(object["shared_memory"], prefix + "shared_memory");
    g.shared_memory.bind(scope_);
    return g;
  }

  void read_argument_type(Argument& a, const Json& j, const std::string& field, bool& is_const) const {
    static constexpr std::pair<std::string_view, ElementType> kTypes[] = {
        {"float", ElementType::Float32},   {"double", ElementType::Float64}, {"int", ElementType::Int32},
        {"int32", ElementType::Int32},     {"int64", ElementType::Int64},    {"long long", ElementType::Int64},
        {"unsigned", ElementType::UInt32}, {"uint32", ElementType::UInt32}};
    if (!j.is_string()) fail(field, "must be a string such as \"const float*\" or \"int\"");
    const std::string text = j.get<std::string>();
    std::string_view rest = trim(text);
    is_const = rest.starts_with("const ");
    if (is_const) rest = trim(rest.substr(6));
    a.is_buffer = rest.ends_with('*');
    if (a.is_buffer) rest = trim(rest.substr(0, rest.size() - 1));
    for (const auto& [name, type] : kTypes) {
      // "long long" is the only scalar-only spelling; buffers use int64*.
      if (name == rest && !(a.is_buffer && name == "long long") && (a.is_buffer || !is_const)) {
        a.type = type;
        return;
      }
    }
    fail(field, "unknown type '" + text +
                    "' (buffers: [const] float*, double*, int*, int32*, int64*, unsigned*, uint32*; "
                    "scalars: int, int32, int64, long long, unsigned, uint32, float, double)");
  }

  void read_arguments(const Json& list) {
    if (!list.is_array()) fail("arguments", "must be a list of objects");
    bool has_output = false;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Json& j = list[i];
      std::string field = "arguments[" + std::to_string(i) + "]";
      if (!j.is_object()) fail(field, "must be an object with name and type");
      Argument a;
      a.name = identifier(required(j, "name", field + ".name"), field + ".name");
      for (const auto& other : spec_.arguments) {
        if (other.name == a.name) fail(field + ".name", "'" + a.name + "' appears twice");
      }
      field = "arguments." + a.name;
      bool is_const = false;
      read_argument_type(a, required(j, "type", field + ".type"), field + ".type", is_const);
      if (a.is_buffer) {
        check_keys(j, field, {"name", "type", "size", "fill", "output"});
        a.size = expression(required(j, "size", field + ".size"), field + ".size");
        if (j.contains("fill")) {
          static constexpr std::pair<std::string_view, Fill> kFills[] = {
              {"random", Fill::Random}, {"zero", Fill::Zero}, {"one", Fill::One}, {"poison", Fill::Poison}};
          const Json& fill = j["fill"];
          const auto it = std::find_if(std::begin(kFills), std::end(kFills), [&](const auto& f) {
            return fill.is_string() && fill.get<std::string>() == f.first;
          });
          if (it == std::end(kFills)) fail(field + ".fill", "must be \"random\", \"zero\", \"one\" or \"poison\"");
          a.fill = it->second;
        }
        if (j.contains("output")) {
          if (!j["output"].is_boolean()) fail(field + ".output", "must be true or false");
          a.output = j["output"].get<bool>();
          if (a.output && is_const) fail(field + ".output", "a const buffer cannot be an output");
          // A pure output starts poisoned, so that elements the kernel never writes fail verification.
          if (a.output && !j.contains("fill")) a.fill = Fill::Poison;
        }
        has_output = has_output || a.output;
      } else {
        check_keys(j, field, {"name", "type", "value"});
        a.value = expression(required(j, "value", field + ".value"), field + ".value");
      }
      spec_.arguments.push_back(std::move(a));
    }
    if (!has_output) fail("arguments", "no buffer has \"output\": true, so nothing could be verified");
  }

  // The spec's own kernel at a configuration is the reference: for kernels (T1 problems among them) that come
  // without a separate reference kernel.
  void read_reference_configuration(const Json& reference) {
    check_keys(reference, "reference", {"configuration"});
    const Json& j = reference["configuration"];
    if (!j.is_object()) fail("reference.configuration", "must be an object of parameter name: value");
    Config config = spec_.default_config();
    for (const auto& [name, v] : j.items()) {
      const std::string field = "reference.configuration." + name;
      const auto p = std::find_if(spec_.parameters.begin(), spec_.parameters.end(),
                                  [&](const Parameter& q) { return q.name == name; });
      if (p == spec_.parameters.end()) fail(field, "'" + name + "' is not a parameter");
      const auto value = number(v);
      const auto it = value ? std::find(p->values.begin(), p->values.end(), *value) : p->values.end();
      if (it == p->values.end()) {
        fail(field, "must be one of the values of " + name + " (" +
                        join(p->values, ", ", [](const Value& x) { return x.str(); }) + ")");
      }
      config.values[static_cast<std::size_t>(p - spec_.parameters.begin())] = *it;
    }
    // Constraints that need a shape are checked when tuning a shape; the others can be checked now.
    const std::vector<Value> scope = spec_.scope(config, nullptr);
    for (const Expr& c : spec_.constraints) {
      const bool shape_free = std::none_of(spec_.shape_names.begin(), spec_.shape_names.end(),
                                           [&](const std::string& n) { return c.uses(n); });
      if (shape_free && !c.eval(scope).truthy()) {
        fail("reference.configuration", spec_.format(config) + " violates constraint '" + c.text() + "'");
      }
    }
    spec_.reference_config = config;
    spec_.reference_launch = spec_.launch;
  }

  void read_tolerance(const Json& j) {
    if (!j.is_object()) fail("tolerance", "must be an object with atol and rtol");
    check_keys(j, "tolerance", {"atol", "rtol"});
    for (const char* key : {"atol", "rtol"}) {
      if (!j.contains(key)) continue;
      const auto v = number(j[key]);
      if (!v || !(v->as_double() >= 0.0)) fail(std::string("tolerance.") + key, "must be a number >= 0");
      (std::string_view(key) == "atol" ? spec_.tolerance.atol : spec_.tolerance.rtol) = v->as_double();
    }
  }

  void read_metric(const Json& j) {
    if (!j.is_object() || j.size() != 1 || !(j.contains("bytes") || j.contains("flops"))) {
      fail("metric", "must be {\"bytes\": EXPR} or {\"flops\": EXPR}");
    }
    spec_.metric.kind = j.contains("bytes") ? Metric::Kind::Bytes : Metric::Kind::Flops;
    const char* key = j.contains("bytes") ? "bytes" : "flops";
    spec_.metric.amount = expression(j[key], std::string("metric.") + key);
  }

  KernelSpec& spec_;
  std::string prefix_ = "spec";
  std::vector<std::string> scope_;
};

std::string read_file(const std::filesystem::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError("cannot read " + what + " '" + path.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SpecError("cannot read " + what + " '" + path.string() + "'");
  return text.str();
}

}  // namespace
}  // namespace detail

std::string Shape::str() const {
  return detail::join(dims, "x", [](std::int64_t d) { return std::to_string(d); });
}

std::size_t element_size(ElementType t) {
  switch (t) {
    case ElementType::Float64:
    case ElementType::Int64:
      return 8;
    default:
      return 4;
  }
}

std::string_view to_string(ElementType t) {
  switch (t) {
    case ElementType::Float32:
      return "float32";
    case ElementType::Float64:
      return "float64";
    case ElementType::Int32:
      return "int32";
    case ElementType::Int64:
      return "int64";
    case ElementType::UInt32:
      return "uint32";
  }
  return "unknown";
}

std::string hash_hex(std::string_view text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 1099511628211ULL;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

KernelSpec KernelSpec::from_json(std::string_view spec_text, std::string source, std::string source_name) {
  KernelSpec spec;
  detail::Json root;
  try {
    root = detail::Json::parse(spec_text);
  } catch (const detail::Json::exception& e) {
    throw SpecError(std::string("spec: invalid JSON: ") + e.what());
  }
  detail::SpecReader(spec).read(root);
  spec.hash = hash_hex(std::string(spec_text) + "\n" + source);
  spec.json = std::string(spec_text);
  spec.source = std::move(source);
  spec.source_name = std::move(source_name);
  return spec;
}

KernelSpec KernelSpec::load(const std::filesystem::path& spec_file) {
  const std::string text = detail::read_file(spec_file, "spec file");
  // The source's name is inside the spec; a spec too broken to name it gets from_json's own message.
  const auto root = detail::Json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object() || !root.contains("source") || !root["source"].is_string()) {
    return from_json(text, "", "");
  }
  const std::string source_name = root["source"].get<std::string>();
  const std::string source = detail::read_file(spec_file.parent_path() / source_name, "kernel source");
  return from_json(text, source, source_name);
}

std::vector<std::string> KernelSpec::scope_names() const {
  std::vector<std::string> names;
  for (const auto& p : parameters) names.push_back(p.name);
  names.insert(names.end(), shape_names.begin(), shape_names.end());
  return names;
}

std::vector<Value> KernelSpec::scope(const Config& config, const Shape* shape) const {
  if (config.values.size() != parameters.size()) {
    throw InputError("a configuration of " + name + " needs " + std::to_string(parameters.size()) + " values, got " +
                     std::to_string(config.values.size()));
  }
  if (shape != nullptr && shape->dims.size() != shape_names.size()) {
    throw InputError("shape " + shape->str() + " does not have the " + std::to_string(shape_names.size()) +
                     " dimensions of " + name);
  }
  std::vector<Value> values = config.values;
  for (std::size_t i = 0; i < shape_names.size(); ++i) values.emplace_back(shape ? shape->dims[i] : std::int64_t{0});
  return values;
}

Config KernelSpec::default_config() const {
  Config config;
  for (const auto& p : parameters) config.values.push_back(p.default_value);
  return config;
}

std::string KernelSpec::format(const Config& config) const {
  std::string out;
  for (std::size_t i = 0; i < parameters.size() && i < config.values.size(); ++i) {
    if (i > 0) out += ',';
    out += parameters[i].name + "=" + config.values[i].str();
  }
  return out;
}

Config KernelSpec::parse_config(std::string_view text) const {
  const std::string quoted = std::string("'").append(text).append("'");
  std::vector<std::optional<Value>> values(parameters.size());
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = std::min(text.find(',', start), text.size());
    const auto item = detail::trim(text.substr(start, comma - start));
    start = comma + 1;
    const auto equals = item.find('=');
    if (equals == std::string_view::npos) {
      throw InputError("invalid configuration " + quoted + ": expected NAME=VALUE, got '" + std::string(item) + "'");
    }
    const auto key = detail::trim(item.substr(0, equals));
    const auto it =
        std::find_if(parameters.begin(), parameters.end(), [&](const Parameter& p) { return p.name == key; });
    if (it == parameters.end()) {
      throw InputError("unknown parameter '" + std::string(key) + "' in configuration " + quoted + " (parameters of " +
                       name + ": " + detail::join(parameters, ", ", [](const Parameter& p) { return p.name; }) + ")");
    }
    auto& slot = values[static_cast<std::size_t>(it - parameters.begin())];
    if (slot) throw InputError("parameter " + it->name + " appears twice in configuration " + quoted);
    const auto value_text = detail::trim(item.substr(equals + 1));
    const auto value = detail::parse_number(value_text);
    const auto match = value ? std::find(it->values.begin(), it->values.end(), *value) : it->values.end();
    if (match == it->values.end()) {
      throw InputError("invalid value '" + std::string(value_text) + "' for " + it->name + " in configuration " +
                       quoted + ": expected one of " +
                       detail::join(it->values, ", ", [](const Value& v) { return v.str(); }));
    }
    slot = *match;
  }
  Config config;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (!values[i]) throw InputError("configuration " + quoted + " misses parameter " + parameters[i].name);
    config.values.push_back(*values[i]);
  }
  return config;
}

Shape KernelSpec::parse_shape(std::string_view text) const {
  const bool short_names =
      std::all_of(shape_names.begin(), shape_names.end(), [](const auto& n) { return n.size() == 1; });
  auto fail = [&]() {
    const std::string expected = detail::join(shape_names, short_names ? "x" : " x ", [](const auto& n) { return n; });
    throw InputError("invalid shape '" + std::string(text) + "': expected " + expected + " with positive integer" +
                     (shape_names.size() > 1 ? "s" : ""));
  };
  Shape shape;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find('x', start), text.size());
    const auto piece = text.substr(start, end - start);
    start = end + 1;
    std::int64_t d = 0;
    const char* last = piece.data() + piece.size();
    const auto r = std::from_chars(piece.data(), last, d);
    if (piece.empty() || piece[0] == '-' || r.ec != std::errc{} || r.ptr != last || d <= 0) fail();
    shape.dims.push_back(d);
  }
  if (shape.dims.size() != shape_names.size()) fail();
  return shape;
}

std::vector<std::string> KernelSpec::defines(const Config& config) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < parameters.size() && i < config.values.size(); ++i) {
    out.push_back("-D" + parameters[i].name + "=" + config.values[i].str());
  }
  return out;
}

Launch KernelSpec::resolve(const Geometry& geometry, const Config& config, const Shape& shape) const {
  const auto values = scope(config, &shape);
  auto integer = [&](const Expr& e, const char* field) {
    const Value v = e.eval(values);
    try {
      return v.as_int();
    } catch (const SpecError&) {
      throw SpecError("spec " + name + ": " + field + " '" + e.text() + "' is " + v.str() + " at " + format(config) +
                      ", not an integer");
    }
  };
  static constexpr const char* kBlock[] = {"block[0]", "block[1]", "block[2]"};
  static constexpr const char* kGrid[] = {"grid[0]", "grid[1]", "grid[2]"};
  Launch launch;
  for (std::size_t i = 0; i < 3; ++i) {
    launch.block[i] = integer(geometry.block[i], kBlock[i]);
    launch.grid[i] = integer(geometry.grid[i], kGrid[i]);
  }
  launch.shared_memory = integer(geometry.shared_memory, "shared_memory");
  return launch;
}

double KernelSpec::metric_amount(const Shape& shape) const {
  return metric.amount.eval(scope(default_config(), &shape)).as_double();
}

}  // namespace cutune
