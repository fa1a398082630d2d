// Internals of spec reading shared by the JSON reader and the KernelSpec methods.
#pragma once

#include <nlohmann/json.hpp>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "cutune/library.hpp"
#include "cutune/spec.hpp"

namespace cutune::detail {

using Json = nlohmann::ordered_json;

bool is_identifier(std::string_view s);
std::string_view trim(std::string_view s);
/// A whole-string decimal number: an integer when it has no '.', exponent, inf or nan.
std::optional<Value> parse_number(std::string_view s);

template <typename Range, typename Format>
std::string join(const Range& items, std::string_view separator, Format format) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += format(item);
  }
  return out;
}

/// What the readers of a spec's sections share: errors that name the spec and the field, and expressions bound to
/// the spec's parameter and shape names.
class FieldReader {
 public:
  virtual ~FieldReader() = default;
  [[noreturn]] virtual void fail(const std::string& field, const std::string& what) const = 0;
  /// A string or number as an expression bound to the spec's scope; fails naming `field` on a syntax error.
  virtual Expr expression(const Json& j, const std::string& field) const = 0;
  /// Fails naming the first key of `object` that is not in `allowed`.
  virtual void check_keys(const Json& object, const std::string& field,
                          std::initializer_list<std::string_view> allowed) const = 0;
};

/// What is wrong with a spec's "source" (source_list.cpp): nullopt for a file name or a non-empty list of distinct
/// ones.
std::optional<std::string> source_problem(const Json& source);
/// The file names of a valid "source", in order.
std::vector<std::string> source_names(const Json& source);
/// Where a spec in `spec_folder` finds its source `name`: beside the spec, or else in the one folder beside the spec's
/// folder that holds a file of that name (a template family's spec naming a shared source); beside the spec when none
/// does (reading it then names that path). Two such folders holding it are an error naming both.
std::filesystem::path source_path(const std::filesystem::path& spec_folder, const std::string& name);
/// The text the compiler sees and the name its messages use.
struct SourceText {
  std::string text;
  std::string name;  ///< the file's name, or the list's joined by '+'
};
/// Joins the files `read` returns by name: one file as it is, several each after a #line marker naming it.
SourceText join_sources(const std::vector<std::string>& names, const std::function<std::string(const std::string&)>& read);

/// The spec text with its "extends" resolved (spec_extends.cpp): the spec file it names, itself resolved, with the
/// spec's other fields merged over it as a JSON merge patch (RFC 7386). `read` returns a named base spec's text. Text
/// that does not parse, or has no "extends", comes back as it is (KernelSpec::from_json names its faults).
std::string resolve_extends(std::string text, const std::function<std::string(const std::string&)>& read);

/// Reads a buffer's "fill" or an output's "expected" (fill_reader.cpp) for a buffer of `type`; a generator is bound
/// to "i" and then `shape_names`.
FillRule read_fill(const Json& j, const std::string& field, ElementType type, const FieldReader& reader,
                   const std::vector<std::string>& shape_names);

/// Fills `spec` from a parsed spec document; throws SpecError naming the spec and the field.
void read_spec(const Json& root, KernelSpec& spec);
/// Reads a spec's "pipeline" section (pipeline_reader.cpp) into spec.pipeline, after everything else was read.
void read_pipeline(const Json& section, KernelSpec& spec);

/// Reads a spec's "library" section (library_reader.cpp) into spec.library, after everything else was read: the
/// arguments the library's call takes by name, their types, and the RANK parameter.
void read_library(const Json& section, const FieldReader& reader, KernelSpec& spec);
/// Whether a library family's parameters include ALGO: a configuration family (library_algo_reader.cpp).
bool has_algo_parameter(const KernelSpec& spec);
/// A configuration family's parameters by position; fails naming a parameter that is not ALGO or an attribute, or a
/// value cuBLASLt cannot be given.
LibraryAlgoParameters read_algo_parameters(const FieldReader& reader, const KernelSpec& spec);
/// Whether a spec document's "verify" says "mode": "none" (before it is read: such a spec needs no output).
bool compares_nothing(const Json* root);
/// Reads "verify" (verify_rule.cpp) into spec.verify, after the arguments were read.
void read_verify(const Json& section, const FieldReader& reader, KernelSpec& spec);
/// Reads "defines" (defines.cpp) into spec.define_rules, after the parameters and shape were read.
void read_defines(const Json& section, const FieldReader& reader, KernelSpec& spec);
/// Reads "target" (target.cpp): a name such as "sm_90a" for every configuration, or {"sm_90a": CONDITION, ...}.
void read_targets(const Json& j, const FieldReader& reader, KernelSpec& spec);
/// Reads a CUtensorMap argument's fields into `a` (tensor_map.cpp); its buffer is looked up later.
void read_tensor_map(const Json& j, const std::string& field, const FieldReader& reader, const KernelSpec& spec,
                     Argument& a);
/// After every argument is read: resolves each tensor map's buffer and adds the constraints the driver's limits
/// imply to spec.constraints; fails where one can never hold.
void finish_tensor_maps(const FieldReader& reader, KernelSpec& spec);

}  // namespace cutune::detail
