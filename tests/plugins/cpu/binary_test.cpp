// Binary pointwise ops on the CPU backend: add/sub (with alpha), mul, div, maximum, minimum, the operators,
// comparisons eq/lt/gt and where, with broadcasting, expand(), strided inputs, integer
// wraparound, empty, 0-d and size-1 operands.
#include "support/throws_exactly.hpp"
#include "test_util.hpp"

#include <functional>

namespace {

using namespace xdt;
using xd::Dtype;

using BinFn = std::function<double(double, double)>;

Shape broadcast_shape(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t sa = i + a.size() >= n ? a[i + a.size() - n] : 1;
    const int64_t sb = i + b.size() >= n ? b[i + b.size() - n] : 1;
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

// out[i] = f(a[bcast(i)], b[bcast(i)]) over the broadcast shape, in double.
std::vector<double> binary_ref(const std::vector<double>& a, const Shape& as, const std::vector<double>& b,
                               const Shape& bs, const BinFn& f) {
  const Shape os = broadcast_shape(as, bs);
  std::vector<double> out;
  for (int64_t i = 0; i < numel_of(os); ++i) {
    const Shape idx = unravel(i, os);
    out.push_back(f(a[static_cast<size_t>(broadcast_flat(idx, as))], b[static_cast<size_t>(broadcast_flat(idx, bs))]));
  }
  return out;
}

struct BinCase {
  const char* name;
  std::function<xd::Tensor(const xd::Tensor&, const xd::Tensor&)> op;
  BinFn ref;
  bool nonzero_b;  // keep the divisor away from zero
};

const std::vector<BinCase>& float_cases() {
  static const std::vector<BinCase> c = {
      {"add", [](const xd::Tensor& a, const xd::Tensor& b) { return xd::add(a, b); }, std::plus<double>(), false},
      {"add_alpha", [](const xd::Tensor& a, const xd::Tensor& b) { return xd::add(a, b, -2.5); },
       [](double x, double y) { return x - 2.5 * y; }, false},
      {"sub", [](const xd::Tensor& a, const xd::Tensor& b) { return xd::sub(a, b); }, std::minus<double>(), false},
      {"sub_alpha", [](const xd::Tensor& a, const xd::Tensor& b) { return xd::sub(a, b, 0.5); },
       [](double x, double y) { return x - 0.5 * y; }, false},
      {"mul", [](const xd::Tensor& a, const xd::Tensor& b) { return xd::mul(a, b); }, std::multiplies<double>(), false},
      {"div", [](const xd::Tensor& a, const xd::Tensor& b) { return xd::div(a, b); }, std::divides<double>(), true},
      {"maximum", [](const xd::Tensor& a, const xd::Tensor& b) { return xd::maximum(a, b); },
       [](double x, double y) { return std::max(x, y); }, false},
      {"minimum", [](const xd::Tensor& a, const xd::Tensor& b) { return xd::minimum(a, b); },
       [](double x, double y) { return std::min(x, y); }, false},
      {"operator+", [](const xd::Tensor& a, const xd::Tensor& b) { return a + b; }, std::plus<double>(), false},
      {"operator-", [](const xd::Tensor& a, const xd::Tensor& b) { return a - b; }, std::minus<double>(), false},
      {"operator*", [](const xd::Tensor& a, const xd::Tensor& b) { return a * b; }, std::multiplies<double>(), false},
      {"operator/", [](const xd::Tensor& a, const xd::Tensor& b) { return a / b; }, std::divides<double>(), true},
  };
  return c;
}

std::vector<double> operand(size_t n, Dtype d, uint32_t seed, bool nonzero) {
  auto v = random_values(n, -8, 8, d, seed);
  if (nonzero)
    for (auto& x : v)
      if (std::fabs(x) < 0.25) x = quantize(x < 0 ? -0.5 : 0.5, d);
  return v;
}

// Scale for the tolerance: one term's magnitude (an add of two rounded values can cancel).
std::vector<double> magnitudes(const std::vector<double>& a, const Shape& as, const std::vector<double>& b,
                               const Shape& bs) {
  return binary_ref(a, as, b, bs, [](double x, double y) { return 2.5 * (std::fabs(x) + std::fabs(y)); });
}

TEST(Binary, EveryFloatOpBroadcastsMatchingFp64) {
  uint32_t seed = 1;
  const Shape as = {5, 1, 7}, bs = {3, 1};
  for (const auto& c : float_cases()) {
    for (Dtype d : float_dtypes()) {
      SCOPED_TRACE(std::string(c.name) + " " + trace(d));
      const auto a = operand(35, d, ++seed, false), b = operand(3, d, ++seed, c.nonzero_b);
      const xd::Tensor out = c.op(make(a, as, d), make(b, bs, d));
      EXPECT_EQ(out.dtype(), d);
      EXPECT_EQ(shape_of(out), (Shape{5, 3, 7}));
      const auto scale = c.nonzero_b ? std::vector<double>{} : magnitudes(a, as, b, bs);
      EXPECT_TRUE(all_close(read(out), binary_ref(a, as, b, bs, c.ref), d, scale));
    }
  }
}

TEST(Binary, EveryFloatOpReadsTransposedAndStepSlicedOperands) {
  uint32_t seed = 100;
  for (const auto& c : float_cases()) {
    for (Dtype d : float_dtypes()) {
      SCOPED_TRACE(std::string(c.name) + " " + trace(d));
      const auto abase = operand(13 * 7, d, ++seed, false), bbase = operand(7 * 26, d, ++seed, c.nonzero_b);
      const xd::Tensor a = make(abase, {13, 7}, d).t();                     // [7, 13] strides [1, 7]
      const xd::Tensor b = make(bbase, {7, 26}, d).slice(1, 1, 26, 2);      // [7, 13] strides [26, 2], offset 1
      ASSERT_EQ(strides_of(b), (Shape{26, 2}));
      const auto av = gather(abase, {7, 13}, {1, 7}, 0), bv = gather(bbase, {7, 13}, {26, 2}, 1);
      const auto scale = c.nonzero_b ? std::vector<double>{} : magnitudes(av, {7, 13}, bv, {7, 13});
      EXPECT_TRUE(all_close(read(c.op(a, b)), binary_ref(av, {7, 13}, bv, {7, 13}, c.ref), d, scale));
    }
  }
}

TEST(Add, BroadcastsColumnAgainstRow) {
  for (Dtype d : numeric_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor out = xd::add(make({1, 2, 3}, {3, 1}, d), make({10, 20, 30, 40}, {1, 4}, d));
    EXPECT_EQ(shape_of(out), (Shape{3, 4}));
    EXPECT_TRUE(all_equal(read(out), {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43}));
  }
}

TEST(Add, ExpandedOperandHasZeroStrides) {
  const xd::Tensor row = make({1, 2, 3, 4}, {4}, Dtype::f32).expand({3, 4});
  ASSERT_EQ(strides_of(row), (Shape{0, 1}));
  const xd::Tensor out = xd::add(row, make({0, 0, 0, 0, 10, 10, 10, 10, 20, 20, 20, 20}, {3, 4}, Dtype::f32));
  EXPECT_TRUE(all_equal(read(out), {1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24}));
  // Both operands expanded, from a 0-d and a column.
  const xd::Tensor out2 = xd::mul(make({2}, {}, Dtype::i32).expand({2, 3}), make({1, 2}, {2, 1}, Dtype::i32).expand({2, 3}));
  EXPECT_TRUE(all_equal(read(out2), {2, 2, 2, 4, 4, 4}));
}

TEST(Add, AlphaScalesTheSecondOperand) {
  for (Dtype d : numeric_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(xd::add(make({1, 2}, {2}, d), make({10, 20}, {2}, d), 2.0)), {21, 42}));
    EXPECT_TRUE(all_equal(read(xd::sub(make({50, 60}, {2}, d), make({10, 20}, {2}, d), 2.0)), {30, 20}));
  }
  EXPECT_TRUE(all_equal(read(xd::add(make({1, 2}, {2}, Dtype::i32), make({10, 20}, {2}, Dtype::i32), -3.0)), {-29, -58}));
  EXPECT_TRUE(all_equal(read(xd::add(make({1, 2}, {2}, Dtype::f32), make({10, 20}, {2}, Dtype::f32), 0.25)), {3.5, 7}));
}

