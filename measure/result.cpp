// The printable names of result statuses, as they are stored in the database and shown by the CLI.
#include "cutune/result.hpp"

#include <array>
#include <string>
#include <utility>

#include "cutune/error.hpp"

namespace cutune {
namespace detail {

// These names are part of the database format: renaming one orphans every stored result of that status.
constexpr std::array<std::pair<Status, std::string_view>, 6> kStatusNames{{
    {Status::Ok, "ok"},
    {Status::CompileError, "compile_error"},
    {Status::LaunchError, "launch_error"},
    {Status::RuntimeError, "runtime_error"},
    {Status::WrongResult, "wrong_result"},
    {Status::Timeout, "timeout"},
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

}  // namespace cutune
