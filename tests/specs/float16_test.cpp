// Host tests of the float to bfloat16 / half / FP8 conversions used for 16- and 8-bit scalar arguments.
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

TEST(Float8Bits, E4M3RoundsToNearestEvenAndSaturates) {
  const auto e4m3 = [](float f) { return static_cast<int>(float8_bits(f, Float8::E4M3)); };
  EXPECT_EQ(e4m3(1.0f), 0x38);
  EXPECT_EQ(e4m3(0.5f), 0x30);
  EXPECT_EQ(e4m3(-2.0f), 0xc0);
  EXPECT_EQ(e4m3(0.0f), 0x00);
  EXPECT_EQ(e4m3(-0.0f), 0x80);
  EXPECT_EQ(e4m3(448.0f), 0x7e);                  // the largest finite value
  EXPECT_EQ(e4m3(460.0f), 0x7e);                  // rounds to 448
  EXPECT_EQ(e4m3(470.0f), 0x7e);                  // would round past it: saturated
  EXPECT_EQ(e4m3(1e30f), 0x7e);
  EXPECT_EQ(e4m3(-std::numeric_limits<float>::infinity()), 0xfe);
  EXPECT_EQ(e4m3(std::nanf("")) & 0x7f, 0x7f);
  EXPECT_EQ(e4m3(0.001953125f), 0x01);            // 2^-9, the smallest subnormal
  EXPECT_EQ(e4m3(0.015625f), 0x08);               // 2^-6, the smallest normal
  EXPECT_EQ(e4m3(0.0009765625f), 0x00);           // 2^-10: half the smallest subnormal, to even (zero)
  EXPECT_EQ(e4m3(1.0625f), 0x38);                 // halfway between 1 and 1.125: to even
  EXPECT_EQ(e4m3(1.1875f), 0x3a);                 // halfway between 1.125 and 1.25: to even
  EXPECT_EQ(e4m3(1.07f), 0x39);                   // nearer 1.125
}

TEST(Float8Bits, E5M2RoundsToNearestEvenAndSaturates) {
  const auto e5m2 = [](float f) { return static_cast<int>(float8_bits(f, Float8::E5M2)); };
  EXPECT_EQ(e5m2(1.0f), 0x3c);
  EXPECT_EQ(e5m2(-1.5f), 0xbe);
  EXPECT_EQ(e5m2(57344.0f), 0x7b);
  EXPECT_EQ(e5m2(1e9f), 0x7b);
  EXPECT_EQ(e5m2(std::numeric_limits<float>::infinity()), 0x7b);
  EXPECT_EQ(e5m2(0.0000152587890625f), 0x01);     // 2^-16, the smallest subnormal
  EXPECT_EQ(e5m2(1.125f), 0x3c);                  // halfway between 1 and 1.25: to even
}

TEST(Float8Bits, EveryCodeRoundTrips) {
  for (const Float8 format : {Float8::E4M3, Float8::E5M2}) {
    for (int bits = 0; bits < 256; ++bits) {
      const float v = float8_value(static_cast<std::uint8_t>(bits), format);
      if (std::isnan(v) || std::isinf(v)) continue;
      EXPECT_EQ(static_cast<int>(float8_bits(v, format)), bits) << "format " << static_cast<int>(format) << " value " << v;
    }
  }
  EXPECT_EQ(float8_value(0x7e, Float8::E4M3), 448.0f);
  EXPECT_EQ(float8_value(0x7b, Float8::E5M2), 57344.0f);
  EXPECT_TRUE(std::isinf(float8_value(0x7c, Float8::E5M2)));
  EXPECT_TRUE(std::isnan(float8_value(0xff, Float8::E4M3)));
}

}  // namespace
}  // namespace cutune::detail
