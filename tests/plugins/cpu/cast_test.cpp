// Copies and casts on the CPU backend: to(Dtype) between every pair of dtypes, the narrow float
// formats bit by bit (decoded here by independent formulas), integer wraparound, bool, and
// copy_/contiguous/clone with strided and broadcast operands.
#include "test_util.hpp"

#include <cstring>

namespace {

using namespace xdt;
using xd::Dtype;

// ------------------------------------------------------------------ independent decoders

double sign_of(bool neg, double v) { return neg ? -v : v; }

double decode_e4m3fn(uint8_t b) {
  const int e = (b >> 3) & 15, m = b & 7;
  if (e == 15 && m == 7) return kNaN;
  const double v = e == 0 ? std::ldexp(m, -9) : std::ldexp(1.0 + m / 8.0, e - 7);
  return sign_of(b & 0x80, v);
}

double decode_e5m2(uint8_t b) {
  const int e = (b >> 2) & 31, m = b & 3;
  if (e == 31) return m != 0 ? kNaN : sign_of(b & 0x80, kInf);
  const double v = e == 0 ? std::ldexp(m, -16) : std::ldexp(1.0 + m / 4.0, e - 15);
  return sign_of(b & 0x80, v);
}

double decode_f16(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  if (e == 31) return m != 0 ? kNaN : sign_of(h & 0x8000, kInf);
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1.0 + m / 1024.0, e - 15);
  return sign_of(h & 0x8000, v);
}

double decode_bf16(uint16_t h) {
  const int e = (h >> 7) & 255, m = h & 127;
  if (e == 255) return m != 0 ? kNaN : sign_of(h & 0x8000, kInf);
  const double v = e == 0 ? std::ldexp(m, -133) : std::ldexp(1.0 + m / 128.0, e - 127);
  return sign_of(h & 0x8000, v);
}

// Signed zeros are compared too: -0.0 must stay negative.
::testing::AssertionResult same_values_and_signs(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (size_t i = 0; i < got.size(); ++i) {
    const bool both_nan = std::isnan(got[i]) && std::isnan(want[i]);
    if (!both_nan && (got[i] != want[i] || std::signbit(got[i]) != std::signbit(want[i])))
      return ::testing::AssertionFailure() << "pattern " << i << ": got " << got[i] << ", expected " << want[i];
  }
  return ::testing::AssertionSuccess();
}

template <class F8>
xd::Tensor all_fp8_patterns() {
  std::vector<F8> v(256);
  for (int i = 0; i < 256; ++i) v[static_cast<size_t>(i)] = F8::from_bits(static_cast<uint8_t>(i));
  return xd::tensor(v, {16, 16}, dev());
}

template <class F8>
void check_fp8_patterns(double (*decode)(uint8_t)) {
  const xd::Tensor t = all_fp8_patterns<F8>();
  std::vector<double> want(256);
  for (int i = 0; i < 256; ++i) want[static_cast<size_t>(i)] = decode(static_cast<uint8_t>(i));
  // Every wider float type holds every fp8 value exactly.
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(same_values_and_signs(read(t.to(d)), want));
  }
  // f8 -> f32 -> f8 gives back the same bits; NaNs stay NaN.
  const std::vector<F8> back = t.to(Dtype::f32).to(xd::dtype_of<F8>()).template to_vector<F8>();
  ASSERT_EQ(back.size(), 256u);
  for (int i = 0; i < 256; ++i) {
    const double w = want[static_cast<size_t>(i)];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(back[static_cast<size_t>(i)]))) << "pattern " << i;
    } else {
      EXPECT_EQ(back[static_cast<size_t>(i)].bits, i) << "pattern " << i;
    }
  }
}

TEST(CastFp8, E4m3fnEveryBitPatternDecodesAndRoundTrips) { check_fp8_patterns<xd::float8_e4m3fn>(decode_e4m3fn); }

TEST(CastFp8, E5m2EveryBitPatternDecodesAndRoundTrips) { check_fp8_patterns<xd::float8_e5m2>(decode_e5m2); }

