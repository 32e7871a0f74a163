// clamp, floor and round on the CPU backend, against values torch 1.13 printed for the same
// inputs (literals below) and against independent fp64 formulas over random inputs: floor is
// std::floor, round half to even is x - remainder(x, 1) (remainder rounds its quotient to even),
// clamp is a pair of comparisons in double. Layouts: contiguous, transposed, sliced, expanded, empty
// and 0-d. Bad arguments are in tests/unit/bad_inputs_test.cpp.
#include "test_util.hpp"

#include <cmath>

namespace {

using namespace xdt;
using xd::Dtype;

const std::vector<Dtype> kIntegerDtypes = {Dtype::i8, Dtype::u8, Dtype::i32, Dtype::i64};

std::vector<double> map(const std::vector<double>& in, double (*f)(double)) {
  std::vector<double> out;
  for (double x : in) out.push_back(f(x));
  return out;
}

double floor_ref(double x) { return std::floor(x); }
// Nearest integer, ties to even, by another route than nearbyint: remainder(x, 1) is x - n for the
// integer n nearest x, ties to even. (Loses the sign of a zero result; signs are tested apart.)
double round_ref(double x) { return std::isfinite(x) ? x - std::remainder(x, 1.0) : x; }

bool negative_zero(double x) { return x == 0 && std::signbit(x); }

// ------------------------------------------------------------------ floor

TEST(Floor, SpecialValuesHalvesAndSignedZeros) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto got = read(xd::floor(make({-0.5, 0.5, 1.5, -2.5, -0.0, 0.0, kNaN, kInf, -kInf, 2.99, -1e-30}, {11}, d)));
    EXPECT_TRUE(all_equal(got, {-1, 0, 1, -3, -0.0, 0, kNaN, kInf, -kInf, 2, d == Dtype::f16 ? -0.0 : -1}));
    EXPECT_TRUE(negative_zero(got[4]));  // floor(-0) is -0
    EXPECT_FALSE(std::signbit(got[1]));
  }
}

TEST(Floor, RandomValuesEveryFloatDtypeAndLayout) {
  uint32_t seed = 40;
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto in = random_values(9 * 14, -300, 300, d, ++seed);
    const xd::Tensor t = make(in, {9, 14}, d);
    EXPECT_TRUE(all_equal(read(xd::floor(t)), map(in, floor_ref)));
    EXPECT_TRUE(all_equal(read(xd::floor(t.t())), map(gather(in, {14, 9}, {1, 14}, 0), floor_ref)));
    EXPECT_TRUE(all_equal(read(xd::floor(t.slice(0, 1, 9, 2))), map(gather(in, {4, 14}, {28, 1}, 14), floor_ref)));
    EXPECT_TRUE(all_equal(read(xd::floor(make({-2.25}, {1, 1}, d).expand({3, 5}))), std::vector<double>(15, -3.0)));
  }
}

TEST(Floor, IntegersAreCopiedAsInPyTorch) {
  for (Dtype d : kIntegerDtypes) {
    SCOPED_TRACE(trace(d));
    const std::vector<double> in = d == Dtype::u8 ? std::vector<double>{0, 7, 255} : std::vector<double>{-128, -7, 127};
    const xd::Tensor out = xd::floor(make(in, {3}, d));
    EXPECT_EQ(out.dtype(), d);
    EXPECT_TRUE(all_equal(read(out), in));
  }
  EXPECT_EQ(xd::floor(make_i64({INT64_MIN, INT64_MAX}, {2})).to_vector<int64_t>(),
            (std::vector<int64_t>{INT64_MIN, INT64_MAX}));
}

TEST(Floor, EmptyAndZeroDim) {
  EXPECT_EQ(shape_of(xd::floor(xd::empty({0, 4}, Dtype::f32, dev()))), (Shape{0, 4}));
  const xd::Tensor z = xd::floor(make({-7.5}, {}, Dtype::f64));
  EXPECT_EQ(z.dim(), 0);
  EXPECT_EQ(z.item<double>(), -8.0);
}

// ------------------------------------------------------------------ round

TEST(Round, HalvesGoToEvenAndSignsAreKept) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto got =
        read(xd::round(make({0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.0, 0.0, kNaN, kInf, -kInf, -0.4, 3.7}, {13}, d)));
    EXPECT_TRUE(all_equal(got, {0, 2, 2, -0.0, -2, -2, -0.0, 0, kNaN, kInf, -kInf, -0.0, 4}));
    EXPECT_TRUE(negative_zero(got[3]) && negative_zero(got[6]) && negative_zero(got[11]));
    EXPECT_FALSE(std::signbit(got[0]));
  }
  // 0.49999997f rounds down (adding 0.5 and truncating would give 1); 2^23 + 1 is already whole.
  EXPECT_TRUE(all_equal(read(xd::round(make({0.49999997, 8388609.0}, {2}, Dtype::f32))), {0, 8388609.0}));
}

