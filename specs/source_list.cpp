// A spec's "source": one file, or a list of files compiled as one text in the list's order (a kernel family whose
// instruction paths live in files of their own, with the code they share in the first).
#include <filesystem>
#include <set>
#include <vector>

#include "cutune/error.hpp"

#include "spec_reader.hpp"

namespace cutune::detail {

std::optional<std::string> source_problem(const Json& source) {
  if (source.is_string()) {
    return source.get<std::string>().empty() ? std::optional<std::string>("must not be empty") : std::nullopt;
  }
  const std::string usage = "must be a file name or a non-empty list of file names";
  if (!source.is_array() || source.empty()) return usage;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const std::string at = "entry " + std::to_string(i + 1) + " ";
    if (!source[i].is_string() || source[i].get<std::string>().empty()) return at + "is not a file name (" + usage + ")";
    if (!seen.insert(source[i].get<std::string>()).second) {
      return at + "names '" + source[i].get<std::string>() + "' a second time";
    }
  }
  return std::nullopt;
}

std::vector<std::string> source_names(const Json& source) {
  if (source.is_string()) return {source.get<std::string>()};
  std::vector<std::string> out;
  for (const auto& item : source) out.push_back(item.get<std::string>());
  return out;
}

SourceText join_sources(const std::vector<std::string>& names,
                        const std::function<std::string(const std::string&)>& read) {
  SourceText out;
  if (names.size() == 1) {
    // One file is its own text, with no #line marker: a one-file spec's version is its file's and its spec's hash.
    out.text = read(names[0]);
    out.name = names[0];
    return out;
  }
  for (const std::string& name : names) {
    // #line makes NVRTC's messages name the file and line within it, not a line of the joined text.
    out.text += "#line 1 \"" + name + "\"\n" + read(name);
    if (!out.text.empty() && out.text.back() != '\n') out.text += '\n';
    out.name += (out.name.empty() ? "" : "+") + name;
  }
  return out;
}

std::filesystem::path source_path(const std::filesystem::path& spec_folder, const std::string& name) {
  const std::filesystem::path beside = spec_folder / name;
  std::error_code ec;
  if (std::filesystem::exists(beside, ec)) return beside;
  // A family's spec names a source another folder of templates/ keeps (templates/sm90/) by its file name alone.
  std::vector<std::filesystem::path> found;
  const std::filesystem::path above = spec_folder.empty() ? std::filesystem::path("..") : spec_folder.parent_path();
  for (const auto& entry : std::filesystem::directory_iterator(above, ec)) {
    const std::filesystem::path candidate = entry.path() / name;
    if (entry.is_directory(ec) && std::filesystem::exists(candidate, ec)) found.push_back(candidate);
  }
  if (found.size() > 1) {
    throw SpecError("kernel source '" + name + "' is in two folders beside the spec's: '" + found[0].string() +
                    "' and '" + found[1].string() + "'");
  }
  return found.empty() ? beside : found[0];
}

}  // namespace cutune::detail