TEST(CastFp8, KnownPatternsDecodeToLiteralValues) {
  // e4m3fn: 0x7E is the largest finite (448), 0x01 the smallest subnormal 2^-9, 0x08 the smallest
  // normal 2^-6. e5m2: 0x7B is the largest finite (57344), 0x7C infinity, 0x04 the smallest normal.
  std::vector<xd::float8_e4m3fn> a;
  for (uint8_t b : {0x7E, 0x01, 0x38, 0x08, 0xFE, 0x80, 0x7F}) a.push_back(xd::float8_e4m3fn::from_bits(b));
  EXPECT_TRUE(same_values_and_signs(read(xd::tensor(a, {7}, dev()).to(Dtype::f32)),
                                    {448.0, std::ldexp(1.0, -9), 1.0, std::ldexp(1.0, -6), -448.0, -0.0, kNaN}));
  std::vector<xd::float8_e5m2> b;
  for (uint8_t x : {0x7B, 0x3C, 0x01, 0x7C, 0xFC, 0x04, 0x7E}) b.push_back(xd::float8_e5m2::from_bits(x));
  EXPECT_TRUE(same_values_and_signs(read(xd::tensor(b, {7}, dev()).to(Dtype::f64)),
                                    {57344.0, 1.0, std::ldexp(1.0, -16), kInf, -kInf, std::ldexp(1.0, -14), kNaN}));
}

TEST(CastFp8, F32ToE4m3fnRoundsToNearestEvenAndOverflowsToNan) {
  const std::vector<double> in = {1.0, -1.5, 448.0, 464.0, 470.0, 1000.0, -1000.0, std::ldexp(1.0, -9),
                                  std::ldexp(1.0, -10), 3 * std::ldexp(1.0, -10), std::ldexp(1.0, -6), kInf, kNaN};
  const std::vector<uint8_t> want = {0x38, 0xBC, 0x7E, 0x7E, 0x7F, 0x7F, 0xFF, 0x01, 0x00, 0x02, 0x08, 0x7F, 0x7F};
  const auto got = make(in, {13}, Dtype::f32).to(Dtype::f8e4m3fn).to_vector<xd::float8_e4m3fn>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == 0x7F || want[i] == 0xFF)
      EXPECT_TRUE(std::isnan(static_cast<float>(got[i]))) << "input " << in[i];
    else
      EXPECT_EQ(got[i].bits, want[i]) << "input " << in[i];
  }
}

TEST(CastFp8, F32ToE5m2RoundsToNearestEvenAndOverflowsToInf) {
  const std::vector<double> in = {1.0, -1.5, 57344.0, 61440.0, 1e6, -1e6, std::ldexp(1.0, -16), std::ldexp(1.0, -17),
                                  1.125, 1.375};
  const std::vector<uint8_t> want = {0x3C, 0xBE, 0x7B, 0x7C, 0x7C, 0xFC, 0x01, 0x00, 0x3C, 0x3E};
  const auto got = make(in, {10}, Dtype::f32).to(Dtype::f8e5m2).to_vector<xd::float8_e5m2>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].bits, want[i]) << "input " << in[i];
}

// ------------------------------------------------------------------ f16 / bf16

TEST(CastF16, EveryBitPatternDecodesExactlyAndRoundTrips) {
  std::vector<xd::half> v(65536);
  std::vector<double> want(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    v[i] = xd::half::from_bits(static_cast<uint16_t>(i));
    want[i] = decode_f16(static_cast<uint16_t>(i));
  }
  const xd::Tensor t = xd::tensor(v, {256, 256}, dev());
  EXPECT_TRUE(same_values_and_signs(read(t.to(Dtype::f32)), want));
  EXPECT_TRUE(same_values_and_signs(read(t.to(Dtype::f64)), want));
  const auto back = t.to(Dtype::f32).to(Dtype::f16).to_vector<xd::half>();
  for (uint32_t i = 0; i < 65536; ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(static_cast<float>(back[i]))) << i;
    else
      ASSERT_EQ(back[i].bits, i);
  }
}