TEST(Round, RandomValuesMatchTiesToEvenOnEveryLayout) {
  uint32_t seed = 70;
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    auto in = random_values(8 * 11, -50, 50, d, ++seed);
    for (size_t i = 0; i < in.size(); i += 4) in[i] = std::floor(in[i]) + 0.5;  // exact ties in every dtype
    const xd::Tensor t = make(in, {8, 11}, d);
    EXPECT_TRUE(all_equal(read(xd::round(t)), map(in, round_ref)));
    EXPECT_TRUE(all_equal(read(xd::round(t.t())), map(gather(in, {11, 8}, {1, 11}, 0), round_ref)));
    EXPECT_TRUE(all_equal(read(xd::round(t.slice(1, 2, 11, 3))), map(gather(in, {8, 3}, {11, 3}, 2), round_ref)));
  }
}

// Values printed by torch 1.13: torch.round(torch.tensor(x, dtype), decimals=d).
TEST(Round, DecimalsMatchTorchBitForBitInF32AndF64) {
  const std::vector<double> x = {1.25, 1.35, -2.45, 0.049999, 123.456, -0.04, 2.675, 1e-5, -15.0, 25.0, 35.0};
  struct Expected {
    int64_t decimals;
    Dtype dtype;
    std::vector<double> values;
  };
  const std::vector<Expected> cases = {
      {1,
       Dtype::f32,
       {1.2000000476837158, 1.399999976158142, -2.4000000953674316, 0, 123.5, -0.0, 2.700000047683716, 0, -15, 25, 35}},
      {2,
       Dtype::f32,
       {1.25, 1.350000023841858, -2.450000047683716, 0.05000000074505806, 123.45999908447266, -0.03999999910593033,
        2.680000066757202, 0, -15, 25, 35}},
      {3,
       Dtype::f32,
       {1.25, 1.350000023841858, -2.450000047683716, 0.05000000074505806, 123.45600128173828, -0.03999999910593033,
        2.674999952316284, 0, -15, 25, 35}},
      {-1, Dtype::f32, {0, 0, -0.0, 0, 120, -0.0, 0, 0, -20, 20, 40}},
      {-2, Dtype::f32, {0, 0, -0.0, 0, 100, -0.0, 0, 0, -0.0, 0, 0}},
      {1, Dtype::f64, {1.2, 1.4, -2.4, 0, 123.5, -0.0, 2.7, 0, -15, 25, 35}},
      {2, Dtype::f64, {1.25, 1.35, -2.45, 0.05, 123.46, -0.04, 2.68, 0, -15, 25, 35}},
      {-1, Dtype::f64, {0, 0, -0.0, 0, 120, -0.0, 0, 0, -20, 20, 40}},
  };
  for (const Expected& e : cases) {
    SCOPED_TRACE(trace(e.dtype) + " decimals " + std::to_string(e.decimals));
    const auto got = read(xd::round(make(x, {11}, e.dtype), e.decimals));
    EXPECT_TRUE(all_equal(got, e.values));
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(std::signbit(got[i]), std::signbit(e.values[i])) << i;
  }
}

// f16 and bf16 compute in float and round once, as PyTorch 2's CPU kernel (its opmath type):
// torch.round(x.float(), decimals=d).to(dtype). torch 1.13 rounded each step to bf16 instead.
TEST(Round, DecimalsOfHalfTypesComputeInFloatAndRoundOnce) {
  const std::vector<double> x = {1.25, 1.35, -2.45, 0.049999, 123.456, 2.675, 65504.0};
  EXPECT_TRUE(all_equal(read(xd::round(make(x, {7}, Dtype::bf16), 1)),
                        {1.203125, 1.3984375, -2.5, 0.10009765625, 123.5, 2.703125, 65536.0}));
  EXPECT_TRUE(all_equal(read(xd::round(make(x, {7}, Dtype::f16), 1)),
                        {1.2001953125, 1.2998046875, -2.400390625, 0, 123.375, 2.69921875, 65504.0}));
  EXPECT_TRUE(all_equal(read(xd::round(make(x, {7}, Dtype::f16), -1)), {0, 0, -0.0, 0, 120, 0, 65504.0}));
}

