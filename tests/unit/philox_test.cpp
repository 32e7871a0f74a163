// Philox4x32-10 against the known-answer vectors published with Random123.
#include <xd/philox.hpp>

#include <gtest/gtest.h>

namespace {

using xd::philox::block;

TEST(Philox, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(xd::philox::philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (block{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(xd::philox::philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
            (block{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(xd::philox::philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
            (block{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox, CounterBlockUsesIndexAsCounterAndSeedAsKey) {
  const uint64_t seed = 0x0123456789abcdefull, index = 0xfedcba9876543210ull;
  EXPECT_EQ(xd::philox::counter_block(seed, index),
            xd::philox::philox4x32_10({0x76543210u, 0xfedcba98u, 0, 0}, {0x89abcdefu, 0x01234567u}));
}

TEST(Philox, UniformsStayInTheirHalfOpenRanges) {
  EXPECT_EQ(xd::philox::uniform_f32(0), 0.0f);
  EXPECT_LT(xd::philox::uniform_f32(0xffffffffu), 1.0f);
  EXPECT_LT(xd::philox::uniform_f64(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_TRUE(std::isfinite(xd::philox::normal_from(0xffffffffu, 0)));  // u1 = 1 - 2^-24 + 2^-24 > 0
  EXPECT_TRUE(std::isfinite(xd::philox::normal_from(0, 0)));
}

}  // namespace
