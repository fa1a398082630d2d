// Turns configurations, shapes and launch geometry into text and numbers, and loads specs (spec_reader.cpp reads them).
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
#include "cutune/pipeline.hpp"
#include "spec_reader.hpp"

namespace cutune {
namespace detail {
namespace {

constexpr std::string_view kKeywords[] = {"and", "or", "not", "True", "False"};

std::string read_file(const std::filesystem::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError("cannot read " + what + " '" + path.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SpecError("cannot read " + what + " '" + path.string() + "'");
  return text.str();
}

}  // namespace

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

}  // namespace detail

std::string Shape::str() const {
  return detail::join(dims, "x", [](std::int64_t d) { return std::to_string(d); });
}

namespace {

struct ElementInfo {
  ElementType type;
  std::string_view name;
  std::size_t bytes;
  bool integer;
};
// In ElementType's order.
constexpr ElementInfo kElementInfo[kElementTypes] = {
    {ElementType::Float32, "float32", 4, false}, {ElementType::Float64, "float64", 8, false},
    {ElementType::Int32, "int32", 4, true},      {ElementType::Int64, "int64", 8, true},
    {ElementType::UInt32, "uint32", 4, true},    {ElementType::BFloat16, "bfloat16", 2, false},
    {ElementType::Float16, "float16", 2, false}, {ElementType::Int8, "int8", 1, true},
    {ElementType::UInt8, "uint8", 1, true},      {ElementType::Int16, "int16", 2, true},
    {ElementType::UInt16, "uint16", 2, true},    {ElementType::UInt64, "uint64", 8, true},
    {ElementType::Bool, "bool", 1, true},        {ElementType::Float8E4M3, "float8_e4m3", 1, false},
    {ElementType::Float8E5M2, "float8_e5m2", 1, false}};

const ElementInfo& info(ElementType t) {
  const auto& i = kElementInfo[static_cast<std::size_t>(t)];
  return i.type == t ? i : kElementInfo[0];
}

}  // namespace

std::size_t element_size(ElementType t) { return info(t).bytes; }

std::string_view to_string(ElementType t) { return info(t).name; }

bool is_integer(ElementType t) { return info(t).integer; }

HashHex& HashHex::add(std::string_view text) {
  for (const char ch : text) {
    state_ ^= static_cast<unsigned char>(ch);
    state_ *= 1099511628211ULL;
  }
  return *this;
}

std::string HashHex::hex() const {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(state_));
  return buffer;
}

std::string hash_hex(std::string_view text) { return HashHex().add(text).hex(); }

namespace {

// The spec's "start": an array of configuration texts, each complete and made of the spec's own values.
void read_start(const detail::Json& start, KernelSpec& spec) {
  if (!start.is_array()) throw SpecError("spec: \"start\" must be an array of configurations such as \"TILE=32,VEC=4\"");
  for (std::size_t i = 0; i < start.size(); ++i) {
    const std::string where = "spec: start[" + std::to_string(i) + "]";
    if (!start[i].is_string()) throw SpecError(where + " must be a configuration text such as \"TILE=32,VEC=4\"");
    try {
      spec.start.push_back(spec.parse_config(start[i].get<std::string>()));
    } catch (const InputError& e) {
      throw SpecError(where + ": " + e.what());
    }
  }
}

// The spec's "measure": measurement defaults, {"flush": "read" | "write" | "none"}.
std::optional<L2Flush> read_measure(const detail::Json& measure, const std::string& spec_name) {
  const std::string where = "spec " + spec_name + ": measure";
  if (!measure.is_object()) throw SpecError(where + ": must be an object such as {\"flush\": \"write\"}");
  for (const auto& [key, value] : measure.items()) {
    if (key != "flush") throw SpecError(where + ": unknown field '" + key + "' (allowed: flush)");
  }
  if (!measure.contains("flush")) return std::nullopt;
  const detail::Json& flush = measure["flush"];
  const auto parsed = flush.is_string() ? parse_l2_flush(flush.get<std::string>()) : std::nullopt;
  if (!parsed) {
    throw SpecError(where + ".flush: must be one of " + std::string(kL2FlushNames) + ", not " + flush.dump());
  }
  return parsed;
}

}  // namespace

KernelSpec KernelSpec::from_json(std::string_view spec_text, std::string source, std::string source_name,
                                 std::filesystem::path folder) {
  KernelSpec spec;
  spec.folder = std::move(folder);
  detail::Json root;
  try {
    root = detail::Json::parse(spec_text);
  } catch (const detail::Json::exception& e) {
    throw SpecError(std::string("spec: invalid JSON: ") + e.what());
  }
  detail::read_spec(root, spec);
  std::string versioned(spec_text);
  if (root.is_object() && (root.contains("start") || root.contains("measure"))) {
    if (root.contains("start")) read_start(root["start"], spec);
    if (root.contains("measure")) spec.flush = read_measure(root["measure"], spec.name);
    // Hints and measurement defaults, not part of the version: the rest of the spec, written out again, is.
    root.erase("start");
    root.erase("measure");
    versioned = root.dump();
  }
  spec.hash = hash_hex(versioned + "\n" + source);
  spec.json = std::string(spec_text);
  spec.source = std::move(source);
  spec.source_name = std::move(source_name);
  return spec;
}

KernelSpec KernelSpec::load(const std::filesystem::path& spec_file) {
  const std::string text = detail::resolve_extends(detail::read_file(spec_file, "spec file"), [&](const std::string& name) {
    return detail::read_file(spec_file.parent_path() / name, "spec file that " + spec_file.filename().string() + " extends");
  });
  // The source's name is inside the spec; a spec too broken to name it gets from_json's own message.
  const auto root = detail::Json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object() || !root.contains("source") || detail::source_problem(root["source"])) {
    return from_json(text, "", "");
  }
  detail::SourceText source = detail::join_sources(detail::source_names(root["source"]), [&](const std::string& name) {
    return detail::read_file(detail::source_path(spec_file.parent_path(), name), "kernel source");
  });
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::absolute(spec_file, ec).parent_path();
  return from_json(text, std::move(source.text), std::move(source.name), ec ? spec_file.parent_path() : folder);
}

