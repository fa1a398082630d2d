// Architecture-specific targets (sm_90a, sm_100a, ...): which configurations need one, what to compile them for,
// and which GPUs can run them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/spec.hpp"

namespace cutune {

/// The compute capability an architecture name stands for, as major * 10 + minor: "sm_90" and "sm_90a" give 90,
/// "sm_100a" 100, "sm_103a" 103; nullopt for a name that is not sm_<digits> or sm_<digits>a.
std::optional<int> arch_compute_capability(std::string_view arch);
/// Whether `arch` is an architecture-specific name (sm_<digits>a).
bool is_arch_specific(std::string_view arch);

/// The targets whose condition holds for a configuration, in the spec's order; `scope` as KernelSpec::scope().
std::vector<std::string> required_targets(const KernelSpec& spec, const std::vector<Value>& scope);
std::vector<std::string> required_targets(const KernelSpec& spec, const Config& config);

/// Why a configuration cannot run on a GPU of compute capability `cc` (major * 10 + minor) because of the targets it
/// needs: an sm_XYa target runs on compute capability X.Y only, and no GPU has two of them. Nullopt when it can run.
std::optional<std::string> target_unavailable(const KernelSpec& spec, const std::vector<Value>& scope, int cc);

/// What a configuration compiles for on a GPU of architecture `device_arch` ("sm_90"): the target it needs when
/// there is one, else `device_arch`. The cubin cache keys on this name, so the two never share an entry.
std::string compile_arch(const KernelSpec& spec, const Config& config, const std::string& device_arch);

}  // namespace cutune