TEST(Add, I8WrapsAround) {
  EXPECT_TRUE(all_equal(read(xd::add(make({100, -100, 127, -128}, {4}, Dtype::i8), make({100, -100, 1, -1}, {4}, Dtype::i8))),
                        {-56, 56, -128, 127}));
}

TEST(Add, U8AndI32WrapAround) {
  EXPECT_TRUE(all_equal(read(xd::add(make({200, 255}, {2}, Dtype::u8), make({100, 1}, {2}, Dtype::u8))), {44, 0}));
  EXPECT_TRUE(all_equal(read(xd::sub(make({0, 5}, {2}, Dtype::u8), make({1, 10}, {2}, Dtype::u8))), {255, 251}));
  EXPECT_EQ(xd::add(make({2147483647.0}, {1}, Dtype::i32), make({1}, {1}, Dtype::i32)).item<int32_t>(), INT32_MIN);
  EXPECT_TRUE(all_equal(read(xd::mul(make({16, -16}, {2}, Dtype::i8), make({16, 8}, {2}, Dtype::i8))), {0, -128}));
}

TEST(Mul, I64IsExactBeyondDoublePrecision) {
  const xd::Tensor out = xd::mul(make_i64({(int64_t{1} << 40) + 1}, {1}), make_i64({(int64_t{1} << 20) + 1}, {1}));
  EXPECT_EQ(out.item<int64_t>(), ((int64_t{1} << 40) + 1) * ((int64_t{1} << 20) + 1));
  EXPECT_EQ(xd::add(make_i64({(int64_t{1} << 53)}, {1}), make_i64({1}, {1})).item<int64_t>(), (int64_t{1} << 53) + 1);
}

