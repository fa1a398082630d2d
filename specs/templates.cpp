// Looks kernels up among the files embedded from templates/ and its family folders (or CUTUNE_TEMPLATES_DIR), or
// loads a spec file.
#include "cutune/templates.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "cutune/embedded_files.hpp"
#include "cutune/error.hpp"
#include "cutune/operation.hpp"
#include "embedded_support.hpp"
#include "spec_reader.hpp"

namespace cutune {
namespace detail {

std::string_view support_source() {
  for (const auto& f : kEmbeddedFiles)
    if (f.name == "support.cu") return f.text;
  throw Error("support.cu is missing from the build");  // a build defect, not a user error
}

}  // namespace detail

namespace {

std::optional<std::string_view> embedded(std::string_view name) {
  for (const auto& f : detail::kEmbeddedFiles)
    if (f.name == name) return f.text;
  return std::nullopt;
}

const char* templates_dir() {
  const char* dir = std::getenv("CUTUNE_TEMPLATES_DIR");
  return dir != nullptr && *dir != '\0' ? dir : nullptr;
}

// The spec files of a templates folder, in it or in its subfolders (templates/gemm/, templates/reduce/, ...).
std::vector<std::filesystem::path> spec_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json" && !entry.path().string().ends_with(".op.json")) {
      files.push_back(entry.path());
    }
  return files;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::vector<std::string> builtin_kernels() {
  std::vector<std::string> names;
  if (const char* dir = templates_dir()) {
    for (const auto& file : spec_files(dir)) names.push_back(file.stem().string());
  } else {
    for (const auto& f : detail::kEmbeddedFiles)
      if (ends_with(f.name, ".json") && !ends_with(f.name, ".op.json")) {  // operations: cutune/operation.hpp
        names.emplace_back(f.name.substr(0, f.name.size() - 5));
      }
  }
  std::sort(names.begin(), names.end());
  return names;
}

KernelSpec load_kernel(std::string_view name_or_path) {
  const std::string name(name_or_path);
  if (ends_with(name, ".json")) return load_spec_file(name);
  if (const char* dir = templates_dir()) {
    for (const auto& file : spec_files(dir))
      if (file.filename() == name + ".json") return KernelSpec::load(file);
  } else if (auto embedded_text = embedded(name + ".json")) {
    const std::string text = detail::resolve_extends(std::string(*embedded_text), [&](const std::string& base) {
      auto base_text = embedded(std::filesystem::path(base).filename().string());
      if (!base_text) throw SpecError("built-in spec " + name + ".json extends '" + base + "', which is not embedded");
      return std::string(*base_text);
    });
    const auto root = detail::Json::parse(text, nullptr, false);
    if (root.is_discarded() || !root.is_object() || !root.contains("source") || detail::source_problem(root["source"])) {
      return KernelSpec::from_json(text, "", "");  // its own message names the fault
    }
    detail::SourceText source = detail::join_sources(detail::source_names(root["source"]), [&](const std::string& file) {
      // Embedded names are unique whatever folder holds the file (templates/sm90/ keeps the shared ones).
      auto source_text = embedded(std::filesystem::path(file).filename().string());
      if (!source_text) {
        throw SpecError("built-in spec " + name + ".json names source '" + file + "', which is not embedded");
      }
      return std::string(*source_text);
    });
    return KernelSpec::from_json(text, std::move(source.text), std::move(source.name));
  }
  if (is_operation(name)) {
    std::string implementations;
    for (const auto& s : load_operation(name).implementations) {
      implementations += (implementations.empty() ? "" : ", ") + s.name;
    }
    throw InputError("'" + name + "' is an operation, which `tune --kernel`, `tune best`, `tune space` and the runtime "
                     "take, but not this: name one of its implementations (" + implementations + ")");
  }
  std::string known;
  for (const auto& k : builtin_kernels()) known += (known.empty() ? "" : ", ") + k;
  throw InputError("unknown kernel '" + name + "' (built-in kernels: " + known + "; or pass a spec file ending in .json)");
}

KernelSpec load_spec_file(const std::filesystem::path& spec_file) {
  if (!std::filesystem::is_regular_file(spec_file)) {
    throw InputError("spec file '" + spec_file.string() + "' does not exist");
  }
  return KernelSpec::load(spec_file);
}

}  // namespace cutune