L2Flush KernelSpec::l2_flush(std::optional<L2Flush> asked) const {
  return asked.value_or(flush.value_or(L2Flush::Read));
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

Config KernelSpec::following(const Config& reference, const Config& config) const {
  Config out = reference;
  for (const std::size_t i : reference_follow) out.values.at(i) = config.values.at(i);
  return out;
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

Launch KernelSpec::resolve(const Geometry& geometry, const Config& config, const Shape& shape,
                           std::int64_t sm_count) const {
  auto values = scope(config, &shape);
  values.emplace_back(sm_count);  // the grid's last slot
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
  static constexpr const char* kCluster[] = {"cluster[0]", "cluster[1]", "cluster[2]"};
  Launch launch;
  for (std::size_t i = 0; i < 3; ++i) {
    launch.block[i] = integer(geometry.block[i], kBlock[i]);
    launch.grid[i] = integer(geometry.grid[i], kGrid[i]);
    launch.cluster[i] = integer(geometry.cluster[i], kCluster[i]);
  }
  launch.shared_memory = integer(geometry.shared_memory, "shared_memory");
  return launch;
}

void KernelSpec::restrict_to(std::string_view text) {
  try {
    Expr e = Expr::parse(text);
    e.bind(scope_names());
    constraints.push_back(std::move(e));
  } catch (const SpecError& e) {
    throw InputError("--where '" + std::string(text) + "': " + e.what());
  }
}

Tolerance KernelSpec::tolerance_at(const Shape& shape) const {
  const std::vector<Value> values = scope(default_config(), &shape);
  Tolerance t{tolerance.atol.eval(values).as_double(), tolerance.rtol.eval(values).as_double()};
  if (!(t.atol >= 0.0) || !(t.rtol >= 0.0)) {
    throw InputError("spec " + name + ": the tolerance at shape " + shape.str() + " is negative (atol " +
                     std::to_string(t.atol) + ", rtol " + std::to_string(t.rtol) + ")");
  }
  return t;
}

double KernelSpec::metric_amount(const Shape& shape) const {
  return metric.amount.eval(scope(default_config(), &shape)).as_double();
}

}  // namespace cutune
