// Host conversions of floats to the bits of CUDA's 16- and 8-bit floats, for scalar arguments of those types.
#pragma once

#include <cstdint>

namespace cutune::detail {

/// `f` rounded to nearest even in bfloat16 (__nv_bfloat16: the top half of a float); a NaN stays a quiet NaN.
std::uint16_t bfloat16_bits(float f);
/// `f` rounded to nearest even in IEEE half precision (__half), subnormals included; beyond 65520, infinity.
std::uint16_t float16_bits(float f);

/// The two 8-bit float formats (OCP FP8): E4M3 (bias 7, no infinities, 0x7f NaN, largest 448) and E5M2 (bias 15,
/// largest finite 57344).
enum class Float8 { E4M3, E5M2 };
/// `f` rounded to nearest even in `format`, subnormals included; beyond the largest finite value (infinities too), that
/// value with its sign, as CUDA's __nv_fp8_e4m3 / __nv_fp8_e5m2 constructors saturate; a NaN, 0x7f with its sign.
std::uint8_t float8_bits(float f, Float8 format);
/// The value of 8-bit float `bits` in `format` (NaN for its NaN codes, e5m2's infinities as infinities).
float float8_value(std::uint8_t bits, Float8 format);

}  // namespace cutune::detail
