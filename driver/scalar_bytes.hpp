// A scalar kernel argument as the bytes a launch passes: the workbench, host pipelines and the runtime share it.
#pragma once

#include <array>

#include "cutune/spec.hpp"

namespace cutune::detail {

/// Little-endian bytes of a scalar argument of the given type.
std::array<unsigned char, 8> scalar_bytes(ElementType type, const Value& v);

}  // namespace cutune::detail
