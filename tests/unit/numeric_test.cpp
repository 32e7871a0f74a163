// The narrow float formats: known encodings, round-to-nearest-even, subnormals, overflow.
#include <xd/numeric.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

TEST(Half, EncodesKnownValues) {
  EXPECT_EQ(xd::half(1.0f).bits, 0x3c00);
  EXPECT_EQ(xd::half(-2.0f).bits, 0xc000);
  EXPECT_EQ(xd::half(65504.0f).bits, 0x7bff);
  EXPECT_EQ(xd::half(6.103515625e-05f).bits, 0x0400);   // smallest normal
  EXPECT_EQ(xd::half(5.960464477539063e-08f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(xd::half(0.0f).bits, 0x0000);
  EXPECT_EQ(xd::half(-0.0f).bits, 0x8000);
}

TEST(Half, RoundsTiesToEven) {
  EXPECT_EQ(xd::half(1.0f + 1.0f / 2048).bits, 0x3c00);        // halfway to 0x3c01: stays even
  EXPECT_EQ(xd::half(1.0f + 3.0f / 2048).bits, 0x3c02);        // halfway to 0x3c02 from 0x3c01: even
  EXPECT_EQ(xd::half(65519.0f).bits, 0x7bff);                  // below the rounding boundary
  EXPECT_EQ(xd::half(65520.0f).bits, 0x7c00);                  // rounds to infinity
}

TEST(Half, KeepsInfinityAndNaN) {
  EXPECT_EQ(xd::half(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_TRUE(std::isnan(static_cast<float>(xd::half(std::nanf("")))));
}

TEST(Half, EveryFiniteBitPatternRoundTrips) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const auto h = xd::half::from_bits(static_cast<uint16_t>(b));
    const float f = h;
    if (std::isnan(f)) continue;
    EXPECT_EQ(xd::half(f).bits, b) << std::hex << b;
  }
}

TEST(BFloat16, EncodesAndRoundsToNearestEven) {
  EXPECT_EQ(xd::bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(xd::bfloat16(-3.0f).bits, 0xc040);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(xd::bfloat16(1.0f + 1.0f / 256).bits, 0x3f80);
  EXPECT_EQ(xd::bfloat16(1.0f + 3.0f / 256).bits, 0x3f82);
  EXPECT_TRUE(std::isnan(static_cast<float>(xd::bfloat16(std::nanf("")))));
  EXPECT_EQ(static_cast<float>(xd::bfloat16::from_bits(0x4049)), 3.140625f);
}

TEST(Float8E4M3FN, EncodesTheOcpTable) {
  EXPECT_EQ(xd::float8_e4m3fn(1.0f).bits, 0x38);
  EXPECT_EQ(xd::float8_e4m3fn(448.0f).bits, 0x7e);           // largest finite
  EXPECT_EQ(xd::float8_e4m3fn(-448.0f).bits, 0xfe);
  EXPECT_EQ(xd::float8_e4m3fn(0.001953125f).bits, 0x01);     // 2^-9, smallest subnormal
  EXPECT_TRUE(std::isnan(static_cast<float>(xd::float8_e4m3fn::from_bits(0x7f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(xd::float8_e4m3fn::from_bits(0xff))));
  EXPECT_EQ(static_cast<float>(xd::float8_e4m3fn::from_bits(0x7e)), 448.0f);
}

TEST(Float8E4M3FN, OverflowIsNaNUnlessSaturating) {
  EXPECT_EQ(xd::float8_e4m3fn(480.0f).bits, 0x7f);  // rounds past 448: no infinity in e4m3fn
  EXPECT_EQ(xd::float8_e4m3fn(464.0f).bits, 0x7e);  // halfway 448/480: ties to even (448)
  EXPECT_EQ(xd::float8_e4m3fn::saturate(1e6f).bits, 0x7e);
  EXPECT_EQ(xd::float8_e4m3fn::saturate(-std::numeric_limits<float>::infinity()).bits, 0xfe);
}

TEST(Float8E5M2, EncodesTheOcpTable) {
  EXPECT_EQ(xd::float8_e5m2(1.0f).bits, 0x3c);
  EXPECT_EQ(xd::float8_e5m2(57344.0f).bits, 0x7b);
  EXPECT_EQ(xd::float8_e5m2(std::numeric_limits<float>::infinity()).bits, 0x7c);
  EXPECT_EQ(xd::float8_e5m2(65536.0f).bits, 0x7c);  // overflow: infinity
  EXPECT_EQ(xd::float8_e5m2::saturate(65536.0f).bits, 0x7b);
  EXPECT_EQ(static_cast<float>(xd::float8_e5m2::from_bits(0x01)), 1.52587890625e-05f);  // 2^-16
}

TEST(Float8, All256BitPatternsRoundTripExceptNaN) {
  for (uint32_t b = 0; b < 256; ++b) {
    const float f4 = xd::float8_e4m3fn::from_bits(static_cast<uint8_t>(b));
    if (!std::isnan(f4)) {
      EXPECT_EQ(xd::float8_e4m3fn(f4).bits, b) << "e4m3fn " << b;
    }
    const float f5 = xd::float8_e5m2::from_bits(static_cast<uint8_t>(b));
    if (!std::isnan(f5)) {
      EXPECT_EQ(xd::float8_e5m2(f5).bits, b) << "e5m2 " << b;
    }
  }
}

}  // namespace