TEST(Binary, IntegerOpsMatchExactlyWithBroadcast) {
  uint32_t seed = 300;
  const std::vector<std::pair<const char*, BinFn>> fns = {
      {"add", std::plus<double>()}, {"sub", std::minus<double>()}, {"mul", std::multiplies<double>()}};
  for (Dtype d : int_dtypes()) {
    for (const auto& [name, f] : fns) {
      SCOPED_TRACE(std::string(name) + " " + trace(d));
      const auto a = random_values(4 * 6, 0, 11, d, ++seed), b = random_values(6, 0, 11, d, ++seed);
      const xd::Tensor ta = make(a, {4, 6}, d), tb = make(b, {6}, d);
      const std::string n = name;
      const xd::Tensor out = n == "add" ? xd::add(ta, tb) : n == "sub" ? xd::sub(ta, tb) : xd::mul(ta, tb);
      EXPECT_EQ(out.dtype(), d);
      auto want = binary_ref(a, {4, 6}, b, {6}, f);
      for (auto& w : want) w = quantize(w, d);  // u8 sub wraps
      EXPECT_TRUE(all_equal(read(out), want));
    }
  }
}

TEST(Div, ByZeroGivesSignedInfinityAndNan) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(xd::div(make({1, -1, 0, 7}, {4}, d), make({0, 0, 0, 2}, {4}, d))), {kInf, -kInf, kNaN, 3.5}));
  }
}

TEST(Binary, NanPropagatesThroughArithmetic) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor a = make({kNaN, 1, kInf}, {3}, d), b = make({1, kNaN, -kInf}, {3}, d);
    EXPECT_TRUE(all_equal(read(xd::add(a, b)), {kNaN, kNaN, kNaN}));
    EXPECT_TRUE(all_equal(read(xd::mul(a, b)), {kNaN, kNaN, -kInf}));
  }
}

