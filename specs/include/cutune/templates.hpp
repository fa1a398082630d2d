// The built-in kernel templates, embedded at build time, and loading a kernel by name or spec path.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/spec.hpp"

namespace cutune {

/// Names of the built-in kernels, sorted.
std::vector<std::string> builtin_kernels();

/// A built-in kernel by name, or a user's spec file when `name_or_path` names a .json file. When the
/// environment variable CUTUNE_TEMPLATES_DIR is set, built-in names are read from that folder (and its subfolders) instead of the
/// copies embedded in the binary (for developing templates without rebuilding). Throws InputError for an
/// unknown kernel, naming the known ones, and SpecError for a malformed spec.
KernelSpec load_kernel(std::string_view name_or_path);

/// A user's spec file, whatever its name ends in (`tune --spec`). Throws InputError when it does not exist and
/// SpecError for a malformed spec.
KernelSpec load_spec_file(const std::filesystem::path& spec_file);

}  // namespace cutune
