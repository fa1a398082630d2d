// A result's printable parts: status names as the database stores them and the CLI shows them, and the items of a
// configuration's canonical form.
#include "cutune/result.hpp"

#include <array>
#include <string>
#include <utility>

#include "cutune/error.hpp"

namespace cutune {
namespace detail {

// These names are part of the database format: renaming one orphans every stored result of that status.
constexpr std::array<std::pair<Status, std::string_view>, 9> kStatusNames{{
    {Status::Ok, "ok"},
    {Status::CompileError, "compile_error"},
    {Status::LaunchError, "launch_error"},
    {Status::RuntimeError, "runtime_error"},
    {Status::WrongResult, "wrong_result"},
    {Status::Timeout, "timeout"},
    {Status::Unverified, "unverified"},
    {Status::Interrupted, "interrupted"},
    {Status::NoReference, "no_reference"},
}};

}  // namespace detail

std::string_view to_string(Status s) {
  for (const auto& [status, name] : detail::kStatusNames) {
    if (status == s) return name;
  }
  // Only reachable through a cast of an out-of-range integer; a name keeps logs readable anyway.
  return "unknown";
}

Status status_from_string(std::string_view s) {
  for (const auto& [status, name] : detail::kStatusNames) {
    if (name == s) return status;
  }
  throw DatabaseError("unknown result status '" + std::string(s) + "'");
}

std::vector<std::pair<std::string, std::string>> config_items(std::string_view config) {
  std::vector<std::pair<std::string, std::string>> items;
  std::size_t start = 0;
  while (start < config.size()) {
    std::size_t end = config.find(',', start);
    if (end == std::string_view::npos) end = config.size();
    const std::string_view item = config.substr(start, end - start);
    const std::size_t eq = item.find('=');
    items.emplace_back(std::string(item.substr(0, eq)), eq == std::string_view::npos ? "" : std::string(item.substr(eq + 1)));
    start = end + 1;
  }
  return items;
}

}  // namespace cutune