TEST(Binary, EmptyZeroDimAndSizeOneOperands) {
  EXPECT_EQ(shape_of(xd::add(xd::empty({0, 3}, Dtype::f32, dev()), make({1, 2, 3}, {1, 3}, Dtype::f32))), (Shape{0, 3}));
  EXPECT_EQ(shape_of(xd::mul(xd::empty({2, 0}, Dtype::i32, dev()), make({1, 2}, {2, 1}, Dtype::i32))), (Shape{2, 0}));
  EXPECT_EQ(shape_of(xd::lt(xd::empty({0}, Dtype::f16, dev()), make({1}, {1}, Dtype::f16))), (Shape{0}));
  const xd::Tensor s = xd::add(make({2.5}, {}, Dtype::f64), make({3.5}, {}, Dtype::f64));
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.item<double>(), 6.0);
  const xd::Tensor sm = xd::sub(make({1, 2, 3, 4, 5, 6}, {2, 3}, Dtype::f32), make({1}, {}, Dtype::f32));
  EXPECT_TRUE(all_equal(read(sm), {0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(all_equal(read(xd::mul(make({3}, {1}, Dtype::u8), make({5}, {1}, Dtype::u8))), {15}));
}

TEST(Binary, PrimeSizedContiguousOperands) {
  for (Dtype d : {Dtype::f32, Dtype::f16}) {
    SCOPED_TRACE(trace(d));
    const auto a = random_values(10007, -3, 3, d, 1), b = random_values(10007, -3, 3, d, 2);
    EXPECT_TRUE(all_close(read(xd::mul(make(a, {10007}, d), make(b, {10007}, d))),
                          binary_ref(a, {10007}, b, {10007}, std::multiplies<double>()), d));
  }
}

// ------------------------------------------------------------------ comparisons

TEST(Compare, KnownValuesWithNanAreFalse) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor a = make({1, 2, kNaN, 3, kNaN, -kInf}, {6}, d), b = make({1, 3, kNaN, 2, 0, -kInf}, {6}, d);
    const xd::Tensor e = xd::eq(a, b), l = xd::lt(a, b), g = xd::gt(a, b);
    EXPECT_EQ(e.dtype(), Dtype::boolean);
    EXPECT_EQ(l.dtype(), Dtype::boolean);
    EXPECT_TRUE(all_equal(read(e), {1, 0, 0, 0, 0, 1}));
    EXPECT_TRUE(all_equal(read(l), {0, 1, 0, 0, 0, 0}));
    EXPECT_TRUE(all_equal(read(g), {0, 0, 0, 1, 0, 0}));
  }
}

TEST(Compare, NeIsTrueAndGeLeFalseBesideNanWhileSignedZerosAreEqual) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor a = make({1, 2, kNaN, 3, kNaN, -kInf, -0.0}, {7}, d);
    const xd::Tensor b = make({1, 3, kNaN, 2, 0, -kInf, 0.0}, {7}, d);
    const xd::Tensor n = xd::ne(a, b);
    EXPECT_EQ(n.dtype(), Dtype::boolean);
    EXPECT_TRUE(all_equal(read(n), {0, 1, 1, 1, 1, 0, 0}));
    EXPECT_TRUE(all_equal(read(xd::ge(a, b)), {1, 0, 0, 1, 0, 1, 1}));
    EXPECT_TRUE(all_equal(read(xd::le(a, b)), {1, 1, 0, 0, 0, 1, 1}));
  }
}

TEST(Compare, EveryNumericDtypeWithBroadcastMatchesReference) {
  uint32_t seed = 700;
  for (Dtype d : numeric_dtypes()) {
    SCOPED_TRACE(trace(d));
    // Small whole numbers, so that equal pairs occur in every dtype.
    const auto a = random_values(12, 0, 6, Dtype::i32, ++seed), b = random_values(4, 0, 6, Dtype::i32, ++seed);
    const xd::Tensor ta = make(a, {3, 1, 4}, d), tb = make(b, {4, 1}, d);
    const Shape as = {3, 1, 4}, bs = {4, 1};
    EXPECT_TRUE(all_equal(read(xd::eq(ta, tb)), binary_ref(a, as, b, bs, [](double x, double y) { return x == y ? 1.0 : 0.0; })));
    EXPECT_TRUE(all_equal(read(xd::lt(ta, tb)), binary_ref(a, as, b, bs, [](double x, double y) { return x < y ? 1.0 : 0.0; })));
    EXPECT_TRUE(all_equal(read(xd::gt(ta, tb)), binary_ref(a, as, b, bs, [](double x, double y) { return x > y ? 1.0 : 0.0; })));
    EXPECT_TRUE(all_equal(read(xd::ne(ta, tb)),
                          binary_ref(a, as, b, bs, [](double x, double y) { return x != y ? 1.0 : 0.0; })));
    EXPECT_TRUE(all_equal(read(xd::ge(ta, tb)),
                          binary_ref(a, as, b, bs, [](double x, double y) { return x >= y ? 1.0 : 0.0; })));
    EXPECT_TRUE(all_equal(read(xd::le(ta, tb)),
                          binary_ref(a, as, b, bs, [](double x, double y) { return x <= y ? 1.0 : 0.0; })));
  }
}

