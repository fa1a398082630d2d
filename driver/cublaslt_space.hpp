// The tuner's view of a cuBLASLt configuration family's space at a shape: which configurations cuBLASLt runs there (its
// algorithms' capability attributes and cublasLtMatmulAlgoCheck; the rest is removed before any is measured), and where
// the search starts: the heuristic's ranked answers read back as configurations, cuBLASLt's own choice first.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cutune/spec.hpp"

namespace cutune::detail {

/// The heuristic's first `most` answers at `shape` (the first first; split-K partial sums reduced in FP32 only) as
/// configurations of `spec`, a configuration family; an answer whose attributes the spec's values cannot express is
/// left out. Empty, with `why` set, when cuBLASLt or a device is missing or refuses the problem.
std::vector<Config> heuristic_start(const KernelSpec& spec, const Shape& shape, std::size_t most, std::string& why);

/// Whether cuBLASLt runs a configuration at `shape`. A rank family: its rank is below the number of answers the
/// heuristic gives there (for the configuration's reduction choice). A configuration family: the capabilities of its algorithm admit it (capability_refusal(),
/// read once per algorithm id; an id cublasLtMatmulAlgoInit refuses for the types admits nothing), and then
/// LtGemm::configure() accepts it there (cublasLtMatmulAlgoCheck, and the workspace it needs). An empty function, with
/// `why` set, when cuBLASLt or a device is missing: then every configuration is measured, and refused there.
std::function<bool(const Config&)> library_filter(const KernelSpec& spec, const Shape& shape, std::string& why);

}  // namespace cutune::detail
