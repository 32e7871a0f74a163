// Unary pointwise ops on the CPU backend: neg abs exp log sqrt rsqrt relu gelu (both forms) silu
// sigmoid tanh pow, checked against literal values and an fp64 recomputation, on contiguous, expanded,
// transposed, step-sliced, permuted, empty, 0-d and size-1 inputs.
#include "test_util.hpp"

#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>

namespace {

using namespace xdt;
using xd::Dtype;

struct UnaryCase {
  const char* name;
  std::function<xd::Tensor(const xd::Tensor&)> op;
  std::function<double(double)> ref;
  double lo, hi;  // input domain for random tests
};

double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
}
double sigmoid_ref(double x) { return 1.0 / (1.0 + std::exp(-x)); }

const std::vector<UnaryCase>& float_cases() {
  static const std::vector<UnaryCase> c = {
      {"neg", [](const xd::Tensor& t) { return xd::neg(t); }, [](double x) { return -x; }, -10, 10},
      {"operator-", [](const xd::Tensor& t) { return -t; }, [](double x) { return -x; }, -10, 10},
      {"abs", [](const xd::Tensor& t) { return xd::abs(t); }, [](double x) { return std::fabs(x); }, -10, 10},
      {"exp", [](const xd::Tensor& t) { return xd::exp(t); }, [](double x) { return std::exp(x); }, -10, 10},
      {"log", [](const xd::Tensor& t) { return xd::log(t); }, [](double x) { return std::log(x); }, 0.01, 100},
      {"sqrt", [](const xd::Tensor& t) { return xd::sqrt(t); }, [](double x) { return std::sqrt(x); }, 0, 100},
      {"rsqrt", [](const xd::Tensor& t) { return xd::rsqrt(t); }, [](double x) { return 1 / std::sqrt(x); }, 0.01, 100},
      {"relu", [](const xd::Tensor& t) { return xd::relu(t); }, [](double x) { return x > 0 ? x : 0.0; }, -5, 5},
      {"gelu", [](const xd::Tensor& t) { return xd::gelu(t); }, gelu_erf, -6, 6},
      {"gelu_tanh", [](const xd::Tensor& t) { return xd::gelu(t, xd::GeluApproximate::tanh); }, gelu_tanh, -6, 6},
      {"silu", [](const xd::Tensor& t) { return xd::silu(t); }, [](double x) { return x * sigmoid_ref(x); }, -10, 10},
      {"sigmoid", [](const xd::Tensor& t) { return xd::sigmoid(t); }, sigmoid_ref, -20, 20},
      {"tanh", [](const xd::Tensor& t) { return xd::tanh(t); }, [](double x) { return std::tanh(x); }, -5, 5},
      {"pow2", [](const xd::Tensor& t) { return xd::pow(t, 2.0); }, [](double x) { return x * x; }, -10, 10},
      {"pow3", [](const xd::Tensor& t) { return xd::pow(t, 3.0); }, [](double x) { return x * x * x; }, -5, 5},
      {"pow0.5", [](const xd::Tensor& t) { return xd::pow(t, 0.5); }, [](double x) { return std::sqrt(x); }, 0, 50},
      {"pow-1.5", [](const xd::Tensor& t) { return xd::pow(t, -1.5); }, [](double x) { return std::pow(x, -1.5); }, 0.1,
       10},
  };
  return c;
}

// The fp64 reference of an op over (already rounded) inputs.
std::vector<double> ref_map(const std::vector<double>& in, const std::function<double(double)>& f) {
  std::vector<double> out;
  for (double x : in) out.push_back(f(x));
  return out;
}

TEST(Unary, EveryFloatOpMatchesFp64OnEveryFloatDtype) {
  uint32_t seed = 100;
  for (const auto& c : float_cases()) {
    for (Dtype d : float_dtypes()) {
      SCOPED_TRACE(std::string(c.name) + " " + trace(d));
      const auto in = random_values(7 * 13, c.lo, c.hi, d, ++seed);
      const xd::Tensor out = c.op(make(in, {7, 13}, d));
      EXPECT_EQ(out.dtype(), d);
      EXPECT_EQ(shape_of(out), (Shape{7, 13}));
      EXPECT_TRUE(all_close(read(out), ref_map(in, c.ref), d));
    }
  }
}

