// Where cutune's own programs are: the worker that measures in isolation, and `tune` (which the runtime runs when
// it tunes on demand).
#pragma once

#include <string>
#include <string_view>

namespace cutune::detail {

/// The program `name` of cutune's: the path in the environment variable `env_variable` when set, else beside the
/// running program (or one folder up, or in ../libexec/cutune), else where the build or the installation put it;
/// empty when none of them is an executable file.
std::string find_program(std::string_view name, const char* env_variable);

}  // namespace cutune::detail
