// Float to bfloat16, half and FP8 bits on the host, rounding to nearest even like __float2bfloat16_rn / __float2half_rn
// and CUDA's saturating FP8 conversions.
#include "float16.hpp"

#include <cmath>
#include <cstring>

namespace cutune::detail {

std::uint16_t bfloat16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

std::uint16_t float16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (a >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and up round to infinity
  if (a < 0x38800000u) {
    // Below 2^-14 a half is m * 2^-24 (subnormal, or 2^-14 itself when m reaches 1024); the scaling is exact, and
    // nearbyint rounds half to even in the default rounding mode.
    return sign | static_cast<std::uint16_t>(std::nearbyint(std::fabs(f) * 16777216.0f));
  }
  // To nearest even at 10 fraction bits, then rebias the exponent from 127 to 15 (a carry into it is right).
  const std::uint32_t rounded = a + 0xfffu + ((a >> 13) & 1u);
  return sign | static_cast<std::uint16_t>((rounded - 0x38000000u) >> 13);
}

namespace {

struct Float8Format {
  int mantissa_bits;
  int bias;
  double largest;  // the largest finite value
  std::uint8_t largest_bits;
};
constexpr Float8Format format_of(Float8 f) {
  return f == Float8::E4M3 ? Float8Format{3, 7, 448.0, 0x7e} : Float8Format{2, 15, 57344.0, 0x7b};
}

}  // namespace

std::uint8_t float8_bits(float f, Float8 format) {
  const Float8Format fmt = format_of(format);
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  if (std::isnan(f)) return sign | 0x7f;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= fmt.largest) return sign | fmt.largest_bits;
  const int min_exponent = 1 - fmt.bias;  // of the smallest normal value
  const double step = std::ldexp(1.0, min_exponent - fmt.mantissa_bits);
  if (a < std::ldexp(1.0, min_exponent)) {
    // A subnormal is q * step (q reaching 2^mantissa_bits is the smallest normal, whose bits are the same number);
    // the scaling is exact, and nearbyint rounds half to even in the default rounding mode.
    return sign | static_cast<std::uint8_t>(std::nearbyint(a / step));
  }
  int exponent = 0;
  const double fraction = std::frexp(a, &exponent);  // a = fraction * 2^exponent, fraction in [0.5, 1)
  --exponent;                                         // a = (2 * fraction) * 2^exponent, 2 * fraction in [1, 2)
  const double scale = std::ldexp(1.0, fmt.mantissa_bits);
  auto q = static_cast<int>(std::nearbyint((2.0 * fraction - 1.0) * scale));
  if (q == static_cast<int>(scale)) q = 0, ++exponent;  // rounded up to the next power of two
  const double value = (1.0 + q / scale) * std::ldexp(1.0, exponent);
  if (value > fmt.largest) return sign | fmt.largest_bits;  // rounded past it (e4m3: into the NaN code)
  return sign | static_cast<std::uint8_t>(((exponent + fmt.bias) << fmt.mantissa_bits) | q);
}

float float8_value(std::uint8_t bits, Float8 format) {
  const Float8Format fmt = format_of(format);
  const double sign = (bits & 0x80) != 0 ? -1.0 : 1.0;
  const int exponent_field = (bits & 0x7f) >> fmt.mantissa_bits;
  const int q = bits & ((1 << fmt.mantissa_bits) - 1);
  const int top = (1 << (7 - fmt.mantissa_bits)) - 1;  // the all-ones exponent field
  if (format == Float8::E4M3 && (bits & 0x7f) == 0x7f) return std::nanf("");
  if (format == Float8::E5M2 && exponent_field == top) return q == 0 ? static_cast<float>(sign * INFINITY) : std::nanf("");
  const double scale = std::ldexp(1.0, fmt.mantissa_bits);
  if (exponent_field == 0) return static_cast<float>(sign * q * std::ldexp(1.0, 1 - fmt.bias - fmt.mantissa_bits));
  return static_cast<float>(sign * (1.0 + q / scale) * std::ldexp(1.0, exponent_field - fmt.bias));
}

}  // namespace cutune::detail