TEST(Unary, EveryFloatOpReadsTransposedSlicedAndPermutedInputs) {
  uint32_t seed = 500;
  for (const auto& c : float_cases()) {
    for (Dtype d : {Dtype::f32, Dtype::bf16}) {
      SCOPED_TRACE(std::string(c.name) + " " + trace(d));
      const auto base = random_values(6 * 10, c.lo, c.hi, d, ++seed);
      const xd::Tensor t = make(base, {6, 10}, d);
      // transpose: [10, 6] strides [1, 10]
      EXPECT_TRUE(all_close(read(c.op(t.t())), ref_map(gather(base, {10, 6}, {1, 10}, 0), c.ref), d));
      // slice with step: rows 1, 3, 5 and columns 2, 5, 8 -> [3, 3] strides [20, 3], offset 12
      const xd::Tensor s = t.slice(0, 1, 6, 2).slice(1, 2, 10, 3);
      ASSERT_EQ(strides_of(s), (Shape{20, 3}));
      EXPECT_TRUE(all_close(read(c.op(s)), ref_map(gather(base, {3, 3}, {20, 3}, 12), c.ref), d));
      // permute of a 3-d view: [2, 3, 10] -> [10, 2, 3] strides [1, 30, 10]
      const xd::Tensor p = t.view({2, 3, 10}).permute({2, 0, 1});
      EXPECT_TRUE(all_close(read(c.op(p)), ref_map(gather(base, {10, 2, 3}, {1, 30, 10}, 0), c.ref), d));
    }
  }
}

TEST(Unary, EveryFloatOpReadsExpandedInputs) {
  // Stride-0 dims: every element of a broadcast row or column is one stored value.
  uint32_t seed = 900;
  for (const auto& c : float_cases()) {
    for (Dtype d : {Dtype::f32, Dtype::bf16}) {
      SCOPED_TRACE(std::string(c.name) + " " + trace(d));
      const auto row = random_values(5, c.lo, c.hi, d, ++seed);
      // [5] expanded to [4, 5]: strides [0, 1].
      const xd::Tensor r = make(row, {5}, d).expand({4, 5});
      ASSERT_EQ(strides_of(r), (Shape{0, 1}));
      const xd::Tensor ro = c.op(r);
      EXPECT_EQ(shape_of(ro), (Shape{4, 5}));
      EXPECT_TRUE(all_close(read(ro), ref_map(gather(row, {4, 5}, {0, 1}, 0), c.ref), d));
      // [3, 1] expanded to [3, 6] and one value expanded to [2, 3, 4] (every stride 0).
      const auto col = random_values(3, c.lo, c.hi, d, ++seed);
      EXPECT_TRUE(all_close(read(c.op(make(col, {3, 1}, d).expand({3, 6}))),
                            ref_map(gather(col, {3, 6}, {1, 0}, 0), c.ref), d));
      const xd::Tensor one = make({col[0]}, {1, 1, 1}, d).expand({2, 3, 4});
      ASSERT_EQ(strides_of(one), (Shape{0, 0, 0}));
      EXPECT_TRUE(all_close(read(c.op(one)), std::vector<double>(24, c.ref(col[0])), d));
    }
  }
}

TEST(Unary, EmptyZeroDimAndSizeOneInputs) {
  for (const auto& c : float_cases()) {
    SCOPED_TRACE(c.name);
    const xd::Tensor e = c.op(xd::empty({3, 0}, Dtype::f32, dev()));
    EXPECT_EQ(shape_of(e), (Shape{3, 0}));
    const xd::Tensor z = c.op(make({0.75}, {}, Dtype::f32));
    EXPECT_EQ(z.dim(), 0);
    EXPECT_TRUE(all_close(read(z), {c.ref(0.75)}, Dtype::f32));
    const xd::Tensor one = c.op(make({1.5}, {1, 1}, Dtype::f64));
    EXPECT_TRUE(all_close(read(one), {c.ref(1.5)}, Dtype::f64));
  }
}

TEST(Unary, LargeContiguousInputCoversVectorTails) {
  // A prime length exercises any vectorised main loop and its remainder.
  const auto in = random_values(10007, -4, 4, Dtype::f32, 77);
  EXPECT_TRUE(all_close(read(xd::tanh(make(in, {10007}, Dtype::f32))),
                        ref_map(in, [](double x) { return std::tanh(x); }), Dtype::f32));
  EXPECT_TRUE(all_close(read(xd::gelu(make(in, {10007}, Dtype::f16))),
                        ref_map(random_values(10007, -4, 4, Dtype::f16, 77), gelu_erf), Dtype::f16));
}

// ------------------------------------------------------------------ literal values

