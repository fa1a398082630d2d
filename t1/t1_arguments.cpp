// Translates a T1 problem's kernel arguments (buffers with sizes and fills, scalars) into cutune's spec format.
#include <algorithm>
#include <cmath>

#include "cutune/spec.hpp"
#include "t1_detail.hpp"

namespace cutune::detail {
namespace {

struct ElementName {
  std::string_view t1;
  std::string_view cutune;
  std::size_t bytes;
};
constexpr ElementName kElements[] = {{"float", "float", 4},
                                     {"double", "double", 8},
                                     {"int32", "int32", 4},
                                     {"int64", "int64", 8},
                                     {"uint32", "uint32", 4}};

// A string field, or "" when it is absent or not a string.
std::string text_of(const Json& object, const char* key) {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
}

bool truthy(const Json& j) {
  const auto v = json_number(j);
  return v && v->truthy();
}

class ArgumentReader {
 public:
  explicit ArgumentReader(T1Context& t1) : t1_(t1) {}

  T1Arguments read(const Json& kernel) {
    const std::string list_field = "KernelSpecification.Arguments";
    if (!kernel.contains("Arguments") || !kernel["Arguments"].is_array() || kernel["Arguments"].empty()) {
      t1_.fail(list_field, "must be a non-empty list: without arguments nothing could be verified");
    }
    const Json& list = kernel["Arguments"];
    for (std::size_t i = 0; i < list.size(); ++i) read_one(list[i], i);
    mark_outputs(list_field);
    return std::move(out_);
  }

 private:
  void read_one(const Json& a, std::size_t index) {
    std::string field = "KernelSpecification.Arguments[" + std::to_string(index) + "]";
    if (!a.is_object()) t1_.fail(field, "must be an object with Type and MemoryType");
    std::string name = "arg" + std::to_string(index);
    if (a.contains("Name") && a["Name"].is_string() && is_spec_identifier(a["Name"].get<std::string>()) &&
        !used(a["Name"].get<std::string>())) {
      name = a["Name"].get<std::string>();
    } else if (a.contains("Name")) {
      t1_.note(T1Issue::Kind::Note, field + ".Name",
               a["Name"].dump() + " is not a usable, unique name; called " + name);
    }
    field = "KernelSpecification.Arguments[" + name + "]";
    names_.push_back(name);

    const std::string type = text_of(a, "Type");
    const auto element = std::find_if(std::begin(kElements), std::end(kElements),
                                      [&](const ElementName& e) { return e.t1 == type; });
    if (element == std::end(kElements)) {
      unsupported(field + ".Type", "'" + type + "' (cutune supports float, double, int32, int64, uint32)");
      return;
    }
    const std::string memory = text_of(a, "MemoryType");
    if (memory == "Scalar") {
      read_scalar(a, field, name, *element);
    } else if (memory == "Vector") {
      read_buffer(a, field, name, *element);
    } else {
      unsupported(field + ".MemoryType", "'" + memory + "' (cutune passes Vector buffers and Scalar values)");
    }
  }

  bool used(const std::string& name) const { return std::find(names_.begin(), names_.end(), name) != names_.end(); }

  void unsupported(const std::string& field, const std::string& what) {
    t1_.note(T1Issue::Kind::Unsupported, field, what, true);
  }

  void read_scalar(const Json& a, const std::string& field, const std::string& name, const ElementName& element) {
    const auto value = a.contains("FillValue") ? json_number(a["FillValue"]) : std::nullopt;
    if (!value) {
      t1_.note(T1Issue::Kind::Defect, field + ".FillValue", "a Scalar needs its value as a number", true);
      return;
    }
    const bool integer_type = element.cutune != "float" && element.cutune != "double";
    if (integer_type && value->is_float() && value->as_double() != std::trunc(value->as_double())) {
      t1_.note(T1Issue::Kind::Defect, field + ".FillValue", value->str() + " is not an integer (Type " +
                                                                 std::string(element.t1) + ")", true);
      return;
    }
    out_.list.push_back({{"name", name}, {"type", element.cutune}, {"value", number_json(*value)}});
  }