TEST(Compare, UnsignedAndLargeIntegersCompareExactly) {
  EXPECT_TRUE(all_equal(read(xd::gt(make({200, 100}, {2}, Dtype::u8), make({100, 200}, {2}, Dtype::u8))), {1, 0}));
  const int64_t big = int64_t{1} << 53;
  EXPECT_TRUE(all_equal(read(xd::eq(make_i64({big, big + 1}, {2}), make_i64({big + 1, big + 1}, {2}))), {0, 1}));
  EXPECT_TRUE(all_equal(read(xd::lt(make_i64({big}, {1}), make_i64({big + 1}, {1}))), {1}));
}

TEST(Compare, EqOnBoolTensors) {
  EXPECT_TRUE(all_equal(read(xd::eq(make({1, 0, 1, 0}, {4}, Dtype::boolean), make({1, 1, 0, 0}, {4}, Dtype::boolean))), {1, 0, 0, 1}));
}

TEST(Compare, TransposedOperand) {
  const auto base = random_values(12, 0, 4, Dtype::i32, 5);
  const xd::Tensor a = make(base, {3, 4}, Dtype::i32).t();  // [4, 3]
  const xd::Tensor b = make({1, 2, 3}, {3}, Dtype::i32);
  EXPECT_TRUE(all_equal(read(xd::gt(a, b)), binary_ref(gather(base, {4, 3}, {1, 4}, 0), {4, 3}, {1, 2, 3}, {3},
                                                        [](double x, double y) { return x > y ? 1.0 : 0.0; })));
}

// ------------------------------------------------------------------ where

TEST(Where, BroadcastsConditionAndBothBranches) {
  for (Dtype d : numeric_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor out = xd::where(make({1, 0, 1}, {3, 1}, Dtype::boolean), make({1, 2, 3, 4}, {1, 4}, d), make({9}, {1}, d));
    EXPECT_EQ(out.dtype(), d);
    EXPECT_EQ(shape_of(out), (Shape{3, 4}));
    EXPECT_TRUE(all_equal(read(out), {1, 2, 3, 4, 9, 9, 9, 9, 1, 2, 3, 4}));
  }
}

TEST(Where, NanInTheUnselectedBranchDoesNotLeak) {
  const xd::Tensor out = xd::where(make({1, 0}, {2}, Dtype::boolean), make({1, kNaN}, {2}, Dtype::f32), make({kNaN, 2}, {2}, Dtype::f32));
  EXPECT_TRUE(all_equal(read(out), {1, 2}));
}

TEST(Where, BoolValuesAndComparisonCondition) {
  const xd::Tensor x = make({-1, 2, -3, 4}, {4}, Dtype::f32);
  const xd::Tensor relu_like = xd::where(xd::gt(x, make({0}, {1}, Dtype::f32)), x, make({0}, {}, Dtype::f32));
  EXPECT_TRUE(all_equal(read(relu_like), {0, 2, 0, 4}));
  const xd::Tensor b = xd::where(make({1, 0}, {2}, Dtype::boolean), make({0, 0}, {2}, Dtype::boolean), make({1, 1}, {2}, Dtype::boolean));
  EXPECT_EQ(b.dtype(), Dtype::boolean);
  EXPECT_TRUE(all_equal(read(b), {0, 1}));
}

