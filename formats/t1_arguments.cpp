// Translates a T1 problem's kernel arguments (buffers with sizes and fills, scalars) into cutune's spec format.
#include <algorithm>
#include <cmath>
#include <map>

#include "cutune/spec.hpp"
#include "t1_detail.hpp"

namespace cutune::detail {
namespace {

// A T1 element type: its cutune spelling, bytes, and how many of them one element holds (vector types such as
// float4 are structs of their element).
struct ElementName {
  std::string t1;
  std::string cutune;
  std::size_t bytes = 0;
  std::int64_t width = 1;
  bool integer = false;
};

struct BaseType {
  std::string_view t1, cutune;
  std::size_t bytes;
  bool vectors;  // half2 ... double16 exist
  bool integer;
};
constexpr BaseType kBaseTypes[] = {
    {"bool", "bool", 1, false, true},     {"int8", "int8", 1, false, true},       {"uint8", "uint8", 1, false, true},
    {"int16", "int16", 2, false, true},   {"uint16", "uint16", 2, false, true},   {"int32", "int32", 4, false, true},
    {"uint32", "uint32", 4, false, true}, {"int64", "int64", 8, false, true},     {"uint64", "uint64", 8, false, true},
    {"half", "__half", 2, true, false},   {"float", "float", 4, true, false},     {"double", "double", 8, true, false}};

// "float4" -> float, 4 wide; nullopt for names outside the schema ("custom" among them).
std::optional<ElementName> element_of(const std::string& type) {
  for (const BaseType& b : kBaseTypes) {
    if (!std::string_view(type).starts_with(b.t1)) continue;
    const std::string suffix = type.substr(b.t1.size());
    std::int64_t width = 1;
    if (!suffix.empty()) {
      if (!b.vectors || (suffix != "2" && suffix != "3" && suffix != "4" && suffix != "8" && suffix != "16")) continue;
      width = std::stoi(suffix);
    }
    return ElementName{type, std::string(b.cutune), b.bytes, width, b.integer};
  }
  return std::nullopt;
}

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
  ArgumentReader(T1Context& t1, std::filesystem::path folder) : t1_(t1), folder_(std::move(folder)) {}

  T1Arguments read(const Json& kernel) {
    const std::string list_field = "KernelSpecification.Arguments";
    if (!kernel.contains("Arguments") || !kernel["Arguments"].is_array() || kernel["Arguments"].empty()) {
      t1_.fail(list_field, "must be a non-empty list: without arguments nothing could be verified");
    }
    const Json& list = kernel["Arguments"];
    for (std::size_t i = 0; i < list.size(); ++i) read_one(list[i], i);
    if (kernel.contains("ReferenceArguments")) read_references(kernel["ReferenceArguments"]);
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
    const auto element = element_of(type);
    if (!element) {
      unsupported(field + ".Type", "'" + type + "' (cutune supports the schema's bool, int8 ... uint64, half, float, "
                                   "double and their vectors half2 ... double16; not custom types)");
      return;
    }
    const std::string memory = text_of(a, "MemoryType");
    if (memory == "Scalar") {
      read_scalar(a, field, name, *element);
    } else if (memory == "Vector" || memory == "Symbol") {
      read_buffer(a, field, name, *element, memory == "Symbol");
    } else if (memory == "Local") {
      read_local(a, field, *element);
    } else {
      unsupported(field + ".MemoryType", "'" + memory + "' (the schema's Scalar, Vector, Local or Symbol)");
    }
  }

  bool used(const std::string& name) const { return std::find(names_.begin(), names_.end(), name) != names_.end(); }

  void unsupported(const std::string& field, const std::string& what) {
    t1_.note(T1Issue::Kind::Unsupported, field, what, true);
  }

  void read_scalar(const Json& a, const std::string& field, const std::string& name, const ElementName& element) {
    if (element.width != 1) {
      unsupported(field + ".Type", "'" + element.t1 + "': cutune passes scalars of one element, not vectors");
      return;
    }
    std::optional<Value> value = a.contains("FillValue") ? json_number(a["FillValue"]) : std::nullopt;
    if (!value && a.contains("FillValue") && a["FillValue"].is_string()) {  // "4096": a number in quotes
      try {
        value = eval_number(a["FillValue"].get<std::string>());
      } catch (const SpecError&) {
      }
      if (value) t1_.note(T1Issue::Kind::Note, field + ".FillValue", "a string; read as the number " + value->str());
    }
    if (!value) {
      t1_.note(T1Issue::Kind::Defect, field + ".FillValue", "a Scalar needs its value as a number", true);
      return;
    }
    if (element.integer && value->is_float() && value->as_double() != std::trunc(value->as_double())) {
      t1_.note(T1Issue::Kind::Defect, field + ".FillValue", value->str() + " is not an integer (Type " +
                                                                 element.t1 + ")", true);
      return;
    }
    out_.list.push_back({{"name", name}, {"type", element.cutune}, {"value", number_json(*value)}});
  }