TEST(Round, ScaleBeyondTheComputeTypeGivesNaNAsInPyTorch) {
  // 10^40 is Inf in float: x * Inf / Inf and x / Inf * Inf are NaN, even for 0.
  EXPECT_TRUE(all_equal(read(xd::round(make({0, 1.5}, {2}, Dtype::f32), 40)), {kNaN, kNaN}));
  EXPECT_TRUE(all_equal(read(xd::round(make({0, 1.5}, {2}, Dtype::f32), -40)), {kNaN, kNaN}));
  EXPECT_TRUE(all_equal(read(xd::round(make({0, 1.5}, {2}, Dtype::f64), 40)), {0, 1.5}));
  EXPECT_TRUE(all_equal(read(xd::round(make({0, 1.5}, {2}, Dtype::f64), INT64_MIN)), {kNaN, kNaN}));
}

TEST(Round, IntegersWithDecimalsZeroAreCopied) {
  for (Dtype d : kIntegerDtypes) {
    SCOPED_TRACE(trace(d));
    const std::vector<double> in = {0, 3, 100};
    EXPECT_TRUE(all_equal(read(xd::round(make(in, {3}, d))), in));
  }
}

TEST(Round, EmptyAndZeroDim) {
  EXPECT_EQ(shape_of(xd::round(xd::empty({2, 0}, Dtype::bf16, dev()), 2)), (Shape{2, 0}));
  EXPECT_EQ(xd::round(make({2.5}, {}, Dtype::f32)).item<float>(), 2.0f);
}

// ------------------------------------------------------------------ clamp

TEST(Clamp, TorchValuesForSpecialsAndSignedZeros) {
  const std::vector<double> x = {kNaN, -kInf, kInf, -0.0, 0.0, 1.5, -2.5, 3.0};
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor t = make(x, {8}, d);
    EXPECT_TRUE(all_equal(read(xd::clamp(t, -1.0, 2.0)), {kNaN, -1, 2, -0.0, 0, 1.5, -1, 2}));
    EXPECT_TRUE(all_equal(read(xd::clamp(t, 2.0, -1.0)), {kNaN, -1, -1, -1, -1, -1, -1, -1}));  // min > max: max
    EXPECT_TRUE(all_equal(read(xd::clamp(t, std::nullopt, 1.0)), {kNaN, -kInf, 1, -0.0, 0, 1, -2.5, 1}));
    EXPECT_TRUE(all_equal(read(xd::clamp(t, kInf)), {kNaN, kInf, kInf, kInf, kInf, kInf, kInf, kInf}));
    // An element equal to the bound is kept: clamp(-0, min=+0) is -0 and clamp(+0, max=-0) is +0.
    EXPECT_TRUE(negative_zero(read(xd::clamp(t, 0.0))[3]));
    EXPECT_FALSE(std::signbit(read(xd::clamp(t, std::nullopt, -0.0))[4]));
  }
}

TEST(Clamp, NaNBoundsFollowTorchClamp) {
  const std::vector<double> x = {kNaN, -kInf, -0.0, 1.5};
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor t = make(x, {4}, d);
    EXPECT_TRUE(all_equal(read(xd::clamp(t, kNaN, 1.0)), {kNaN, kNaN, kNaN, kNaN}));
    EXPECT_TRUE(all_equal(read(xd::clamp(t, 1.0, kNaN)), {kNaN, kNaN, kNaN, kNaN}));
    EXPECT_TRUE(all_equal(read(xd::clamp(t, kNaN)), x));  // a lone NaN bound changes nothing
    EXPECT_TRUE(all_equal(read(xd::clamp(t, std::nullopt, kNaN)), x));
  }
}

TEST(Clamp, HalfTypeBoundsAreRoundedToTheDtypeFirst) {
  // torch 1.13, bf16: min=1.001 is bf16 1.0, so 1.0 stays and 1.0078125 stays; min=1e-10 is
  // 1.0004e-10 in bf16 and replaces both zeros; min=1e5 is 99840.
  const xd::Tensor b = make({-0.0, 0.0, 1.0, 1.0078125}, {4}, Dtype::bf16);
  EXPECT_TRUE(all_equal(read(xd::clamp(b, 1.001)), {1, 1, 1, 1.0078125}));
  EXPECT_TRUE(all_equal(read(xd::clamp(b, std::nullopt, 1.001)), {-0.0, 0, 1, 1}));
  const double tiny = read(make({1e-10}, {1}, Dtype::bf16))[0];
  EXPECT_TRUE(all_equal(read(xd::clamp(b, 1e-10)), {tiny, tiny, 1, 1.0078125}));
  EXPECT_TRUE(all_equal(read(xd::clamp(b, 1e5)), {99840, 99840, 99840, 99840}));
  // f16: 1e-10 is +0 in f16, so -0 is kept (equal to the bound) and nothing else moves.
  const auto h = read(xd::clamp(make({-0.0, 0.0, 0.5}, {3}, Dtype::f16), 1e-10));
  EXPECT_TRUE(all_equal(h, {0, 0, 0.5}));
  EXPECT_TRUE(negative_zero(h[0]));
  // f32: 0.1 is the float nearest 0.1, which the f32 element 0.1 equals.
  EXPECT_TRUE(all_equal(read(xd::clamp(make({0.0, 0.1, 0.2}, {3}, Dtype::f32), 0.1, 0.1)),
                        {0.10000000149011612, 0.10000000149011612, 0.10000000149011612}));
}

