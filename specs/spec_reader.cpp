// Reads a kernel spec's JSON into a KernelSpec, naming the spec and the field in every error.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <sstream>
#include <unordered_set>

#include "cutune/error.hpp"
#include "spec_reader.hpp"

namespace cutune::detail {
namespace {

// Reads one spec; every error names the spec and the field.
class SpecReader final : public FieldReader {
 public:
  explicit SpecReader(KernelSpec& spec) : spec_(spec) {}

  void read(const Json& root) {
    root_ = &root;
    read_identity(root);
    read_shape(required(root, "shape", "shape"));
    read_parameters(required(root, "parameters", "parameters"));
    read_scope();
    if (root.contains("constraints")) read_constraints(root["constraints"]);
    spec_.launch = geometry(root, "");
    if (root.contains("cluster")) read_cluster(root["cluster"]);
    read_arguments(required(root, "arguments", "arguments"));
    if (root.contains("target")) read_targets(root["target"], *this, spec_);
    read_reference(required(root, "reference", "reference"));
    if (root.contains("tolerance")) read_tolerance(root["tolerance"]);
    if (root.contains("verify")) read_verify(root["verify"], *this, spec_);
    if (root.contains("metric")) {
      read_metric(root["metric"]);
    } else {
      spec_.metric.kind = Metric::Kind::Time;
    }
    if (root.contains("compile_options")) read_compile_options(root["compile_options"]);
    if (root.contains("defines")) read_defines(root["defines"], *this, spec_);
    if (root.contains("pipeline")) read_pipeline(root["pipeline"], spec_);
    if (root.contains("library")) read_library(root["library"], *this, spec_);
  }

 private:
  // The spec's name (which every later error names), description, source and kernel; the top level's keys.
  void read_identity(const Json& root) {
    if (!root.is_object()) fail("(top level)", "must be a JSON object");
    if (const Json* name = root.contains("name") ? &root["name"] : nullptr; name && name->is_string()) {
      prefix_ = "spec " + name->get<std::string>();
    }
    check_keys(root, "(top level)",
               {"name", "description", "source", "kernel", "shape", "parameters", "constraints", "block", "grid",
                "shared_memory", "cluster", "arguments", "reference", "tolerance", "metric", "compile_options",
                "defines", "target", "pipeline", "start", "measure", "verify", "library"});
    spec_.name = string_field(root, "name", "name");
    if (spec_.name.empty()) fail("name", "must not be empty");
    if (root.contains("description")) spec_.description = string_field(root, "description", "description");
    if (!root.contains("source")) fail("source", "missing");
    if (auto problem = source_problem(root["source"])) fail("source", *problem);
    if (root.contains("library") && !root.contains("kernel")) return;  // the library's call is the kernel
    spec_.kernel = string_field(root, "kernel", "kernel");
    if (spec_.kernel.empty()) fail("kernel", "must not be empty");
  }

  // The names expressions may use: parameters and shape dimensions, and in grids the GPU's multiprocessor count too.
  void read_scope() {
    scope_ = spec_.scope_names();
    if (std::find(scope_.begin(), scope_.end(), kSmCountName) != scope_.end()) {
      fail("parameters", std::string(kSmCountName) + " is the GPU's multiprocessor count in grid expressions, not a name "
                         "a parameter or shape dimension may take");
    }
    grid_scope_ = scope_;
    grid_scope_.emplace_back(kSmCountName);
  }

  void read_constraints(const Json& list) {
    if (!list.is_array()) fail("constraints", "must be a list of expressions");
    for (std::size_t i = 0; i < list.size(); ++i) {
      spec_.constraints.push_back(expression(list[i], "constraints[" + std::to_string(i) + "]"));
    }
  }

  void read_reference(const Json& reference) {
    if (!reference.is_object()) {
      fail("reference", "must be an object with kernel, block and grid, or with configuration");
    }
    if (reference.contains("configuration")) {
      read_reference_configuration(reference);
      return;
    }
    if (reference.contains("follow")) {
      fail("reference.follow", "needs a reference configuration: a reference kernel computes one output for every "
                               "configuration");
    }
    check_keys(reference, "reference", {"kernel", "block", "grid", "shared_memory"});
    spec_.reference_kernel = string_field(reference, "kernel", "reference.kernel");
    if (spec_.reference_kernel.empty()) fail("reference.kernel", "must not be empty");
    spec_.reference_launch = geometry(reference, "reference.");
  }