TEST(CastBf16, EveryBitPatternDecodesExactlyAndRoundTrips) {
  std::vector<xd::bfloat16> v(65536);
  std::vector<double> want(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    v[i] = xd::bfloat16::from_bits(static_cast<uint16_t>(i));
    want[i] = decode_bf16(static_cast<uint16_t>(i));
  }
  const xd::Tensor t = xd::tensor(v, {65536}, dev());
  EXPECT_TRUE(same_values_and_signs(read(t.to(Dtype::f32)), want));
  EXPECT_TRUE(same_values_and_signs(read(t.to(Dtype::f64)), want));
  const auto back = t.to(Dtype::f64).to(Dtype::bf16).to_vector<xd::bfloat16>();
  for (uint32_t i = 0; i < 65536; ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(static_cast<float>(back[i]))) << i;
    else
      ASSERT_EQ(back[i].bits, i);
  }
}

TEST(CastF16, F32RoundsToNearestEvenWithSubnormalsAndOverflow) {
  const double t11 = std::ldexp(1.0, -11), t24 = std::ldexp(1.0, -24);
  const std::vector<double> in = {1.0, 65504.0, 65519.0, 65520.0, -1e6, 1e-8, t24, t24 / 2, 3 * t24 / 2,
                                  1 + t11, 1 + 3 * t11, -0.0, 0.1};
  const std::vector<uint16_t> want = {0x3C00, 0x7BFF, 0x7BFF, 0x7C00, 0xFC00, 0x0000, 0x0001, 0x0000, 0x0002,
                                      0x3C00, 0x3C02, 0x8000, 0x2E66};
  const auto got = make(in, {13}, Dtype::f32).to(Dtype::f16).to_vector<xd::half>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].bits, want[i]) << "input " << in[i];
  EXPECT_TRUE(std::isnan(static_cast<float>(make({kNaN}, {1}, Dtype::f32).to(Dtype::f16).item<xd::half>())));
}

TEST(CastBf16, F32RoundsToNearestEvenAndOverflowsToInf) {
  const double t8 = std::ldexp(1.0, -8);
  const std::vector<double> in = {1.0, 1 + t8, 1 + 3 * t8, -2.0, 3.4e38, -0.0, 0.1};
  const std::vector<uint16_t> want = {0x3F80, 0x3F80, 0x3F82, 0xC000, 0x7F80, 0x8000, 0x3DCD};
  const auto got = make(in, {7}, Dtype::f32).to(Dtype::bf16).to_vector<xd::bfloat16>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].bits, want[i]) << "input " << in[i];
  EXPECT_TRUE(std::isnan(static_cast<float>(make({kNaN}, {1}, Dtype::f32).to(Dtype::bf16).item<xd::bfloat16>())));
}

TEST(CastF16, ToBf16AndBackKeepsRepresentableValuesAndOverflows) {
  // 1e10 fits bf16 but not f16.
  EXPECT_TRUE(all_equal(read(make({1e10, -1e10, 0.5}, {3}, Dtype::bf16).to(Dtype::f16)), {kInf, -kInf, 0.5}));
  EXPECT_TRUE(all_equal(read(make({65504.0, 1.0}, {2}, Dtype::f16).to(Dtype::bf16)), {65536.0, 1.0}));
}

TEST(CastF64, ToF32RoundsToNearestEven) {
  const double t24 = std::ldexp(1.0, -24);
  const auto got = make({1 + t24, 1 + 3 * t24, 1e300, -1e300, 1e-50}, {5}, Dtype::f64).to(Dtype::f32).to_vector<float>();
  EXPECT_EQ(got, (std::vector<float>{1.0f, 1.0f + static_cast<float>(4 * t24), HUGE_VALF, -HUGE_VALF, 0.0f}));
}

// ------------------------------------------------------------------ integers and bool

TEST(CastInt, FloatToIntTruncatesTowardZero) {
  const std::vector<double> in = {2.7, -2.7, 0.5, -0.5, 100.9, -100.9};
  for (Dtype from : float_dtypes()) {
    for (Dtype to : {Dtype::i8, Dtype::i32, Dtype::i64}) {
      SCOPED_TRACE(std::string(xd::dtype_name(from)) + " -> " + xd::dtype_name(to));
      std::vector<double> want;
      for (double x : in) want.push_back(std::trunc(quantize(x, from)));
      EXPECT_TRUE(all_equal(read(make(in, {6}, from).to(to)), want));
    }
  }
  EXPECT_TRUE(all_equal(read(make({0.9, 255.5, 17.2}, {3}, Dtype::f64).to(Dtype::u8)), {0, 255, 17}));
}

