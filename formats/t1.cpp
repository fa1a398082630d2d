// Translates a T1 problem file into cutune's spec format and reads it with the one spec reader: the
// configuration space and the public entry points (the kernel's files and launch geometry are in t1_kernel.cpp,
// its arguments in t1_arguments.cpp, the choice of its reference in t1_reference.cpp).
#include "cutune/t1.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <unordered_set>

#include "cutune/error.hpp"
#include "base/json_depth.hpp"
#include "t1_detail.hpp"

namespace cutune {
namespace detail {
namespace {

// Verification compares against the same kernel at another configuration, whose floating-point sums may run in
// another order; T1 states no tolerance.
constexpr double kTolerance = 1e-3;

}  // namespace

T1Problem T1Reader::read() {
  if (!root_.is_object()) fail("(top level)", "must be a JSON object");
  const Json& space = object(root_, "ConfigurationSpace", "ConfigurationSpace");
  const Json& kernel = object(root_, "KernelSpecification", "KernelSpecification");
  spec_["name"] = name_;
  spec_["description"] = "T1 problem " + name_;
  read_parameters(space);
  read_conditions(space);
  read_problem_size(kernel);
  read_kernel(kernel);
  read_block(kernel);
  read_grid(kernel);
  define_kernel_tuner_names();
  T1Arguments arguments = read_t1_arguments(*this, kernel, folder_);
  spec_["arguments"] = std::move(arguments.list);
  if (arguments.local_bytes > 0) {
    spec_["shared_memory"] = spec_.value("shared_memory", std::int64_t{0}) + arguments.local_bytes;
  }
  read_objective(arguments.bytes);
  if (arguments.unverified) spec_["verify"]["mode"] = "none";
  spec_["tolerance"] = {{"atol", kTolerance}, {"rtol", kTolerance}};
  if (!arguments.checks.empty()) spec_["verify"]["outputs"] = std::move(arguments.checks);  // the file's thresholds
  if (root_.contains("Budget")) {
    note(T1Issue::Kind::Note, "Budget", "not applied; give tune --budget or --time instead");
  }
  choose_reference();
  note_follow();
  return std::move(problem_);
}

// General.Objective names what the file's users compare: the time unless it asks for a bandwidth, the one figure
// cutune can derive from the file alone (its buffers' bytes); a FLOP rate needs a count the schema has no field for.
void T1Reader::read_objective(std::int64_t buffer_bytes) {
  const Json* general = root_.contains("General") && root_["General"].is_object() ? &root_["General"] : nullptr;
  const Json* objective = general && general->contains("Objective") ? &(*general)["Objective"] : nullptr;
  spec_["metric"] = "time";
  if (!objective) return;
  std::string name = objective->is_string() ? objective->get<std::string>() : objective->dump();
  std::string lower;
  for (const char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "time" || lower == "runtime" || lower == "duration") return;
  if (lower == "gb/s" || lower == "gbs" || lower == "bandwidth") {
    spec_["metric"] = {{"bytes", buffer_bytes}};
    note(T1Issue::Kind::Note, "General.Objective",
         "'" + name + "': GB/s over the bytes of the buffers (" + std::to_string(buffer_bytes) + ") read once");
    return;
  }
  note(T1Issue::Kind::Note, "General.Objective",
       "'" + name + "' has no formula in the file; results are stored and compared by time (lower is better)");
}

const Json& T1Reader::object(const Json& parent, const char* key, const std::string& field) const {
  if (!parent.contains(key)) fail(field, "missing");
  if (!parent[key].is_object()) fail(field, "must be an object");
  return parent[key];
}

std::string T1Reader::required_string(const Json& parent, const char* key, const std::string& field) const {
  if (!parent.contains(key) || !parent[key].is_string()) fail(field, "missing or not a string");
  return parent[key].get<std::string>();
}

void T1Reader::read_parameters(const Json& space) {
  const std::string list_field = "ConfigurationSpace.TuningParameters";
  if (!space.contains("TuningParameters") || !space["TuningParameters"].is_array() ||
      space["TuningParameters"].empty()) {
    fail(list_field, "must be a non-empty list");
  }
  spec_["parameters"] = Json::object();
  const Json& list = space["TuningParameters"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& p = list[i];
    std::string field = list_field + "[" + std::to_string(i) + "]";
    if (!p.is_object()) fail(field, "must be an object with Name, Type and Values");
    const std::string name = required_string(p, "Name", field + ".Name");
    if (!is_t1_identifier(name)) fail(field + ".Name", "'" + name + "' is not a usable name");
    field = list_field + "[" + name + "]";
    if (std::find(parameter_names_.begin(), parameter_names_.end(), name) != parameter_names_.end()) {
      fail(field + ".Name", "appears twice");
    }
    const std::string type = required_string(p, "Type", field + ".Type");
    if (type == "string") fail(field + ".Type", "string parameters are not supported (cutune's values are numbers)");
    if (type != "int" && type != "uint" && type != "float" && type != "bool") {
      fail(field + ".Type", "unknown type '" + type + "' (int, uint, float, bool)");
    }
    std::vector<Value> values = read_values(p, field + ".Values", type);
    Value default_value = values.front();
    if (p.contains("Default")) {
      const auto given = json_number(p["Default"]);
      const auto it = given ? std::find(values.begin(), values.end(), *given) : values.end();
      if (it != values.end()) {
        default_value = *it;
      } else {
        note(T1Issue::Kind::Defect, field + ".Default",
             (given ? given->str() + " is not one of the Values" : p["Default"].dump() + " is not a number") +
                 "; the default is the first value, " + default_value.str());
      }
    }
    Json values_json = Json::array();
    for (const Value& v : values) values_json.push_back(number_json(v));
    spec_["parameters"][name] = {{"values", values_json}, {"default", number_json(default_value)}};
    parameter_names_.push_back(name);
    lists_.emplace_back(name, std::move(values));
    defaults_.values.push_back(default_value);
  }
}

std::vector<Value> T1Reader::read_values(const Json& p, const std::string& field, const std::string& type) const {
  if (!p.contains("Values")) fail(field, "missing");
  std::vector<Value> values;
  const Json& j = p["Values"];
  if (j.is_string()) {
    try {
      values = eval_list(j.get<std::string>());
    } catch (const SpecError& e) {
      fail(field, e.what());
    }
  } else if (j.is_array()) {  // the schema says a string; a plain JSON list means the same
    for (const auto& item : j) {
      const auto v = json_number(item);
      if (!v) fail(field, "must be numbers, got " + item.dump());
      values.push_back(*v);
    }
  } else {
    fail(field, "must be a string such as \"[1, 2, 4]\" or \"range(1, 9)\"");
  }
  if (values.empty()) fail(field, "gives no values");
  std::unordered_set<Value> seen;  // a search of the list for each value took minutes for range(10**5)
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Value& v = values[i];
    const bool integral = !v.is_float();
    if ((type == "int" || type == "uint") && !integral) {
      fail(field, v.str() + " is not an integer (Type " + type + ")");
    }
    if (type == "uint" && v.as_int() < 0) fail(field, v.str() + " is negative (Type uint)");
    if (type == "bool" && !(integral && (v.as_int() == 0 || v.as_int() == 1))) {
      fail(field, v.str() + " is not True or False (Type bool)");
    }
    if (!seen.insert(v).second) fail(field, "value " + v.str() + " appears twice");
  }
  return values;
}

void T1Reader::read_conditions(const Json& space) {
  spec_["constraints"] = Json::array();
  if (!space.contains("Conditions")) return;
  const Json& list = space["Conditions"];
  if (!list.is_array()) fail("ConfigurationSpace.Conditions", "must be a list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string field = "ConfigurationSpace.Conditions[" + std::to_string(i) + "]";
    if (!list[i].is_object()) fail(field, "must be an object with Expression and Parameters");
    const std::string text = required_string(list[i], "Expression", field + ".Expression");
    Expr condition;
    try {
      condition = Expr::parse(text);
    } catch (const SpecError& e) {
      fail(field + ".Expression", e.what());
    }
    for (const auto& used : condition.names()) {
      if (!is_parameter(used)) fail(field + ".Expression", "'" + used + "' is not a tuning parameter");
    }
    condition.bind(parameter_names_);
    check_condition_parameters(list[i], condition, field + ".Parameters");
    spec_["constraints"].push_back(text);
    conditions_.push_back(std::move(condition));
  }
}

// Parameters only documents which names a condition reads; a mismatch is reported, the Expression rules.
void T1Reader::check_condition_parameters(const Json& condition, const Expr& expr, const std::string& field) {
  if (!condition.contains("Parameters")) return;
  const Json& listed = condition["Parameters"];
  std::vector<std::string> names;
  for (const auto& j : listed.is_array() ? listed : Json::array()) {
    if (j.is_string()) names.push_back(j.get<std::string>());
  }
  if (!listed.is_array() || names.size() != listed.size()) {
    note(T1Issue::Kind::Defect, field, "must be a list of parameter names; ignored");
    return;
  }
  std::string unknown, unlisted;
  for (const auto& n : names) {
    if (!is_parameter(n)) unknown += (unknown.empty() ? "" : ", ") + n;
  }
  for (const auto& n : expr.names()) {
    if (std::find(names.begin(), names.end(), n) == names.end()) unlisted += (unlisted.empty() ? "" : ", ") + n;
  }
  if (!unknown.empty()) note(T1Issue::Kind::Defect, field, "lists " + unknown + ", not tuning parameters; ignored");
  if (!unlisted.empty()) {
    note(T1Issue::Kind::Defect, field,
         "omits " + unlisted + ", which the Expression uses; the Expression is applied");
  }
}

void T1Reader::read_problem_size(const Json& kernel) {
  const std::string field = "KernelSpecification.ProblemSize";
  std::vector<std::int64_t> sizes{1};
  if (kernel.contains("ProblemSize")) {
    // The schema allows one size as a number (or an expression) without the list around it.
    const Json& given = kernel["ProblemSize"];
    const Json list = given.is_number() || given.is_string() ? Json::array({given}) : given;
    if (!list.is_array() || list.empty() || list.size() > 3) {
      fail(field, "must be a size or a list of 1 to 3 sizes");
    }
    sizes.clear();
    for (const auto& j : list) {
      std::optional<Value> v = json_number(j);
      if (j.is_string()) {
        try {
          v = eval_number(j.get<std::string>(), lists_);
          sizes_name(j.get<std::string>(), field);
        } catch (const SpecError& e) {
          fail(field, e.what());
        }
      }
      if (!v || v->is_float() || v->as_int() <= 0) fail(field, "must hold positive integers, got " + j.dump());
      sizes.push_back(v->as_int());
    }
    has_problem_size_ = true;
  }
  Json shape = Json::array();
  for (std::size_t i = 0; i < sizes.size(); ++i) shape.push_back(kT1ShapeNames[i]);
  spec_["shape"] = shape;
  problem_.shape.dims = sizes;
  lists_.emplace_back("ProblemSize", std::vector<Value>(sizes.begin(), sizes.end()));
}

bool T1Reader::is_parameter(const std::string& name) const {
  return std::find(parameter_names_.begin(), parameter_names_.end(), name) != parameter_names_.end();
}

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

bool is_spec_identifier(std::string_view s) {
  static constexpr std::string_view kKeywords[] = {"and", "or", "not", "True", "False"};
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (const char ch : s) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  }
  return std::find(std::begin(kKeywords), std::end(kKeywords), s) == std::end(kKeywords);
}

