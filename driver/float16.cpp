// Float to bfloat16 and half bits on the host, rounding to nearest even like __float2bfloat16_rn / __float2half_rn.
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

}  // namespace cutune::detail