TEST(Exp, KnownValuesAndSpecials) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::exp(make({0, 1, -kInf, kInf, kNaN, -1000}, {6}, d))),
                          {1, 2.718281828459045, 0, kInf, kNaN, 0}, d));
  }
}

TEST(Exp, F32IsWithinOneUlpAcrossItsRange) {
  // Every 1021st f32 from -110 to 100 (about 2.1 M inputs, both signs' whole exponent ranges):
  // within 1 ulp of the correctly rounded exp wherever that is normal or overflows; where the true
  // result is subnormal, within FLT_MIN of it (flushed to 0 is allowed there).
  std::vector<double> in;
  auto walk = [&](float from, float to) {
    uint32_t b = std::bit_cast<uint32_t>(from);
    const uint32_t end = std::bit_cast<uint32_t>(to);
    for (; b <= end; b += 1021) in.push_back(std::bit_cast<float>(b));
  };
  walk(0.0F, 100.0F);
  walk(-0.0F, -110.0F);
  const std::vector<float> got = xd::exp(make(in, {static_cast<int64_t>(in.size())}, Dtype::f32)).to_vector<float>();
  ASSERT_EQ(got.size(), in.size());
  int bad = 0;
  for (size_t i = 0; i < in.size() && bad < 10; ++i) {
    const double truth = std::exp(in[i]);
    const auto rounded = static_cast<float>(truth);
    const bool ok = rounded >= std::numeric_limits<float>::min()
                        ? std::abs(static_cast<int64_t>(std::bit_cast<uint32_t>(got[i])) -
                                   static_cast<int64_t>(std::bit_cast<uint32_t>(rounded))) <= 1
                        : std::abs(got[i] - truth) <= std::numeric_limits<float>::min();
    if (!ok) {
      ++bad;
      ADD_FAILURE() << "exp(" << in[i] << ") = " << got[i] << ", expected " << rounded;
    }
  }
}

TEST(Log, OneZeroNegativeAndE) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::log(make({1, 0, -1, 2.718281828459045, kInf}, {5}, d))), {0, -kInf, kNaN, 1, kInf},
                          Tol{tol(d).rtol, 4e-3}));  // e is rounded to d first
  }
}

TEST(Sqrt, KnownValuesAndNegativeIsNan) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::sqrt(make({4, 0, -1, 2.25, kInf}, {5}, d))), {2, 0, kNaN, 1.5, kInf}, d));
    EXPECT_TRUE(all_close(read(xd::rsqrt(make({4, 0, 0.25, kInf}, {4}, d))), {0.5, kInf, 2, 0}, d));
  }
}

TEST(Relu, ClampsNegativesKeepsPositivesAndPropagatesNan) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(xd::relu(make({-1, 0, 2.5, -kInf, kInf}, {5}, d))), {0, 0, 2.5, 0, kInf}));
    EXPECT_TRUE(std::isnan(read(xd::relu(make({kNaN}, {1}, d)))[0]));  // PyTorch: relu(nan) = nan
  }
}

TEST(Relu, IntegerDtypes) {
  EXPECT_TRUE(all_equal(read(xd::relu(make({-128, -1, 0, 5, 127}, {5}, Dtype::i8))), {0, 0, 0, 5, 127}));
  EXPECT_TRUE(all_equal(read(xd::relu(make({0, 200, 255}, {3}, Dtype::u8))), {0, 200, 255}));
  EXPECT_TRUE(all_equal(read(xd::relu(make({-70000, 70000}, {2}, Dtype::i32))), {0, 70000}));
  EXPECT_TRUE(all_equal(read(xd::relu(make({-1e12, 1e12}, {2}, Dtype::i64))), {0, 1e12}));
}

TEST(Gelu, ExactErfFormKnownValues) {
  for (Dtype d : {Dtype::f64, Dtype::f32}) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::gelu(make({1, -1, 2, -0.5, 0, 10, -10}, {7}, d))),
                          {0.8413447460685429, -0.15865525393145707, 1.9544997361036416, -0.15426876936299344, 0, 10,
                           -7.619853024160593e-23},
                          d));
  }
}

TEST(Gelu, TanhApproximationKnownValues) {
  for (Dtype d : {Dtype::f64, Dtype::f32}) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::gelu(make({1, -1, 2, -0.5, 0, 10}, {6}, d), xd::GeluApproximate::tanh)),
                          {0.8411919906082768, -0.15880800939172324, 1.954597694087775, -0.15428599017485606, 0, 10},
                          d));
  }
}

