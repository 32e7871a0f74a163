// Creation on the CPU backend: empty, full/zeros/ones, arange, rand/randn (Philox mapping),
// tensor()/from_host.
#include "test_util.hpp"

#include <xd/philox.hpp>

#include <cstring>

namespace {

using namespace xdt;
using xd::Dtype;

// ------------------------------------------------------------------ empty / full / zeros / ones

TEST(Empty, HasRequestedShapeDtypeAndContiguousStrides) {
  xd::Tensor t = xd::empty({2, 3, 5}, Dtype::bf16, dev());
  EXPECT_EQ(shape_of(t), (Shape{2, 3, 5}));
  EXPECT_EQ(strides_of(t), (Shape{15, 5, 1}));
  EXPECT_EQ(t.dtype(), Dtype::bf16);
  EXPECT_EQ(t.device(), xd::cpu());
  EXPECT_EQ(t.numel(), 30);
  EXPECT_EQ(t.nbytes(), 60u);
  EXPECT_TRUE(t.is_contiguous());
}

TEST(Empty, ZeroSizeDimHasNoElements) {
  xd::Tensor t = xd::empty({4, 0, 3}, Dtype::f32, dev());
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.nbytes(), 0u);
  EXPECT_TRUE(t.to_vector<float>().empty());
}

TEST(Full, FillsEveryNumericAndBoolDtype) {
  const std::vector<std::pair<Dtype, double>> cases = {
      {Dtype::f64, -2.5}, {Dtype::f32, 3.25}, {Dtype::f16, -0.125}, {Dtype::bf16, 96.0},
      {Dtype::i8, -7},    {Dtype::u8, 200},   {Dtype::i32, -123456}, {Dtype::i64, -1099511627776.0},
      {Dtype::boolean, 1}};
  for (const auto& [d, v] : cases) {
    SCOPED_TRACE(trace(d));
    xd::Tensor t = xd::full({3, 7}, v, d, dev());
    EXPECT_EQ(t.dtype(), d);
    EXPECT_TRUE(all_equal(read(t), std::vector<double>(21, v)));
  }
}

TEST(Full, FillsFp8Dtypes) {
  EXPECT_TRUE(all_equal(read(xd::full({5}, 448.0, Dtype::f8e4m3fn, dev())), std::vector<double>(5, 448.0)));
  EXPECT_TRUE(all_equal(read(xd::full({5}, -2.5, Dtype::f8e5m2, dev())), std::vector<double>(5, -2.5)));
}

TEST(Full, RoundsValueToTheDtype) {
  // 0.1 is not representable: f16 stores 0x2E66 = 0.0999755859375, bf16 0x3DCD = 0.10009765625.
  EXPECT_EQ(xd::full({1}, 0.1, Dtype::f16, dev()).item<xd::half>().bits, 0x2E66);
  EXPECT_EQ(xd::full({1}, 0.1, Dtype::bf16, dev()).item<xd::bfloat16>().bits, 0x3DCD);
  // Integers truncate toward zero, as a C++ cast and PyTorch do.
  EXPECT_EQ(xd::full({1}, 2.9, Dtype::i32, dev()).item<int32_t>(), 2);
  EXPECT_EQ(xd::full({1}, -2.9, Dtype::i32, dev()).item<int32_t>(), -2);
  EXPECT_TRUE(xd::full({1}, 0.5, Dtype::boolean, dev()).item<bool>());
}

TEST(Full, NanAndInfinityInFloatTensors) {
  EXPECT_TRUE(all_equal(read(xd::full({2}, kNaN, Dtype::f32, dev())), {kNaN, kNaN}));
  EXPECT_TRUE(all_equal(read(xd::full({2}, -kInf, Dtype::bf16, dev())), {-kInf, -kInf}));
}

TEST(Full, ZeroDimTensorHoldsOneElement) {
  xd::Tensor t = xd::full({}, 3.5, Dtype::f32, dev());
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(t.item<float>(), 3.5f);
}

TEST(Full, EmptyShapeIsFine) {
  xd::Tensor t = xd::full({0, 5}, 1.0, Dtype::f16, dev());
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(shape_of(t), (Shape{0, 5}));
}

TEST(Zeros, AreZeroInEveryDtype) {
  for (Dtype d : numeric_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(xd::zeros({4, 3}, d, dev())), std::vector<double>(12, 0.0)));
  }
  EXPECT_TRUE(all_equal(read(xd::zeros({3}, Dtype::boolean, dev())), {0, 0, 0}));
}

