// Host tests of the float to bfloat16 / half conversions used for 16-bit scalar arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "driver/float16.hpp"

namespace cutune::detail {
namespace {

TEST(Float16Bits, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(bfloat16_bits(1.0f), 0x3f80u);
  EXPECT_EQ(bfloat16_bits(-2.0f), 0xc000u);
  EXPECT_EQ(bfloat16_bits(1.00390625f), 0x3f80u);  // 1 + 2^-8: halfway, to the even 1.0
  EXPECT_EQ(bfloat16_bits(1.01171875f), 0x3f82u);  // 1 + 3 * 2^-8: halfway, to the even 1 + 2^-6
  EXPECT_EQ(bfloat16_bits(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81u);  // just above halfway
  EXPECT_EQ(bfloat16_bits(std::numeric_limits<float>::infinity()), 0x7f80u);
  EXPECT_EQ(bfloat16_bits(3.4e38f), 0x7f80u);  // rounds past the largest bfloat16
  const std::uint16_t nan = bfloat16_bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7f80u, 0x7f80u);
  EXPECT_NE(nan & 0x007fu, 0u);
}

TEST(Float16Bits, HalfRoundsToNearestEvenWithSubnormals) {
  EXPECT_EQ(float16_bits(1.0f), 0x3c00u);
  EXPECT_EQ(float16_bits(-2.0f), 0xc000u);
  EXPECT_EQ(float16_bits(0.1f), 0x2e66u);
  EXPECT_EQ(float16_bits(1.0f / 3.0f), 0x3555u);
  EXPECT_EQ(float16_bits(1.0f + 0x1p-11f), 0x3c00u);         // halfway, to even
  EXPECT_EQ(float16_bits(1.0f + 3 * 0x1p-11f), 0x3c02u);     // halfway, to even
  EXPECT_EQ(float16_bits(65504.0f), 0x7bffu);                // the largest half
  EXPECT_EQ(float16_bits(65519.0f), 0x7bffu);
  EXPECT_EQ(float16_bits(65520.0f), 0x7c00u);                // halfway to 65536: infinity
  EXPECT_EQ(float16_bits(0x1p-14f), 0x0400u);                // the smallest normal
  EXPECT_EQ(float16_bits(0x1p-24f), 0x0001u);                // the smallest subnormal
  EXPECT_EQ(float16_bits(0x1p-25f), 0x0000u);                // halfway to it: to even, zero
  EXPECT_EQ(float16_bits(3 * 0x1p-25f), 0x0002u);            // 1.5 units: to even, 2
  EXPECT_EQ(float16_bits(-0x1p-24f), 0x8001u);
  EXPECT_EQ(float16_bits(0x1p-14f - 0x1p-26f), 0x0400u);     // rounds up into the normals
  EXPECT_EQ(float16_bits(std::numeric_limits<float>::infinity()), 0x7c00u);
  const std::uint16_t nan = float16_bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00u, 0x7c00u);
  EXPECT_NE(nan & 0x03ffu, 0u);
}

}  // namespace
}  // namespace cutune::detail