TEST(Gelu, TheTwoFormsDiffer) {
  const auto none = read(xd::gelu(make({1}, {1}, Dtype::f64)));
  const auto approx = read(xd::gelu(make({1}, {1}, Dtype::f64), xd::GeluApproximate::tanh));
  EXPECT_NEAR(none[0] - approx[0], 0.8413447460685429 - 0.8411919906082768, 1e-12);
}

TEST(Sigmoid, KnownValuesAndSaturationWithoutNan) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::sigmoid(make({0, 1, -1, 1000, -1000, kInf, -kInf}, {7}, d))),
                          {0.5, 0.7310585786300049, 0.2689414213699951, 1, 0, 1, 0}, d));
  }
}

TEST(Silu, KnownValuesAndSaturationWithoutNan) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::silu(make({0, 1, -1, 1000, -1000}, {5}, d))),
                          {0, 0.7310585786300049, -0.2689414213699951, 1000, 0}, d));
  }
}

TEST(Tanh, KnownValuesAndSaturation) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::tanh(make({0, 0.5, -0.5, 1000, -1000, kInf}, {6}, d))),
                          {0, 0.46211715726000974, -0.46211715726000974, 1, -1, 1}, Tol{tol(d).rtol, 2e-3}));
  }
}

TEST(Pow, KnownValuesAndSpecialCases) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::pow(make({2, -8, 0, 3}, {4}, d), 2.0)), {4, 64, 0, 9}, d));
    EXPECT_TRUE(all_close(read(xd::pow(make({4, -1, 0}, {3}, d), 0.5)), {2, kNaN, 0}, d));
    EXPECT_TRUE(all_close(read(xd::pow(make({kNaN, 0, 5}, {3}, d), 0.0)), {1, 1, 1}, d));  // x^0 = 1, even NaN
    EXPECT_TRUE(all_close(read(xd::pow(make({0, 2, -2}, {3}, d), -1.0)), {kInf, 0.5, -0.5}, d));
    EXPECT_TRUE(all_close(read(xd::pow(make({-2}, {1}, d), 3.0)), {-8}, d));
  }
}

// ------------------------------------------------------------------ integer unary ops

TEST(Neg, IntegersWrapAtTheMinimum) {
  EXPECT_TRUE(all_equal(read(xd::neg(make({-128, 5, 0, 127}, {4}, Dtype::i8))), {-128, -5, 0, -127}));
  EXPECT_TRUE(all_equal(read(xd::neg(make({1, 0, 255}, {3}, Dtype::u8))), {255, 0, 1}));
  EXPECT_TRUE(all_equal(read(xd::neg(make({-2147483648.0, 7}, {2}, Dtype::i32))), {-2147483648.0, -7}));
  EXPECT_EQ(xd::neg(make_i64({INT64_MIN + 1, 3}, {2})).to_vector<int64_t>(), (std::vector<int64_t>{INT64_MAX, -3}));
}

TEST(Abs, IntegersAndFloats) {
  EXPECT_TRUE(all_equal(read(xd::abs(make({-128, -5, 5}, {3}, Dtype::i8))), {-128, 5, 5}));  // as PyTorch: wraps
  EXPECT_TRUE(all_equal(read(xd::abs(make({0, 255}, {2}, Dtype::u8))), {0, 255}));
  EXPECT_TRUE(all_equal(read(xd::abs(make({-70000, 3}, {2}, Dtype::i32))), {70000, 3}));
  EXPECT_EQ(xd::abs(make_i64({-(int64_t{1} << 60)}, {1})).item<int64_t>(), int64_t{1} << 60);
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(xd::abs(make({-1.5, -kInf, -0.0}, {3}, d))), {1.5, kInf, 0}));
    EXPECT_TRUE(std::isnan(read(xd::abs(make({kNaN}, {1}, d)))[0]));
  }
}

TEST(Neg, IntegerRandomValuesMatchExactly) {
  for (Dtype d : {Dtype::i8, Dtype::i32, Dtype::i64}) {
    SCOPED_TRACE(trace(d));
    const auto in = random_values(37, -100, 100, d, 9);
    std::vector<double> want;
    for (double x : in) want.push_back(-x);
    EXPECT_TRUE(all_equal(read(xd::neg(make(in, {37}, d).slice(0, 0, 37, 1))), want));
    EXPECT_TRUE(all_equal(read(xd::neg(make(in, {37}, d)).to(Dtype::f64)), want));
  }
}

}  // namespace