TEST(CastInt, NarrowingIntegersWrapAround) {
  EXPECT_TRUE(all_equal(read(make({300, -129, 127, 128, -128}, {5}, Dtype::i32).to(Dtype::i8)), {44, 127, 127, -128, -128}));
  EXPECT_TRUE(all_equal(read(make({-1, 256, 257}, {3}, Dtype::i32).to(Dtype::u8)), {255, 0, 1}));
  EXPECT_EQ(make_i64({(int64_t{1} << 32) + 5, -(int64_t{1} << 32) - 1}, {2}).to(Dtype::i32).to_vector<int32_t>(),
            (std::vector<int32_t>{5, -1}));
  EXPECT_TRUE(all_equal(read(make({200, 128, 127}, {3}, Dtype::u8).to(Dtype::i8)), {-56, -128, 127}));
  EXPECT_TRUE(all_equal(read(make({-1, -128}, {2}, Dtype::i8).to(Dtype::u8)), {255, 128}));
}

TEST(CastInt, WideningSignExtendsSignedAndZeroExtendsUnsigned) {
  EXPECT_EQ(make({-1, -128, 127}, {3}, Dtype::i8).to(Dtype::i64).to_vector<int64_t>(), (std::vector<int64_t>{-1, -128, 127}));
  EXPECT_EQ(make({255, 128}, {2}, Dtype::u8).to(Dtype::i32).to_vector<int32_t>(), (std::vector<int32_t>{255, 128}));
  EXPECT_EQ(make({-5}, {1}, Dtype::i32).to(Dtype::i64).item<int64_t>(), -5);
}

TEST(CastInt, LargeIntegersToFloatRoundToNearestEven) {
  EXPECT_EQ(make_i64({(int64_t{1} << 53) + 1, (int64_t{1} << 53) + 3}, {2}).to(Dtype::f64).to_vector<double>(),
            (std::vector<double>{9007199254740992.0, 9007199254740996.0}));
  EXPECT_EQ(make({16777217, -16777219}, {2}, Dtype::i32).to(Dtype::f32).to_vector<float>(),
            (std::vector<float>{16777216.0f, -16777220.0f}));
  EXPECT_TRUE(all_equal(read(make({2049, 2051, 70000}, {3}, Dtype::i32).to(Dtype::f16)), {2048, 2052, kInf}));
  EXPECT_TRUE(all_equal(read(make({257, 259}, {2}, Dtype::i64).to(Dtype::bf16)), {256, 260}));
}

TEST(CastBool, NonzeroIsTrueIncludingNanAndNegativeZeroIsFalse) {
  EXPECT_TRUE(all_equal(read(make({0, -0.0, 0.5, kNaN, -kInf, 1e-30}, {6}, Dtype::f32).to(Dtype::boolean)), {0, 0, 1, 1, 1, 1}));
  EXPECT_TRUE(all_equal(read(make({0, 2, -1, 256}, {4}, Dtype::i32).to(Dtype::boolean)), {0, 1, 1, 1}));
  EXPECT_TRUE(all_equal(read(make({0, -0.0, 3}, {3}, Dtype::f16).to(Dtype::boolean)), {0, 0, 1}));
}

TEST(CastBool, ToNumbersGivesZeroAndOne) {
  const xd::Tensor b = make({1, 0, 1}, {3}, Dtype::boolean);
  for (Dtype d : numeric_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(b.to(d)), {1, 0, 1}));
  }
}

TEST(Cast, EveryDtypePairOnSmallExactValues) {
  const std::vector<Dtype> all = {Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::i8, Dtype::u8,
                                  Dtype::i32, Dtype::i64, Dtype::boolean, Dtype::f8e4m3fn, Dtype::f8e5m2};
  const std::vector<double> v = {0, 1, 2, 3, 6, 12};
  for (Dtype from : all) {
    for (Dtype to : all) {
      SCOPED_TRACE(std::string(xd::dtype_name(from)) + " -> " + xd::dtype_name(to));
      std::vector<double> want;
      for (double x : v) want.push_back(quantize(quantize(x, from), to));
      const xd::Tensor out = make(v, {2, 3}, from).to(to);
      EXPECT_EQ(out.dtype(), to);
      EXPECT_EQ(shape_of(out), (Shape{2, 3}));
      EXPECT_TRUE(all_equal(read(out), want));
    }
  }
}