TEST(Clamp, RandomValuesEveryDtypeAndLayout) {
  uint32_t seed = 90;
  auto ref = [](const std::vector<double>& in, double lo, double hi) {
    std::vector<double> out;
    for (double x : in) out.push_back(x < lo ? lo : x > hi ? hi : x);
    return out;
  };
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto in = random_values(10 * 7, -4, 4, d, ++seed);
    const xd::Tensor t = make(in, {10, 7}, d);
    EXPECT_TRUE(all_equal(read(xd::clamp(t, -1.5, 2.25)), ref(in, -1.5, 2.25)));
    EXPECT_TRUE(all_equal(read(xd::clamp(t.t(), -1.5, 2.25)), ref(gather(in, {7, 10}, {1, 7}, 0), -1.5, 2.25)));
    EXPECT_TRUE(all_equal(read(xd::clamp(t.slice(0, 3, 10, 3), std::nullopt, 0.5)),
                          ref(gather(in, {3, 7}, {21, 1}, 21), -kInf, 0.5)));
    EXPECT_TRUE(all_equal(read(xd::clamp(make({3.5}, {1}, d).expand({4, 2}), 0.0, 1.0)), std::vector<double>(8, 1.0)));
  }
  for (Dtype d : kIntegerDtypes) {
    SCOPED_TRACE(trace(d));
    const auto in = random_values(40, 0, 120, d, ++seed);
    EXPECT_TRUE(all_equal(read(xd::clamp(make(in, {40}, d), 30, 90)), ref(in, 30, 90)));
    EXPECT_TRUE(all_equal(read(xd::clamp(make(in, {40}, d), 90, 30)), std::vector<double>(40, 30)));  // min > max
    EXPECT_TRUE(all_equal(read(xd::clamp(make(in, {4, 10}, d).t(), std::nullopt, 50)),
                          ref(gather(in, {10, 4}, {1, 10}, 0), -kInf, 50)));
  }
}

TEST(Clamp, IntegerBoundsAtTheDtypeLimitsAndU8Wrapping) {
  // torch 1.13: uint8 min=-1 is 255 (a Python int wraps), max=-1 is 255 too.
  const xd::Tensor u = make({0, 3, 200, 255}, {4}, Dtype::u8);
  EXPECT_TRUE(all_equal(read(xd::clamp(u, -1.0)), {255, 255, 255, 255}));
  EXPECT_TRUE(all_equal(read(xd::clamp(u, std::nullopt, -1.0)), {0, 3, 200, 255}));
  EXPECT_TRUE(all_equal(read(xd::clamp(make({-100, 0, 100}, {3}, Dtype::i8), -128.0, 127.0)), {-100, 0, 100}));
  EXPECT_TRUE(all_equal(read(xd::clamp(make({-100, 0, 100}, {3}, Dtype::i8), 5.0, -5.0)), {-5, -5, -5}));
  const xd::Tensor l = make_i64({INT64_MIN, 0, INT64_MAX}, {3});
  EXPECT_EQ(xd::clamp(l, 4611686018427387904.0).to_vector<int64_t>(),
            (std::vector<int64_t>{4611686018427387904, 4611686018427387904, INT64_MAX}));
  EXPECT_EQ(xd::clamp(l, -9223372036854775808.0, -4611686018427387904.0).to_vector<int64_t>(),
            (std::vector<int64_t>{INT64_MIN, -4611686018427387904, -4611686018427387904}));
}

TEST(Clamp, EmptyAndZeroDim) {
  EXPECT_EQ(shape_of(xd::clamp(xd::empty({0}, Dtype::i32, dev()), 1.0)), (Shape{0}));
  const xd::Tensor z = xd::clamp(make({7}, {}, Dtype::i32), std::nullopt, 5.0);
  EXPECT_EQ(z.dim(), 0);
  EXPECT_EQ(z.item<int32_t>(), 5);
}

}  // namespace
