// Reads operation specs and finds the built-in ones among the embedded files (or CUTUNE_TEMPLATES_DIR).
#include "cutune/operation.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cutune/embedded_files.hpp"
#include "cutune/error.hpp"
#include "cutune/library.hpp"
#include "cutune/templates.hpp"
#include "spec_reader.hpp"

namespace cutune {
namespace {

constexpr std::string_view kSuffix = ".op.json";

const char* templates_dir() {
  const char* dir = std::getenv("CUTUNE_TEMPLATES_DIR");
  return dir != nullptr && *dir != '\0' ? dir : nullptr;
}

// Built-in operations: name -> the spec file's text.
std::vector<std::pair<std::string, std::string>> builtin_texts() {
  std::vector<std::pair<std::string, std::string>> out;
  if (const char* dir = templates_dir()) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      const std::string file = entry.path().filename().string();
      if (!entry.is_regular_file() || !file.ends_with(kSuffix)) continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      out.emplace_back(file.substr(0, file.size() - kSuffix.size()), text.str());
    }
  } else {
    for (const auto& f : detail::kEmbeddedFiles)
      if (f.name.ends_with(kSuffix)) out.emplace_back(f.name.substr(0, f.name.size() - kSuffix.size()), f.text);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError("operation spec file '" + path.string() + "' does not exist");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What makes two implementations' calls differ: an argument's name, kind or element type.
std::string argument_signature(const Argument& a) {
  const char* kind = a.tensor_map ? "tensor map over " : a.is_buffer ? "buffer of " : "scalar of ";
  return a.name + ": " + kind + std::string(to_string(a.type)) + (a.output ? " (output)" : "");
}

class OperationReader {
 public:
  OperationReader(std::function<KernelSpec(const std::string&)> load) : load_(std::move(load)) {}

  OperationSpec read(std::string_view text) {
    const auto root = detail::Json::parse(text, nullptr, false);
    if (root.is_discarded() || !root.is_object()) fail("(top level)", "must be a JSON object");
    if (root.contains("name") && root["name"].is_string()) op_.name = root["name"].get<std::string>();
    for (const auto& [key, value] : root.items()) {
      if (key != "name" && key != "description" && key != "implementations" && key != "untuned") {
        fail("(top level)", "unknown field '" + key + "' (allowed: name, description, implementations, untuned)");
      }
    }
    if (op_.name.empty() || !detail::is_identifier(op_.name)) fail("name", "must be a name like [A-Za-z_][A-Za-z0-9_]*");
    if (root.contains("description")) {
      if (!root["description"].is_string()) fail("description", "must be a string");
      op_.description = root["description"].get<std::string>();
    }
    read_implementations(root.contains("implementations") ? root["implementations"] : detail::Json());
    read_untuned(root);
    return std::move(op_);
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw SpecError("operation " + (op_.name.empty() ? std::string("(unnamed)") : op_.name) + ": " + field + ": " + what);
  }

  void read_implementations(const detail::Json& list) {
    if (!list.is_array() || list.empty()) fail("implementations", "must be a non-empty list of kernel names or spec files");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string field = "implementations[" + std::to_string(i) + "]";
      if (!list[i].is_string()) fail(field, "must be a kernel name or a spec file");
      KernelSpec spec = load_(list[i].get<std::string>());
      if (op_.find(spec.name) != nullptr) fail(field, spec.name + " is listed twice");
      if (!op_.implementations.empty()) check_same_call(op_.implementations.front(), spec, field);
      op_.implementations.push_back(std::move(spec));
    }
  }

  // One argument list, one shape and one L2 convention, so that a call and a time mean the same for every one.
  void check_same_call(const KernelSpec& first, const KernelSpec& other, const std::string& field) const {
    if (other.shape_names != first.shape_names) fail(field, other.name + "'s shape differs from " + first.name + "'s");
    if (other.arguments.size() != first.arguments.size()) {
      fail(field, other.name + " takes " + std::to_string(other.arguments.size()) + " arguments, " + first.name + " " +
                      std::to_string(first.arguments.size()));
    }
    for (std::size_t a = 0; a < first.arguments.size(); ++a) {
      const std::string mine = argument_signature(other.arguments[a]), theirs = argument_signature(first.arguments[a]);
      if (mine != theirs) {
        fail(field, "argument " + std::to_string(a + 1) + " of " + other.name + " is " + mine + ", of " + first.name +
                        " " + theirs);
      }
    }
    if (other.l2_flush() != first.l2_flush()) fail(field, other.name + " is timed under another L2 convention");
  }

  void read_untuned(const detail::Json& root) {
    if (root.contains("untuned")) {
      const detail::Json& j = root["untuned"];
      const KernelSpec* spec = j.is_string() ? op_.find(j.get<std::string>()) : nullptr;
      if (spec == nullptr) fail("untuned", "must name one of the implementations");
      op_.untuned = static_cast<std::size_t>(spec - op_.implementations.data());
      return;
    }
    // A family by rank runs the heuristic's first answer wherever cuBLASLt has one; a configuration by attributes is
    // one algorithm that cuBLASLt may refuse at another shape.
    for (const bool by_rank : {true, false}) {
      for (std::size_t i = 0; i < op_.implementations.size(); ++i) {
        const auto& library = op_.implementations[i].library;
        if (library && (!by_rank || !library->algo)) {
          op_.untuned = i;
          return;
        }
      }
    }
  }

  std::function<KernelSpec(const std::string&)> load_;
  OperationSpec op_;
};

}  // namespace

const KernelSpec* OperationSpec::find(std::string_view name) const {
  for (const KernelSpec& s : implementations)
    if (s.name == name) return &s;
  return nullptr;
}

std::string OperationSpec::hash() const {
  std::string text = "operation\n" + name + "\n";
  for (const KernelSpec& s : implementations) text += s.name + " " + s.hash + "\n";
  if (untuned) text += "untuned " + std::to_string(*untuned) + "\n";
  return hash_hex(text);
}

OperationSpec operation_from_json(std::string_view text, const std::function<KernelSpec(const std::string&)>& load) {
  return OperationReader(load).read(text);
}

std::vector<std::string> builtin_operations() {
  std::vector<std::string> names;
  for (auto& [name, text] : builtin_texts()) names.push_back(name);
  return names;
}

bool is_operation(std::string_view name_or_path) {
  if (!name_or_path.ends_with(".json")) {
    const auto names = builtin_operations();
    return std::find(names.begin(), names.end(), name_or_path) != names.end();
  }
  std::ifstream in{std::filesystem::path(name_or_path)};
  if (!in) return false;
  const auto root = detail::Json::parse(in, nullptr, false);
  return !root.is_discarded() && root.is_object() && root.contains("implementations");
}

OperationSpec load_operation(std::string_view name_or_path) {
  if (name_or_path.ends_with(".json")) {
    const std::filesystem::path file(name_or_path);
    const std::filesystem::path folder = file.parent_path();
    return operation_from_json(read_file(file), [&folder](const std::string& implementation) {
      return implementation.ends_with(".json") ? load_spec_file(folder / implementation) : load_kernel(implementation);
    });
  }
  for (auto& [name, text] : builtin_texts()) {
    if (name == name_or_path) return operation_from_json(text, [](const std::string& k) { return load_kernel(k); });
  }
  std::string known;
  for (const auto& n : builtin_operations()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown operation '" + std::string(name_or_path) + "' (built-in operations: " + known + ")");
}

}  // namespace cutune