TEST(Ones, AreOneInEveryDtype) {
  for (Dtype d : numeric_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(xd::ones({2, 5}, d, dev())), std::vector<double>(10, 1.0)));
  }
}

TEST(Full, DefaultDtypeIsF32) {
  EXPECT_EQ(xd::zeros({2}, Dtype::f32, dev()).dtype(), Dtype::f32);
  EXPECT_EQ(xd::empty({2}).dtype(), Dtype::f32);
}

// ------------------------------------------------------------------ tensor / from_host

TEST(TensorFromHost, RoundTripsEveryDtype) {
  const std::vector<double> v = {0, 1, -2, 3, 100, -100, 7, 127};
  for (Dtype d : numeric_dtypes()) {
    SCOPED_TRACE(trace(d));
    std::vector<double> q;
    for (double x : v) q.push_back(quantize(x, d));
    EXPECT_TRUE(all_equal(read(make(v, {2, 4}, d)), q));
  }
}

TEST(TensorFromHost, BoolBytesOverload) {
  xd::Tensor t = xd::tensor(std::vector<uint8_t>{1, 0, 1}, {3}, Dtype::boolean, dev());
  EXPECT_EQ(t.dtype(), Dtype::boolean);
  EXPECT_TRUE(all_equal(read(t), {1, 0, 1}));
}

// ------------------------------------------------------------------ arange

TEST(Arange, IntegerEndCountsFromZeroAsI64) {
  xd::Tensor t = xd::arange(int64_t{5}, Dtype::i64, dev());
  EXPECT_EQ(t.dtype(), Dtype::i64);
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(Arange, FractionalStepF32) {
  xd::Tensor t = xd::arange(0.0, 1.0, 0.25, Dtype::f32, dev());
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f}));
}

TEST(Arange, LengthIsCeilOfRangeOverStep) {
  xd::Tensor t = xd::arange(0.0, 1.0, 0.3, Dtype::f64, dev());
  ASSERT_EQ(t.numel(), 4);
  EXPECT_TRUE(all_close(read(t), {0.0, 0.3, 0.6, 0.9}, Dtype::f64));
  EXPECT_EQ(xd::arange(1.0, 2.0, 0.5, Dtype::f32, dev()).numel(), 2);  // end is exclusive
}

TEST(Arange, NegativeStepCountsDown) {
  EXPECT_EQ(xd::arange(10.0, 0.0, -3.0, Dtype::i32, dev()).to_vector<int32_t>(), (std::vector<int32_t>{10, 7, 4, 1}));
  EXPECT_TRUE(all_close(read(xd::arange(1.0, -1.0, -0.5, Dtype::f32, dev())), {1.0, 0.5, 0.0, -0.5}, Dtype::f32));
}

TEST(Arange, EveryNumericDtype) {
  for (Dtype d : numeric_dtypes()) {
    SCOPED_TRACE(trace(d));
    xd::Tensor t = xd::arange(2.0, 14.0, 3.0, d, dev());
    EXPECT_EQ(t.dtype(), d);
    EXPECT_TRUE(all_equal(read(t), {2, 5, 8, 11}));
  }
  for (Dtype d : {Dtype::i8, Dtype::i32, Dtype::i64, Dtype::f16, Dtype::bf16}) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(xd::arange(-3.0, 3.0, 2.0, d, dev())), {-3, -1, 1}));
  }
}

TEST(Arange, HalfStepsInF16AndBf16) {
  for (Dtype d : {Dtype::f16, Dtype::bf16}) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(xd::arange(0.0, 3.0, 0.5, d, dev())), {0, 0.5, 1, 1.5, 2, 2.5}));
  }
}

TEST(Arange, EmptyWhenStartEqualsEnd) {
  EXPECT_EQ(xd::arange(3.0, 3.0, 1.0, Dtype::f32, dev()).numel(), 0);
  EXPECT_EQ(xd::arange(int64_t{0}, Dtype::i64, dev()).numel(), 0);
}

TEST(Arange, I64CountsExactlyBeyondDoublePrecision) {
  // 2^53 + i is not a double for odd i: the kernel must count in integers.
  const double start = 9007199254740992.0;
  xd::Tensor t = xd::arange(start, start + 6.0, 1.0, Dtype::i64, dev());
  const std::vector<int64_t> v = t.to_vector<int64_t>();
  ASSERT_EQ(v.size(), 6u);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], (int64_t{1} << 53) + i);
}

