// Host conversions of floats to the bits of CUDA's 16-bit floats, for scalar arguments of those types.
#pragma once

#include <cstdint>

namespace cutune::detail {

/// `f` rounded to nearest even in bfloat16 (__nv_bfloat16: the top half of a float); a NaN stays a quiet NaN.
std::uint16_t bfloat16_bits(float f);
/// `f` rounded to nearest even in IEEE half precision (__half), subnormals included; beyond 65520, infinity.
std::uint16_t float16_bits(float f);

}  // namespace cutune::detail