  std::optional<std::int64_t> size(const Json& a, const std::string& field) {
    std::optional<Value> v;
    if (a.contains("Size") && a["Size"].is_string()) {
      try {
        v = eval_number(a["Size"].get<std::string>(), t1_.lists());
      } catch (const SpecError& e) {
        t1_.note(T1Issue::Kind::Defect, field, e.what(), true);
        return std::nullopt;
      }
    } else if (a.contains("Size")) {
      v = json_number(a["Size"]);
    }
    // Python's int() of the size, as Kernel Tuner reads it
    if (!v || !std::isfinite(v->as_double()) || std::trunc(v->as_double()) < 1 || std::trunc(v->as_double()) > 1e15) {
      t1_.note(T1Issue::Kind::Defect, field,
               a.contains("Size") ? a["Size"].dump() + " is not a positive number of elements" : "missing", true);
      return std::nullopt;
    }
    return static_cast<std::int64_t>(std::trunc(v->as_double()));
  }

  std::optional<std::string> fill(const Json& a, const std::string& field) {
    if (!a.contains("FillType")) return std::nullopt;  // cutune's default: random inputs, poisoned outputs
    const std::string type = a["FillType"].is_string() ? a["FillType"].get<std::string>() : a["FillType"].dump();
    const auto value = a.contains("FillValue") ? json_number(a["FillValue"]) : std::nullopt;
    if (type == "Random") {
      if (value && !(*value == Value(1))) {
        t1_.note(T1Issue::Kind::Note, field + ".FillValue",
                 value->str() + " not used: random fills draw cutune's own values, as Kernel Tuner draws its own");
      }
      return "random";
    }
    if (type == "Constant") {
      if (value && (*value == Value(0) || *value == Value(1))) return *value == Value(0) ? "zero" : "one";
      unsupported(field + ".FillValue", (value ? value->str() : std::string("a missing value")) +
                                            ": cutune fills constants 0 and 1 only");
      return "zero";
    }
    unsupported(field + ".FillType", "'" + type + "' (cutune fills Random and Constant 0 or 1)");
    return std::nullopt;
  }

  void read_buffer(const Json& a, const std::string& field, const std::string& name, const ElementName& element) {
    const auto count = size(a, field + ".Size");
    if (!count) return;
    const bool output = a.contains("Output") && truthy(a["Output"]);
    const std::string access = text_of(a, "AccessType");
    if (a.contains("MemType") && a["MemType"] == "Constant") {
      unsupported(field + ".MemType", "Constant (a __constant__ symbol the host fills) is not supported: cutune passes "
                                      "buffers as kernel arguments only");
    }
    const std::string qualifier = access == "ReadOnly" && !output ? "const " : "";
    Json j = {{"name", name}, {"type", qualifier + std::string(element.cutune) + "*"}, {"size", *count}};
    if (const auto f = fill(a, field)) j["fill"] = *f;
    if (output) j["output"] = true;
    if (access == "WriteOnly" || access == "ReadWrite") written_.push_back(out_.list.size());
    out_.list.push_back(std::move(j));
    // Each size is at most 10^15 elements, but a thousand of them overflow the sum.
    if (__builtin_add_overflow(out_.bytes, *count * static_cast<std::int64_t>(element.bytes), &out_.bytes)) {
      t1_.fail(field + ".Size", "the buffers add up to more than 2^63 bytes");
    }
  }

  // Without `Output: 1` anywhere, the buffers the kernel writes are what can be verified.
  void mark_outputs(const std::string& field) {
    const bool any = std::any_of(out_.list.begin(), out_.list.end(),
                                 [](const Json& j) { return j.contains("output") && j["output"].get<bool>(); });
    if (any) return;
    if (written_.empty()) {
      t1_.fail(field, "no buffer has Output: 1 or AccessType WriteOnly/ReadWrite, so nothing could be verified");
    }
    std::string names;
    for (const std::size_t i : written_) {
      out_.list[i]["output"] = true;
      names += (names.empty() ? "" : ", ") + out_.list[i]["name"].get<std::string>();
    }
    t1_.note(T1Issue::Kind::Note, field, "no argument has Output: 1; verifying the buffers written: " + names);
  }

  T1Context& t1_;
  T1Arguments out_;
  std::vector<std::string> names_;
  std::vector<std::size_t> written_;  // indices into out_.list of WriteOnly/ReadWrite buffers
};

}  // namespace

T1Arguments read_t1_arguments(T1Context& t1, const Json& kernel) { return ArgumentReader(t1).read(kernel); }

}  // namespace cutune::detail