TEST(Arange, LongF32RangeHasNoAccumulatedDrift) {
  // PyTorch computes start + i * step, not a running sum.
  xd::Tensor t = xd::arange(0.0, 100.0, 0.1, Dtype::f32, dev());
  ASSERT_EQ(t.numel(), 1000);
  std::vector<double> want;
  for (int i = 0; i < 1000; ++i) want.push_back(static_cast<float>(i * 0.1));
  EXPECT_TRUE(all_close(read(t), want, Dtype::f32));
}

// ------------------------------------------------------------------ rand / randn (Philox)

// Expected rand values: element i uses block offset + i / P (see philox.hpp).
std::vector<float> philox_uniform_f32(uint64_t seed, uint64_t offset, size_t n) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) {
    const auto w = xd::philox::counter_block(seed, offset + i / 4);
    out[i] = xd::philox::uniform_f32(w[i % 4]);
  }
  return out;
}

std::vector<double> philox_uniform_f64(uint64_t seed, uint64_t offset, size_t n) {
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    const auto w = xd::philox::counter_block(seed, offset + i / 2);
    const size_t j = i % 2;
    out[i] = xd::philox::uniform_f64(w[2 * j], w[2 * j + 1]);
  }
  return out;
}

std::vector<double> philox_normal(uint64_t seed, uint64_t offset, size_t n) {
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    const auto w = xd::philox::counter_block(seed, offset + i / 2);
    const size_t j = i % 2;
    out[i] = xd::philox::normal_from(w[2 * j], w[2 * j + 1]);
  }
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(PhiloxReference, KnownAnswerFromTheRandom123Paper) {
  // Known-answer vectors of Philox4x32-10 (Random123's kat_vectors), so the reference mapping used
  // below is itself checked against outside data.
  const auto r = xd::philox::philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                                           {0xffffffffu, 0xffffffffu});
  EXPECT_EQ(r[0], 0x408f276du);
  EXPECT_EQ(r[1], 0x41c83b0eu);
  EXPECT_EQ(r[2], 0xa20bc7c6u);
  EXPECT_EQ(r[3], 0x6d5451fdu);
  const auto z = xd::philox::philox4x32_10({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(z, (xd::philox::block{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  const auto p = xd::philox::philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                                           {0xa4093822u, 0x299f31d0u});
  EXPECT_EQ(p, (xd::philox::block{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Rand, F32MatchesPhiloxMappingBitExact) {
  xd::Generator g(1234);
  xd::Tensor t = xd::rand({7, 143}, Dtype::f32, dev(), &g);  // 1001 elements: a partial last block
  EXPECT_TRUE(same_bits(t.to_vector<float>(), philox_uniform_f32(1234, 0, 1001)));
  EXPECT_EQ(g.offset(), 251u);  // ceil(1001 / 4)
}

TEST(Rand, SecondCallContinuesAtTheNextFreshBlock) {
  xd::Generator g(99);
  xd::Tensor a = xd::rand({5}, Dtype::f32, dev(), &g);  // blocks 0..1
  xd::Tensor b = xd::rand({6}, Dtype::f32, dev(), &g);  // blocks 2..3
  EXPECT_TRUE(same_bits(a.to_vector<float>(), philox_uniform_f32(99, 0, 5)));
  EXPECT_TRUE(same_bits(b.to_vector<float>(), philox_uniform_f32(99, 2, 6)));
  EXPECT_EQ(g.offset(), 4u);
}

TEST(Rand, StartsAtTheGeneratorOffsetAndUsesBothSeedWords) {
  const uint64_t seed = 0x123456789abcdef0ull;
  xd::Generator g(seed);
  g.set_offset((uint64_t{1} << 32) + 5);  // the block counter's high word matters too
  xd::Tensor t = xd::rand({37}, Dtype::f32, dev(), &g);
  EXPECT_TRUE(same_bits(t.to_vector<float>(), philox_uniform_f32(seed, (uint64_t{1} << 32) + 5, 37)));
}

TEST(Rand, F64MatchesPhiloxMappingBitExact) {
  xd::Generator g(42);
  xd::Tensor t = xd::rand({3, 67}, Dtype::f64, dev(), &g);
  const std::vector<double> got = t.to_vector<double>(), want = philox_uniform_f64(42, 0, 201);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)), 0);
  EXPECT_EQ(g.offset(), 101u);  // two f64 per block
}

TEST(Rand, F16AndBf16AreTheF32UniformsRounded) {
  for (Dtype d : {Dtype::f16, Dtype::bf16}) {
    SCOPED_TRACE(trace(d));
    xd::Generator g(7);
    xd::Tensor t = xd::rand({257}, d, dev(), &g);
    EXPECT_EQ(t.dtype(), d);
    std::vector<double> want;
    for (float u : philox_uniform_f32(7, 0, 257)) want.push_back(quantize(u, d));
    const auto got = read(t);
    EXPECT_TRUE(all_close(got, want, d));
    for (double u : got) {
      EXPECT_GE(u, 0.0);
      EXPECT_LE(u, 1.0);
    }
    EXPECT_EQ(g.offset(), 65u);
  }
}

TEST(Rand, ManualSeedMakesTheDefaultGeneratorReproducible) {
  xd::manual_seed(2024);
  const auto a = xd::rand({100}, Dtype::f32, dev()).to_vector<float>();
  xd::manual_seed(2024);
  const auto b = xd::rand({100}, Dtype::f32, dev()).to_vector<float>();
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_TRUE(same_bits(a, philox_uniform_f32(2024, 0, 100)));
}

TEST(Rand, ValuesAreInUnitIntervalAndNotConstant) {
  xd::Generator g(5);
  const auto v = xd::rand({4096}, Dtype::f32, dev(), &g).to_vector<float>();
  double sum = 0;
  for (float x : v) {
    ASSERT_GE(x, 0.0f);
    ASSERT_LT(x, 1.0f);
    sum += x;
  }
  EXPECT_NEAR(sum / 4096, 0.5, 0.03);
}

TEST(Rand, ZeroSizeConsumesNoBlocks) {
  xd::Generator g(3);
  EXPECT_EQ(xd::rand({0, 4}, Dtype::f32, dev(), &g).numel(), 0);
  EXPECT_EQ(g.offset(), 0u);
}

TEST(Randn, F32MatchesBoxMullerMapping) {
  xd::Generator g(777);
  xd::Tensor t = xd::randn({9, 111}, Dtype::f32, dev(), &g);  // 999 elements
  std::vector<double> want;
  for (double z : philox_normal(777, 0, 999)) want.push_back(static_cast<float>(z));
  EXPECT_TRUE(all_close(read(t), want, Tol{1e-5, 1e-5}));
  EXPECT_EQ(g.offset(), 500u);  // two per block
}

TEST(Randn, F64MatchesBoxMullerMapping) {
  xd::Generator g(778);
  xd::Tensor t = xd::randn({301}, Dtype::f64, dev(), &g);
  EXPECT_TRUE(all_close(read(t), philox_normal(778, 0, 301), Dtype::f64));
  EXPECT_EQ(g.offset(), 151u);
}

TEST(Randn, F16AndBf16AreTheNormalsRounded) {
  for (Dtype d : {Dtype::f16, Dtype::bf16}) {
    SCOPED_TRACE(trace(d));
    xd::Generator g(11);
    xd::Tensor t = xd::randn({64}, d, dev(), &g);
    std::vector<double> want;
    for (double z : philox_normal(11, 0, 64)) want.push_back(quantize(z, d));
    EXPECT_TRUE(all_close(read(t), want, d));
    EXPECT_EQ(g.offset(), 32u);
  }
}

TEST(Randn, HasStandardNormalMoments) {
  xd::Generator g(31337);
  const auto v = xd::randn({20000}, Dtype::f32, dev(), &g).to_vector<float>();
  double s = 0, s2 = 0;
  for (float x : v) {
    ASSERT_TRUE(std::isfinite(x));
    s += x;
    s2 += static_cast<double>(x) * x;
  }
  const double mean = s / 20000, var = s2 / 20000 - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, 1.0, 0.05);
}

TEST(Randn, SameSeedSameNumbers) {
  xd::Generator g1(5), g2(5);
  const auto a = xd::randn({50}, Dtype::f64, dev(), &g1).to_vector<double>();
  const auto b = xd::randn({50}, Dtype::f64, dev(), &g2).to_vector<double>();
  EXPECT_EQ(a, b);
}

}  // namespace