  std::optional<std::int64_t> size(const Json& a, const std::string& field) {
    std::optional<Value> v;
    if (a.contains("Size") && a["Size"].is_string()) {
      try {
        v = eval_number(a["Size"].get<std::string>(), t1_.lists());
        t1_.sizes_name(a["Size"].get<std::string>(), field);
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

  // A T1 fill (an argument's, or a reference argument's) as a cutune fill; nullopt: cutune's default.
  std::optional<Json> fill(const Json& a, const std::string& field, const ElementName& element) {
    if (!a.contains("FillType")) return std::nullopt;  // cutune's default: random inputs, poisoned outputs
    const std::string type = a["FillType"].is_string() ? a["FillType"].get<std::string>() : a["FillType"].dump();
    const auto value = a.contains("FillValue") ? json_number(a["FillValue"]) : std::nullopt;
    if (a.contains("RandomSeed") && type == "Random") {
      t1_.note(T1Issue::Kind::Note, field + ".RandomSeed", "not used: cutune draws random fills from its own fixed seed, the same for every configuration");
    }
    if (type == "Random") {
      // FillValue bounds the range, from 0: [0, v) for floats, [0, v] for integers.
      if (!value || value->as_double() == 0.0) return "random";
      double lo = 0.0, hi = value->as_double();
      if (element.integer) hi = std::trunc(hi);
      if (hi < lo) std::swap(lo, hi);
      return Json{{"uniform", {lo, hi}}};
    }
    if (type == "Constant") {
      if (!value) {
        t1_.note(T1Issue::Kind::Defect, field + ".FillValue", "a Constant fill needs its value as a number", true);
        return "zero";
      }
      if (*value == Value(0)) return "zero";
      return Json{{"constant", number_json(*value)}};
    }
    if (type == "Generator" || type == "BinaryRaw") {
      if (!a.contains("DataSource") || !a["DataSource"].is_string() || a["DataSource"].get<std::string>().empty()) {
        t1_.note(T1Issue::Kind::Defect, field + ".DataSource",
                 type == "Generator" ? "a Generator needs an expression of i" : "BinaryRaw needs a file name", true);
        return std::nullopt;
      }
      const std::string source = a["DataSource"].get<std::string>();
      if (type == "Generator") return Json{{"generator", source}};
      const std::filesystem::path path = std::filesystem::path(source).is_absolute() ? std::filesystem::path(source) : folder_ / source;
      if (!std::filesystem::is_regular_file(path)) {
        t1_.note(T1Issue::Kind::Missing, field + ".DataSource", path.string() + " is not a file", true);
      }
      return Json{{"file", source}};
    }
    unsupported(field + ".FillType", "'" + type + "' (cutune fills Constant, Random, Generator and BinaryRaw; "
                                    "Script and BinaryHDF would need a Python or HDF5 reader)");
    return std::nullopt;
  }

  void read_buffer(const Json& a, const std::string& field, const std::string& name, const ElementName& element,
                   bool symbol) {
    const auto elements = size(a, field + ".Size");
    if (!elements) return;
    const std::int64_t count = *elements * element.width;
    const bool output = a.contains("Output") && truthy(a["Output"]);
    const std::string access = text_of(a, "AccessType");
    const bool constant = symbol || (a.contains("MemType") && a["MemType"] == "Constant");
    if (constant && output) {
      t1_.note(T1Issue::Kind::Defect, field + ".Output", "constant memory cannot be an output", true);
      return;
    }
    const std::string qualifier = access == "ReadOnly" && !output ? "const " : "";
    Json j = {{"name", name}, {"type", qualifier + element.cutune + "*"}, {"size", count}};
    // Also copied into the __constant__ array of the kernel's source named like the argument, before each launch; it
    // stays a parameter, as Kernel Tuner passes it (a kernel that does not take it ignores the extra parameter).
    if (constant) j["symbol"] = name;
    if (const auto f = fill(a, field, element)) j["fill"] = *f;
    if (output) j["output"] = true;
    if (!constant && (access == "WriteOnly" || access == "ReadWrite")) written_.push_back(out_.list.size());
    elements_.emplace(name, element);
    out_.list.push_back(std::move(j));
    // Each size is at most 10^15 elements, but a thousand of them overflow the sum.
    if (__builtin_add_overflow(out_.bytes, count * static_cast<std::int64_t>(element.bytes), &out_.bytes)) {
      t1_.fail(field + ".Size", "the buffers add up to more than 2^63 bytes");
    }
  }

  // CUDA's local memory of a T1 file is shared memory of the block's own: requested as dynamic shared memory.
  void read_local(const Json& a, const std::string& field, const ElementName& element) {
    const auto elements = size(a, field + ".Size");
    if (!elements) return;
    out_.local_bytes += *elements * element.width * static_cast<std::int64_t>(element.bytes);
    t1_.note(T1Issue::Kind::Note, field + ".MemoryType",
             "Local: " + std::to_string(*elements * element.width * static_cast<std::int64_t>(element.bytes)) +
                 " bytes of dynamic shared memory per block, no kernel parameter");
  }

  // ReferenceArguments: what an output must hold after a run, with the threshold of its comparison.
  void read_references(const Json& list) {
    const std::string list_field = "KernelSpecification.ReferenceArguments";
    if (!list.is_array()) t1_.fail(list_field, "must be a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Json& r = list[i];
      const std::string field = list_field + "[" + std::to_string(i) + "]";
      const std::string target = r.is_object() ? text_of(r, "TargetName") : "";
      const auto it = std::find_if(out_.list.begin(), out_.list.end(),
                                   [&](const Json& j) { return j["name"] == target && j.contains("size"); });
      if (it == out_.list.end()) {
        t1_.note(T1Issue::Kind::Defect, field + ".TargetName", "'" + target + "' is not a buffer argument", true);
        continue;
      }
      const auto f = fill(r, field, elements_.at(target));
      if (!f) {
        t1_.note(T1Issue::Kind::Defect, field + ".FillType", "missing", true);
        continue;
      }
      // An output, so never const; it starts poisoned unless the file fills it.
      const std::string type = (*it)["type"].get<std::string>();
      (*it)["type"] = type.starts_with("const ") ? type.substr(6) : type;
      (*it)["output"] = true;
      if (!it->contains("fill")) (*it)["fill"] = "poison";
      (*it)["expected"] = *f;
      read_threshold(r, field, target);
    }
  }

  // The target's own bounds (its "verify" entry): AbsoluteDifference |out - expected| <= threshold, the relative
  // comparison |out - expected| <= threshold * |expected|, SideBySideComparison exact.
  void read_threshold(const Json& r, const std::string& field, const std::string& target) {
    const std::string method = text_of(r, "ValidationMethod");
    const auto threshold = r.contains("ValidationThreshold") ? json_number(r["ValidationThreshold"]) : std::nullopt;
    const double t = threshold ? std::max(0.0, threshold->as_double()) : 0.0;
    if (method.empty() || method == "AbsoluteDifference") {
      out_.checks[target] = {{"atol", t}, {"rtol", 0}};
    } else if (method == "SideBySideRelativeComparison") {
      out_.checks[target] = {{"atol", 0}, {"rtol", t}};
    } else if (method == "SideBySideComparison") {
      out_.checks[target] = {{"atol", 0}, {"rtol", 0}};
    } else {
      t1_.note(T1Issue::Kind::Defect, field + ".ValidationMethod", "'" + method + "' is not one of the schema's", true);
    }
  }

  // Without `Output: 1` anywhere, the buffers the kernel writes are what can be verified.
  void mark_outputs(const std::string& field) {
    const bool any = std::any_of(out_.list.begin(), out_.list.end(),
                                 [](const Json& j) { return j.contains("output") && j["output"].get<bool>(); });
    if (any) return;
    if (written_.empty()) {  // tuned by time alone, and said so
      out_.unverified = true;
      t1_.note(T1Issue::Kind::Note, field,
               "no buffer has Output: 1 or AccessType WriteOnly/ReadWrite, so nothing can be verified: results are "
               "timed and stored as unverified");
      return;
    }
    std::string names;
    for (const std::size_t i : written_) {
      out_.list[i]["output"] = true;
      names += (names.empty() ? "" : ", ") + out_.list[i]["name"].get<std::string>();
    }
    t1_.note(T1Issue::Kind::Note, field, "no argument has Output: 1; verifying the buffers written: " + names);
  }

  T1Context& t1_;
  std::filesystem::path folder_;
  T1Arguments out_;
  std::vector<std::string> names_;
  std::map<std::string, ElementName> elements_;  // buffers' element types, by name
  std::vector<std::size_t> written_;  // indices into out_.list of WriteOnly/ReadWrite buffers
};

}  // namespace

T1Arguments read_t1_arguments(T1Context& t1, const Json& kernel, const std::filesystem::path& folder) {
  return ArgumentReader(t1, folder).read(kernel);
}

}  // namespace cutune::detail