bool is_t1_identifier(std::string_view s) {
  // Keywords of the list forms and of Python that T1's expressions could otherwise not tell from a name.
  static constexpr std::string_view kKeywords[] = {"in", "is", "if", "else", "for", "None", "lambda"};
  return is_spec_identifier(s) && std::find(std::begin(kKeywords), std::end(kKeywords), s) == std::end(kKeywords);
}

std::optional<Value> json_number(const Json& j) {
  if (j.is_boolean()) return Value(j.get<bool>() ? 1 : 0);
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  if (j.is_number_integer()) return Value(j.get<std::int64_t>());
  if (j.is_number_float()) return Value(j.get<double>());
  return std::nullopt;
}

Json number_json(const Value& v) { return v.is_float() ? Json(v.as_double()) : Json(v.as_int()); }

}  // namespace detail

std::string T1Issue::str() const {
  static constexpr const char* kKinds[] = {"note", "defect", "unsupported", "missing"};
  return std::string(kKinds[static_cast<int>(kind)]) + ": " + field + ": " + message +
         (blocks_tuning ? " (blocks tuning)" : "");
}

bool T1Problem::tunable() const {
  return std::none_of(issues.begin(), issues.end(), [](const T1Issue& i) { return i.blocks_tuning; });
}

void T1Problem::require_tunable() const {
  std::string reasons;
  for (const auto& i : issues) {
    if (i.blocks_tuning) reasons += (reasons.empty() ? "" : "; ") + i.field + ": " + i.message;
  }
  if (!reasons.empty()) throw SpecError("T1 problem " + spec.name + " cannot be tuned: " + reasons);
}

T1Problem parse_t1(std::string_view text, const std::filesystem::path& folder, const std::string& name) {
  detail::Json root;
  if (detail::json_too_deep(text)) {
    throw SpecError("T1 " + name + ": nested more than " + std::to_string(detail::kMaxJsonDepth) + " levels deep");
  }
  try {
    root = detail::Json::parse(text);
  } catch (const detail::Json::exception& e) {
    throw SpecError("T1 " + name + ": invalid JSON: " + e.what());
  }
  return detail::T1Reader(root, folder, name).read();
}

T1Problem read_t1(const std::filesystem::path& file) {
  const auto text = detail::read_text(file);
  if (!text) throw InputError("cannot read T1 file '" + file.string() + "'");
  // "gemm.t1.json" and "gemm.json" both name the problem "gemm".
  std::string name = file.filename().string();
  for (const std::string_view suffix : {".json", ".t1"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  return parse_t1(*text, file.parent_path(), name);
}

}  // namespace cutune