  void read_compile_options(const Json& list) {
    if (!list.is_array()) fail("compile_options", "must be a list of strings");
    for (const auto& option : list) {
      if (!option.is_string()) fail("compile_options", "must be a list of strings");
      spec_.compile_options.push_back(option.get<std::string>());
    }
  }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const override {
    throw SpecError(prefix_ + ": " + field + ": " + what);
  }

  const Json& required(const Json& object, const char* key, const std::string& field) const {
    if (!object.contains(key)) fail(field, "missing");
    return object[key];
  }

  void check_keys(const Json& object, const std::string& field,
                  std::initializer_list<std::string_view> allowed) const override {
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

  Expr expression(const Json& j, const std::string& field) const override { return expression_in(j, field, scope_); }

  // An expression bound to `names` (the grid's scope_ plus SM_COUNT, or scope_ itself).
  Expr expression_in(const Json& j, const std::string& field, const std::vector<std::string>& names) const {
    try {
      Expr e;
      if (j.is_string()) {
        e = Expr::parse(j.get<std::string>());
      } else if (auto v = number(j)) {
        e = Expr::constant(*v);
      } else {
        fail(field, "must be an expression (a string or a number)");
      }
      e.bind(names);
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
      std::unordered_set<Value> seen;  // a search of the list for each value took minutes for 10^5 values
      for (const auto& v : *values) {
        const auto value = number(v);
        if (!value) fail(field, "values must be numbers");
        if (!seen.insert(*value).second) fail(field, "value " + value->str() + " appears twice");
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
    return dimensions_in(j, field, scope_);
  }
  std::array<Expr, 3> dimensions_in(const Json& j, const std::string& field,
                                     const std::vector<std::string>& names) const {
    if (!j.is_array() || j.empty() || j.size() > 3) fail(field, "must be a list of 1 to 3 expressions");
    std::array<Expr, 3> dims{Expr::constant(1), Expr::constant(1), Expr::constant(1)};
    for (auto& d : dims) d.bind(names);
    for (std::size_t i = 0; i < j.size(); ++i) dims[i] = expression_in(j[i], field + "[" + std::to_string(i) + "]", names);
    return dims;
  }

  // Blocks per cluster depend on the configuration only: whether a GPU can launch it is known without a shape.
  void read_cluster(const Json& j) {
    spec_.launch.cluster = dimensions(j, "cluster");
    for (std::size_t i = 0; i < 3; ++i) {
      for (const auto& name : spec_.shape_names) {
        if (spec_.launch.cluster[i].uses(name)) {
          fail("cluster[" + std::to_string(i) + "]", "may use parameter names only, not the shape's " + name);
        }
      }
    }
  }

  Geometry geometry(const Json& object, const std::string& prefix) const {
    Geometry g;
    g.block = dimensions(required(object, "block", prefix + "block"), prefix + "block");
    g.grid = dimensions_in(required(object, "grid", prefix + "grid"), prefix + "grid", grid_scope_);
    if (object.contains("shared_memory"))
      g.shared_memory = expression(object["shared_memory"], prefix + "shared_memory");
    g.shared_memory.bind(scope_);
    return g;
  }

  void read_argument_type(Argument& a, const Json& j, const std::string& field, bool& is_const) const {
    static constexpr std::pair<std::string_view, ElementType> kTypes[] = {
        {"float", ElementType::Float32},   {"double", ElementType::Float64}, {"int", ElementType::Int32},
        {"int32", ElementType::Int32},     {"int64", ElementType::Int64},    {"long long", ElementType::Int64},
        {"unsigned", ElementType::UInt32}, {"uint32", ElementType::UInt32}, {"__nv_bfloat16", ElementType::BFloat16},
        {"__half", ElementType::Float16},  {"int8", ElementType::Int8},    {"signed char", ElementType::Int8},
        {"uint8", ElementType::UInt8},     {"unsigned char", ElementType::UInt8}, {"int16", ElementType::Int16},
        {"short", ElementType::Int16},     {"uint16", ElementType::UInt16}, {"unsigned short", ElementType::UInt16},
        {"uint64", ElementType::UInt64},   {"unsigned long long", ElementType::UInt64}, {"bool", ElementType::Bool},
        {"__nv_fp8_e4m3", ElementType::Float8E4M3}, {"__nv_fp8_e5m2", ElementType::Float8E5M2}};
    if (!j.is_string()) fail(field, "must be a string such as \"const float*\" or \"int\"");
    const std::string text = j.get<std::string>();
    std::string_view rest = trim(text);
    is_const = rest.starts_with("const ");
    if (is_const) rest = trim(rest.substr(6));
    a.is_buffer = rest.ends_with('*');
    if (a.is_buffer) rest = trim(rest.substr(0, rest.size() - 1));
    for (const auto& [name, type] : kTypes) {
      // "long long" is the only scalar-only spelling; buffers use int64*.
      if (name == rest && !(a.is_buffer && (name == "long long" || name == "unsigned long long")) &&
          (a.is_buffer || !is_const)) {
        a.type = type;
        return;
      }
    }
    fail(field, "unknown type '" + text +
                    "' (buffers: [const] T* of float, double, int, int32, int64, unsigned, uint32, int8, uint8, int16, "
                    "uint16, uint64, bool, __nv_bfloat16, __half, signed char, unsigned char, short, unsigned short; "
                    "scalars: the same T, long long, unsigned long long; CUtensorMap)");
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
      const Json& type = required(j, "type", field + ".type");
      if (type.is_string() && trim(type.get<std::string>()) == "CUtensorMap") {
        read_tensor_map(j, field, *this, spec_, a);
      } else if (read_argument_type(a, type, field + ".type", is_const); a.is_buffer || j.contains("memory")) {
        read_buffer(j, field, is_const, a);
        has_output = has_output || a.output;
      } else {
        check_keys(j, field, {"name", "type", "value"});
        a.value = expression(required(j, "value", field + ".value"), field + ".value");
      }
      spec_.arguments.push_back(std::move(a));
    }
    // A kernel tuned by time alone says so: its spec's "verify" compares nothing.
    if (!has_output && !compares_nothing(root_)) {
      fail("arguments", "no buffer has \"output\": true, so nothing could be verified (to tune by time alone, "
                        "without verification: \"verify\": {\"mode\": \"none\"})");
    }
    finish_tensor_maps(*this, spec_);
  }

  // A buffer in global memory, or an array in constant memory ("memory": "constant"): its size, fill, and whether it
  // is an output.
  void read_buffer(const Json& j, const std::string& field, bool is_const, Argument& a) {
    check_keys(j, field, {"name", "type", "size", "fill", "output", "expected", "memory", "symbol"});
    if (j.contains("memory")) {
      const Json& memory = j["memory"];
      if (memory == "constant") {
        a.is_buffer = true;  // "float" and "const float*" both name the element type
        a.parameter = false;
        a.symbol = a.name;
      } else if (memory != "global" || !a.is_buffer) {
        fail(field + ".memory", "must be \"global\" (a pointer type) or \"constant\" (a __constant__ array)");
      }
    }
    if (j.contains("symbol")) a.symbol = identifier(j["symbol"], field + ".symbol");
    a.size = expression(required(j, "size", field + ".size"), field + ".size");
    if (j.contains("fill")) a.fill = read_fill(j["fill"], field + ".fill", a.type, *this, spec_.shape_names);
    if (j.contains("output")) {
      if (!j["output"].is_boolean()) fail(field + ".output", "must be true or false");
      a.output = j["output"].get<bool>();
      if (a.output && is_const) fail(field + ".output", "a const buffer cannot be an output");
      if (a.output && a.in_constant_memory()) fail(field + ".output", "an output cannot be copied to constant memory");
      // A pure output starts poisoned, so that elements the kernel never writes fail verification.
      if (a.output && !j.contains("fill")) a.fill = Fill::Poison;
    }
    if (j.contains("expected")) {
      if (!a.output) fail(field + ".expected", "only an output has expected contents");
      a.expected = read_fill(j["expected"], field + ".expected", a.type, *this, spec_.shape_names);
      if (*a.expected == Fill::Poison) fail(field + ".expected", "cannot be \"poison\"");
    }
  }

  // The spec's own kernel at a configuration is the reference: for kernels (T1 problems among them) that come
  // without a separate reference kernel.
  void read_reference_configuration(const Json& reference) {
    check_keys(reference, "reference", {"configuration", "follow"});
    const Json& j = reference["configuration"];
    if (!j.is_object()) fail("reference.configuration", "must be an object of parameter name: value");
    Config config = spec_.default_config();
    for (const auto& item : j.items()) {
      // Not a structured binding: clang before 16 cannot capture one in the lambda below.
      const std::string& name = item.key();
      const Json& v = item.value();
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
    if (reference.contains("follow")) read_reference_follow(reference["follow"]);
  }

  // Parameters of the problem (a filter's width): each configuration is checked against the reference configuration
  // at its own values of these.
  void read_reference_follow(const Json& list) {
    const std::string field = "reference.follow";
    if (!list.is_array()) fail(field, "must be a list of parameter names");
    for (const Json& j : list) {
      if (!j.is_string()) fail(field, "must be a list of parameter names");
      const std::string name = j.get<std::string>();
      const auto p = std::find_if(spec_.parameters.begin(), spec_.parameters.end(),
                                  [&](const Parameter& q) { return q.name == name; });
      if (p == spec_.parameters.end()) fail(field, "'" + name + "' is not a parameter");
      const auto index = static_cast<std::size_t>(p - spec_.parameters.begin());
      if (std::find(spec_.reference_follow.begin(), spec_.reference_follow.end(), index) !=
          spec_.reference_follow.end()) {
        fail(field, "names " + name + " twice");
      }
      spec_.reference_follow.push_back(index);
    }
  }

  void read_tolerance(const Json& j) {
    if (!j.is_object()) fail("tolerance", "must be an object with atol and rtol");
    check_keys(j, "tolerance", {"atol", "rtol"});
    for (const char* key : {"atol", "rtol"}) {
      if (!j.contains(key)) continue;
      const std::string field = std::string("tolerance.") + key;
      Expr e = expression(j[key], field);
      for (const Parameter& p : spec_.parameters) {
        if (e.uses(p.name)) fail(field, "may use shape names only, not " + p.name);
      }
      if (const auto v = number(j[key]); v && !(v->as_double() >= 0.0)) fail(field, "must be a number >= 0");
      (std::string_view(key) == "atol" ? spec_.tolerance.atol : spec_.tolerance.rtol) = std::move(e);
    }
  }

  void read_metric(const Json& j) {
    if (j == "time") {
      spec_.metric.kind = Metric::Kind::Time;
      return;
    }
    const bool flops = j.is_object() && j.contains("flops") && !j.contains("bytes");
    const std::size_t keys = j.is_object() ? j.size() - (flops && j.contains("peak") ? 1 : 0) : 0;
    if (keys != 1 || !(j.contains("bytes") || j.contains("flops"))) {
      fail("metric", "must be {\"bytes\": EXPR}, {\"flops\": EXPR} (with an optional \"peak\") or \"time\"");
    }
    spec_.metric.kind = flops ? Metric::Kind::Flops : Metric::Kind::Bytes;
    const char* key = flops ? "flops" : "bytes";
    spec_.metric.amount = expression(j[key], std::string("metric.") + key);
    if (flops && j.contains("peak")) {
      static const std::pair<const char*, Metric::Peak> kPeaks[] = {{"fp32", Metric::Peak::Fp32},
                                                                    {"fp64", Metric::Peak::Fp64},
                                                                    {"tf32_tensor", Metric::Peak::Tf32Tensor},
                                                                    {"f16_tensor", Metric::Peak::F16Tensor},
                                                                    {"f8_tensor", Metric::Peak::F8Tensor}};
      const Json& peak = j["peak"];
      const auto found = std::find_if(std::begin(kPeaks), std::end(kPeaks), [&](const auto& p) {
        return peak.is_string() && peak.get<std::string>() == p.first;
      });
      if (found == std::end(kPeaks)) fail("metric.peak", "must be \"fp32\", \"fp64\", \"tf32_tensor\", \"f16_tensor\" or \"f8_tensor\"");
      spec_.metric.peak = found->second;
    }
  }

  KernelSpec& spec_;
  const Json* root_ = nullptr;
  std::string prefix_ = "spec";
  std::vector<std::string> scope_;
  std::vector<std::string> grid_scope_;  // scope_, then SM_COUNT
};

}  // namespace

void read_spec(const Json& root, KernelSpec& spec) { SpecReader(spec).read(root); }

}  // namespace cutune::detail