TEST(Cast, EmptyTensorKeepsShape) {
  const xd::Tensor t = xd::empty({0, 3}, Dtype::f32, dev()).to(Dtype::f16);
  EXPECT_EQ(t.dtype(), Dtype::f16);
  EXPECT_EQ(shape_of(t), (Shape{0, 3}));
}

// ------------------------------------------------------------------ strided and broadcast copies

TEST(Cast, TransposedSourceIsReadInLogicalOrder) {
  const std::vector<double> base = random_values(12, -10, 10, Dtype::f32, 1);
  const xd::Tensor t = make(base, {3, 4}, Dtype::f32).t();
  ASSERT_EQ(strides_of(t), (Shape{1, 4}));
  const auto want = gather(base, {4, 3}, {1, 4}, 0);
  EXPECT_TRUE(all_equal(read(t.to(Dtype::f64)), want));
  EXPECT_TRUE(all_equal(read(t.contiguous()), want));
  EXPECT_TRUE(t.contiguous().is_contiguous());
}

TEST(Copy, ContiguousOfPermutedSlicedTensor) {
  const std::vector<double> base = random_values(2 * 5 * 6, -3, 3, Dtype::i32, 2);
  const xd::Tensor t = make(base, {2, 5, 6}, Dtype::i32).slice(2, 1, 6, 2).permute({2, 0, 1});  // [3, 2, 5]
  ASSERT_EQ(shape_of(t), (Shape{3, 2, 5}));
  ASSERT_EQ(strides_of(t), (Shape{2, 30, 6}));
  EXPECT_EQ(t.storage_offset(), 1);
  EXPECT_TRUE(all_equal(read(t.contiguous()), gather(base, {3, 2, 5}, {2, 30, 6}, 1)));
  EXPECT_TRUE(all_equal(read(t.clone()), gather(base, {3, 2, 5}, {2, 30, 6}, 1)));
}

TEST(Copy, BroadcastsColumnIntoMatrixAndCasts) {
  xd::Tensor dst = xd::zeros({3, 4}, Dtype::f32, dev());
  dst.copy_(make({1, 2, 3}, {3, 1}, Dtype::i32));
  EXPECT_TRUE(all_equal(read(dst), {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
  dst.copy_(make({5, 6, 7, 8}, {4}, Dtype::f16));
  EXPECT_TRUE(all_equal(read(dst), {5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8}));
  dst.copy_(make({-1}, {}, Dtype::f64));
  EXPECT_TRUE(all_equal(read(dst), std::vector<double>(12, -1)));
}

TEST(Copy, IntoStridedDestinationWritesOnlyItsElements) {
  xd::Tensor base = xd::zeros({4, 6}, Dtype::f64, dev());
  xd::Tensor cols = base.slice(1, 1, 6, 2);  // columns 1, 3, 5
  cols.copy_(make({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {4, 3}, Dtype::f64));
  EXPECT_TRUE(all_equal(read(base), {0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0, 9, 0, 10, 0, 11, 0, 12}));
  xd::Tensor col_t = base.t();  // [6, 4] with strides [1, 6]
  col_t.select(0, 0).copy_(make({-1, -2, -3, -4}, {4}, Dtype::f32));
  EXPECT_TRUE(all_equal(read(base.select(1, 0)), {-1, -2, -3, -4}));
}

TEST(Copy, CloneHasItsOwnStorage) {
  xd::Tensor a = make({1, 2, 3}, {3}, Dtype::f32);
  xd::Tensor b = a.clone();
  b.copy_(make({9, 9, 9}, {3}, Dtype::f32));
  EXPECT_TRUE(all_equal(read(a), {1, 2, 3}));
  EXPECT_TRUE(all_equal(read(b), {9, 9, 9}));
}

TEST(Copy, ExpandedSourceReadsRepeatedValues) {
  const xd::Tensor e = make({1, 2}, {2, 1}, Dtype::u8).expand({2, 2, 3});
  ASSERT_EQ(strides_of(e), (Shape{0, 1, 0}));
  EXPECT_TRUE(all_equal(read(e.contiguous()), {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
  EXPECT_TRUE(all_equal(read(e.to(Dtype::f32)), {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
}

}  // namespace
