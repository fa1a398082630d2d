// Parameters that change what is computed, named by the user (the command line's --follow, cutune.tune's follow).
#pragma once

#include <string>
#include <vector>

#include "cutune/spec.hpp"

namespace cutune {

/// The spec with `names` (parameters of its) added to its reference's "follow": each configuration is then verified
/// against the reference configuration at its own values of them. Rebuilt from its text as if it named them itself,
/// so its version changes; unchanged when every name is followed already. Throws InputError for a name that is no
/// parameter, or when the reference is a kernel rather than a configuration.
KernelSpec follow_parameters(const KernelSpec& spec, const std::vector<std::string>& names);

}  // namespace cutune