TEST(Where, RandomStridedOperandsMatchReference) {
  for (Dtype d : {Dtype::f64, Dtype::bf16, Dtype::i64, Dtype::u8}) {
    SCOPED_TRACE(trace(d));
    const auto cbase = random_values(5 * 6, 0, 2, Dtype::boolean, 1);
    const auto abase = random_values(6 * 5, 0, 100, d, 2), bbase = random_values(5 * 12, 0, 100, d, 3);
    const xd::Tensor c = make(cbase, {5, 6}, Dtype::boolean);                 // contiguous [5, 6]
    const xd::Tensor a = make(abase, {6, 5}, d).t();                          // [5, 6] strides [1, 5]
    const xd::Tensor b = make(bbase, {5, 12}, d).slice(1, 0, 12, 2);          // [5, 6] strides [12, 2]
    const auto av = gather(abase, {5, 6}, {1, 5}, 0), bv = gather(bbase, {5, 6}, {12, 2}, 0);
    std::vector<double> want;
    for (size_t i = 0; i < 30; ++i) want.push_back(cbase[i] != 0 ? av[i] : bv[i]);
    EXPECT_TRUE(all_equal(read(xd::where(c, a, b)), want));
    // The condition transposed too.
    const xd::Tensor ct = make(cbase, {6, 5}, Dtype::boolean).t();
    const auto cv = gather(cbase, {5, 6}, {1, 5}, 0);
    want.clear();
    for (size_t i = 0; i < 30; ++i) want.push_back(cv[i] != 0 ? av[i] : bv[i]);
    EXPECT_TRUE(all_equal(read(xd::where(ct, a, b)), want));
  }
}

TEST(Where, EmptyCondition) {
  EXPECT_EQ(shape_of(xd::where(xd::empty({0, 2}, Dtype::boolean, dev()), make({1, 2}, {2}, Dtype::f32), make({3}, {1}, Dtype::f32))),
            (Shape{0, 2}));
}

}  // namespace

namespace {

// maximum/minimum as torch.maximum/minimum: NaN in either operand wins, signed zeros follow the
// first operand when the two are equal, integers compare exactly, one dtype for both.
TEST(MaximumMinimum, NanInEitherOperandGivesNan) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor a = make({kNaN, 1, kInf, -kInf, 2}, {5}, d), b = make({1, kNaN, 3, kNaN, -kInf}, {5}, d);
    EXPECT_TRUE(all_equal(read(xd::maximum(a, b)), {kNaN, kNaN, kInf, kNaN, 2}));
    EXPECT_TRUE(all_equal(read(xd::minimum(a, b)), {kNaN, kNaN, 3, kNaN, -kInf}));
  }
}

TEST(MaximumMinimum, EqualZerosGiveTheFirstOperand) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor neg = make({-0.0}, {1}, d), pos = make({0.0}, {1}, d);
    EXPECT_TRUE(std::signbit(read(xd::maximum(neg, pos))[0]));
    EXPECT_FALSE(std::signbit(read(xd::minimum(pos, neg))[0]));
  }
}

TEST(MaximumMinimum, IntegersBroadcastAndCompareExactly) {
  const xd::Tensor big = make_i64({INT64_MAX, INT64_MIN, -1}, {3, 1});
  const xd::Tensor row = make_i64({INT64_MAX - 1, 0}, {1, 2});
  const auto mx = xd::maximum(big, row).to_vector<int64_t>(), mn = xd::minimum(big, row).to_vector<int64_t>();
  EXPECT_EQ(mx, (std::vector<int64_t>{INT64_MAX, INT64_MAX, INT64_MAX - 1, 0, INT64_MAX - 1, 0}));
  EXPECT_EQ(mn, (std::vector<int64_t>{INT64_MAX - 1, 0, INT64_MIN, INT64_MIN, -1, -1}));
  EXPECT_TRUE(all_equal(read(xd::maximum(make({200, 3}, {2}, Dtype::u8), make({7}, {}, Dtype::u8))), {200, 7}));
}

TEST(MaximumMinimum, OperandsOfTwoDtypesOrBoolAreDtypeErrors) {
  const xd::Tensor f = make({1}, {1}, Dtype::f32), h = make({1}, {1}, Dtype::f16);
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::maximum(f, h), "maximum", "'self' is f32 but 'other' is f16");
  const xd::Tensor b = xd::eq(f, f);
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::minimum(b, b), "minimum: argument 'self' has dtype bool",
                        "takes f64, f32, f16, bf16, i8, u8, i32, i64");
}

TEST(MaximumMinimum, EmptyAndZeroDimOperands) {
  EXPECT_EQ(shape_of(xd::maximum(xd::empty({0, 3}, Dtype::f32, dev()), make({1, 2, 3}, {3}, Dtype::f32))),
            (Shape{0, 3}));
  EXPECT_EQ(xd::minimum(make({2.5}, {}, Dtype::f64), make({-1}, {}, Dtype::f64)).item<double>(), -1.0);
}

}  // namespace
