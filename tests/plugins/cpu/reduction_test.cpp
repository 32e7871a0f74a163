// Reductions on the CPU backend: sum, mean, amax, amin, argmax over dims with keepdim, and
// softmax / log_softmax; literal cases, an fp64 recomputation, strided and expanded inputs, empty and
// size-1 dims, integer accumulation in i64, NaN and -inf handling.
#include "test_util.hpp"

#include <algorithm>
#include <functional>
#include <numbers>

namespace {

using namespace xdt;
using xd::Dtype;

struct Reduced {
  Shape out_shape;                         // with keepdim
  Shape keep_shape;                        // reduced dims as 1
  std::vector<std::vector<double>> groups;  // per output element, its inputs in row-major order
};

// Groups the elements of `v` (shape `s`) by output position when reducing over `dims` (empty: all).
Reduced group(const std::vector<double>& v, const Shape& s, std::vector<int64_t> dims, bool keepdim) {
  const int nd = static_cast<int>(s.size());
  std::vector<bool> red(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims) red[static_cast<size_t>(d < 0 ? d + nd : d)] = true;
  Reduced r;
  for (int i = 0; i < nd; ++i) {
    r.keep_shape.push_back(red[static_cast<size_t>(i)] ? 1 : s[static_cast<size_t>(i)]);
    if (!red[static_cast<size_t>(i)] || keepdim) r.out_shape.push_back(r.keep_shape.back());
  }
  r.groups.resize(static_cast<size_t>(numel_of(r.keep_shape)));
  for (int64_t f = 0; f < numel_of(s); ++f) {
    Shape idx = unravel(f, s);
    for (int i = 0; i < nd; ++i)
      if (red[static_cast<size_t>(i)]) idx[static_cast<size_t>(i)] = 0;
    int64_t o = 0;
    for (int i = 0; i < nd; ++i) o = o * r.keep_shape[static_cast<size_t>(i)] + idx[static_cast<size_t>(i)];
    r.groups[static_cast<size_t>(o)].push_back(v[static_cast<size_t>(f)]);
  }
  return r;
}

std::vector<double> each(const Reduced& r, const std::function<double(const std::vector<double>&)>& f) {
  std::vector<double> out;
  for (const auto& g : r.groups) out.push_back(f(g));
  return out;
}

double sum_of(const std::vector<double>& g) {
  double s = 0;
  for (double x : g) s += x;
  return s;
}
double abs_sum_of(const std::vector<double>& g) {
  double s = 0;
  for (double x : g) s += std::fabs(x);
  return s;
}
double max_of(const std::vector<double>& g) {
  double m = -kInf;
  for (double x : g) {
    if (std::isnan(x)) return kNaN;
    m = std::max(m, x);
  }
  return m;
}
double min_of(const std::vector<double>& g) {
  double m = kInf;
  for (double x : g) {
    if (std::isnan(x)) return kNaN;
    m = std::min(m, x);
  }
  return m;
}
double argmax_of(const std::vector<double>& g) {
  size_t best = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(g[best])) break;
    if (std::isnan(g[i]) || g[i] > g[best]) best = i;
  }
  return static_cast<double>(best);
}

const std::vector<std::vector<int64_t>>& dim_sets() {
  static const std::vector<std::vector<int64_t>> d = {{}, {0}, {1}, {2}, {0, 2}, {-1, -3}, {1, 2}, {0, 1, 2}};
  return d;
}

// ------------------------------------------------------------------ sum / mean

TEST(Sum, KnownValuesOverEachDimAndAll) {
  const xd::Tensor x = make({1, 2, 3, 4, 5, 6}, {2, 3}, Dtype::f32);
  const xd::Tensor all = xd::sum(x);
  EXPECT_EQ(all.dim(), 0);
  EXPECT_EQ(all.item<float>(), 21.0f);
  EXPECT_TRUE(all_equal(read(xd::sum(x, {0})), {5, 7, 9}));
  EXPECT_TRUE(all_equal(read(xd::sum(x, {1})), {6, 15}));
  EXPECT_TRUE(all_equal(read(xd::sum(x, {-1})), {6, 15}));
  const xd::Tensor k = xd::sum(x, {1}, true);
  EXPECT_EQ(shape_of(k), (Shape{2, 1}));
  EXPECT_TRUE(all_equal(read(k), {6, 15}));
  EXPECT_EQ(shape_of(xd::sum(x, {}, true)), (Shape{1, 1}));
  EXPECT_EQ(shape_of(xd::sum(x, {0, 1})), (Shape{}));
}

TEST(Sum, IntegersAccumulateIntoI64) {
  const xd::Tensor s8 = xd::sum(make(std::vector<double>(10, 100), {10}, Dtype::i8));
  EXPECT_EQ(s8.dtype(), Dtype::i64);
  EXPECT_EQ(s8.item<int64_t>(), 1000);
  EXPECT_EQ(xd::sum(make({255, 255, 255, 255}, {4}, Dtype::u8)).item<int64_t>(), 1020);
  EXPECT_EQ(xd::sum(make({2147483647.0, 2147483647.0}, {2}, Dtype::i32)).item<int64_t>(), 4294967294);
  const xd::Tensor rows = xd::sum(make({-128, -128, 127, 127}, {2, 2}, Dtype::i8), {1});
  EXPECT_EQ(rows.dtype(), Dtype::i64);
  EXPECT_EQ(rows.to_vector<int64_t>(), (std::vector<int64_t>{-256, 254}));
  EXPECT_EQ(xd::sum(make_i64({(int64_t{1} << 53), 1}, {2})).item<int64_t>(), (int64_t{1} << 53) + 1);
  for (Dtype d : float_dtypes()) EXPECT_EQ(xd::sum(make({1}, {1}, d)).dtype(), d);
}

TEST(Sum, LowPrecisionAccumulatesInF32) {
  // An f16 accumulator stops at 2048 (2048 + 1 rounds back), a bf16 one at 256.
  EXPECT_EQ(read(xd::sum(xd::ones({4096}, Dtype::f16, dev())))[0], 4096.0);
  EXPECT_EQ(read(xd::sum(xd::ones({1000}, Dtype::bf16, dev())))[0], 1000.0);
  EXPECT_EQ(read(xd::sum(xd::ones({3, 4096}, Dtype::f16, dev()), {1})), (std::vector<double>{4096, 4096, 4096}));
  EXPECT_EQ(read(xd::mean(xd::ones({5000}, Dtype::bf16, dev())))[0], 1.0);
}

TEST(Sum, EmptyReductionGivesZeroAndMeanNan) {
  const xd::Tensor e = xd::empty({0, 3}, Dtype::f32, dev());
  EXPECT_TRUE(all_equal(read(xd::sum(e, {0})), {0, 0, 0}));
  EXPECT_TRUE(all_equal(read(xd::sum(e)), {0}));
  EXPECT_TRUE(all_equal(read(xd::mean(e, {0})), {kNaN, kNaN, kNaN}));
  EXPECT_EQ(shape_of(xd::sum(e, {1})), (Shape{0}));
  EXPECT_EQ(shape_of(xd::sum(e, {0}, true)), (Shape{1, 3}));
  EXPECT_EQ(xd::sum(xd::empty({0}, Dtype::i32, dev())).item<int64_t>(), 0);
}

TEST(Sum, RandomEveryFloatDtypeAndDimSetMatchesFp64) {
  uint32_t seed = 10;
  for (Dtype d : float_dtypes()) {
    const auto v = random_values(5 * 7 * 3, -8, 8, d, ++seed);
    const xd::Tensor x = make(v, {5, 7, 3}, d);
    for (const auto& dims : dim_sets()) {
      for (bool keep : {false, true}) {
        SCOPED_TRACE(trace(d) + " dims " + ::testing::PrintToString(dims) + " keepdim " + std::to_string(keep));
        const Reduced r = group(v, {5, 7, 3}, dims, keep);
        const xd::Tensor s = xd::sum(x, dims, keep);
        EXPECT_EQ(shape_of(s), r.out_shape);
        EXPECT_TRUE(all_close(read(s), each(r, sum_of), d, each(r, abs_sum_of)));
        const xd::Tensor m = xd::mean(x, dims, keep);
        EXPECT_EQ(shape_of(m), r.out_shape);
        auto mean_of = [](const std::vector<double>& g) { return sum_of(g) / static_cast<double>(g.size()); };
        auto mean_scale = [](const std::vector<double>& g) { return abs_sum_of(g) / static_cast<double>(g.size()); };
        EXPECT_TRUE(all_close(read(m), each(r, mean_of), d, each(r, mean_scale)));
      }
    }
  }
}

TEST(Sum, RandomIntegerDtypesExact) {
  uint32_t seed = 40;
  for (Dtype d : int_dtypes()) {
    const auto v = random_values(5 * 7 * 3, -100, 100, d, ++seed);
    for (const auto& dims : dim_sets()) {
      SCOPED_TRACE(trace(d) + " dims " + ::testing::PrintToString(dims));
      EXPECT_TRUE(all_equal(read(xd::sum(make(v, {5, 7, 3}, d), dims)), each(group(v, {5, 7, 3}, dims, false), sum_of)));
    }
  }
}

TEST(Sum, StridedInputs) {
  const auto base = random_values(6 * 8 * 5, -4, 4, Dtype::f64, 3);
  const xd::Tensor t = make(base, {6, 8, 5}, Dtype::f64);
  // permute -> [5, 6, 8] strides [1, 40, 5]
  const auto pv = gather(base, {5, 6, 8}, {1, 40, 5}, 0);
  for (const auto& dims : dim_sets()) {
    SCOPED_TRACE(::testing::PrintToString(dims));
    const Reduced r = group(pv, {5, 6, 8}, dims, true);
    EXPECT_TRUE(all_close(read(xd::sum(t.permute({2, 0, 1}), dims, true)), each(r, sum_of), Dtype::f64));
    EXPECT_TRUE(all_equal(read(xd::amax(t.permute({2, 0, 1}), dims, true)), each(r, max_of)));
  }
  // step slices: [3, 8, 2] strides [80, 5, 3], offset 41
  const xd::Tensor s = t.slice(0, 1, 6, 2).slice(2, 1, 5, 3);
  ASSERT_EQ(strides_of(s), (Shape{80, 5, 3}));
  const auto sv = gather(base, {3, 8, 2}, {80, 5, 3}, 41);
  EXPECT_TRUE(all_close(read(xd::sum(s, {1})), each(group(sv, {3, 8, 2}, {1}, false), sum_of), Dtype::f64));
  EXPECT_TRUE(all_close(read(xd::mean(s, {0, 2})), each(group(sv, {3, 8, 2}, {0, 2}, false), [](const std::vector<double>& g) {
                          return sum_of(g) / static_cast<double>(g.size());
                        }),
                        Dtype::f64));
  // expanded input: the broadcast dim counts every repeat
  const xd::Tensor e = make({1, 2, 3}, {3, 1}, Dtype::f32).expand({3, 4});
  EXPECT_TRUE(all_equal(read(xd::sum(e, {1})), {4, 8, 12}));
  EXPECT_TRUE(all_equal(read(xd::sum(e, {0})), {6, 6, 6, 6}));
}

TEST(Mean, KnownValues) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor x = make({1, 2, 3, 4, 5, 6}, {2, 3}, d);
    EXPECT_TRUE(all_equal(read(xd::mean(x)), {3.5}));
    EXPECT_TRUE(all_equal(read(xd::mean(x, {0})), {2.5, 3.5, 4.5}));
    EXPECT_TRUE(all_equal(read(xd::mean(x, {1}, true)), {2, 5}));
    EXPECT_EQ(xd::mean(x).dtype(), d);
  }
}

TEST(Sum, SizeOneAndZeroDimInputs) {
  EXPECT_TRUE(all_equal(read(xd::sum(make({7}, {1, 1}, Dtype::f32), {0})), {7}));
  const xd::Tensor z = make({2.5}, {}, Dtype::f64);
  EXPECT_EQ(xd::sum(z).item<double>(), 2.5);
  EXPECT_EQ(xd::sum(z, {0}).item<double>(), 2.5);
  EXPECT_EQ(xd::amax(z).item<double>(), 2.5);
  EXPECT_EQ(xd::mean(z).item<double>(), 2.5);
}

// ------------------------------------------------------------------ amax / amin

TEST(Amax, KnownValuesOverDims) {
  const xd::Tensor x = make({3, -1, 7, 2, 9, -5}, {2, 3}, Dtype::f32);
  EXPECT_TRUE(all_equal(read(xd::amax(x)), {9}));
  EXPECT_TRUE(all_equal(read(xd::amin(x)), {-5}));
  EXPECT_TRUE(all_equal(read(xd::amax(x, {0})), {3, 9, 7}));
  EXPECT_TRUE(all_equal(read(xd::amin(x, {1}, true)), {-1, -5}));
  EXPECT_EQ(shape_of(xd::amin(x, {1}, true)), (Shape{2, 1}));
}

TEST(Amax, NanPropagates) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor x = make({1, kNaN, 3, 4, 5, 6}, {2, 3}, d);
    EXPECT_TRUE(all_equal(read(xd::amax(x)), {kNaN}));
    EXPECT_TRUE(all_equal(read(xd::amin(x)), {kNaN}));
    EXPECT_TRUE(all_equal(read(xd::amax(x, {1})), {kNaN, 6}));
    EXPECT_TRUE(all_equal(read(xd::amin(x, {1})), {kNaN, 4}));
    EXPECT_TRUE(all_equal(read(xd::amax(x, {0})), {4, kNaN, 6}));
    // NaN last in its row too (a "max = x > max ? x : max" loop misses it there).
    EXPECT_TRUE(all_equal(read(xd::amax(make({1, 2, kNaN}, {3}, d))), {kNaN}));
    EXPECT_TRUE(all_equal(read(xd::amin(make({1, 2, kNaN}, {3}, d))), {kNaN}));
  }
}

TEST(Amax, InfinitiesAndAllNegative) {
  EXPECT_TRUE(all_equal(read(xd::amax(make({-kInf, -kInf}, {2}, Dtype::f32))), {-kInf}));
  EXPECT_TRUE(all_equal(read(xd::amin(make({kInf, 1}, {2}, Dtype::f32))), {1}));
  EXPECT_TRUE(all_equal(read(xd::amax(make({-7, -3, -9}, {3}, Dtype::f16))), {-3}));
}

TEST(Amax, RandomEveryNumericDtypeAndDimSetExact) {
  uint32_t seed = 60;
  for (Dtype d : numeric_dtypes()) {
    const auto v = random_values(5 * 7 * 3, -100, 100, d, ++seed);
    const xd::Tensor x = make(v, {5, 7, 3}, d);
    for (const auto& dims : dim_sets()) {
      SCOPED_TRACE(trace(d) + " dims " + ::testing::PrintToString(dims));
      const Reduced r = group(v, {5, 7, 3}, dims, false);
      const xd::Tensor mx = xd::amax(x, dims), mn = xd::amin(x, dims);
      EXPECT_EQ(mx.dtype(), d);
      EXPECT_TRUE(all_equal(read(mx), each(r, max_of)));
      EXPECT_TRUE(all_equal(read(mn), each(r, min_of)));
    }
  }
}

TEST(Amin, TransposedSlicedAndPermutedInputsKnownValues) {
  // x = [[3, -1, 4, 0], [1, -5, 9, 2]]
  for (Dtype d : {Dtype::f32, Dtype::i32, Dtype::bf16}) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor x = make({3, -1, 4, 0, 1, -5, 9, 2}, {2, 4}, d);
    // x.t() = [[3, 1], [-1, -5], [4, 9], [0, 2]], strides [1, 4]
    EXPECT_TRUE(all_equal(read(xd::amin(x.t(), {1})), {1, -5, 4, 0}));
    EXPECT_TRUE(all_equal(read(xd::amin(x.t(), {0})), {-1, -5}));
    // columns 0 and 2: [[3, 4], [1, 9]], strides [4, 2]
    const xd::Tensor s = x.slice(1, 0, 4, 2);
    EXPECT_TRUE(all_equal(read(xd::amin(s, {0})), {1, 4}));
    EXPECT_TRUE(all_equal(read(xd::amin(s, {1}, true)), {3, 1}));
    EXPECT_TRUE(all_equal(read(xd::amin(s)), {1}));
  }
}

TEST(Amin, RandomPermutedAndStepSlicedInputsEveryNumericDtype) {
  uint32_t seed = 160;
  for (Dtype d : numeric_dtypes()) {
    const auto base = random_values(4 * 9 * 5, -100, 100, d, ++seed);
    const xd::Tensor x = make(base, {4, 9, 5}, d);
    // permuted: [9, 5, 4] strides [5, 1, 45]; step-sliced: rows 1, 4, 7 and columns 0, 2, 4 of
    // each of the 4 matrices: [4, 3, 3] strides [45, 15, 2], offset 5.
    const xd::Tensor p = x.permute({1, 2, 0}), s = x.slice(1, 1, 9, 3).slice(2, 0, 5, 2);
    ASSERT_EQ(strides_of(s), (Shape{45, 15, 2}));
    const auto pv = gather(base, {9, 5, 4}, {5, 1, 45}, 0), sv = gather(base, {4, 3, 3}, {45, 15, 2}, 5);
    for (const auto& dims : dim_sets()) {
      SCOPED_TRACE(trace(d) + " dims " + ::testing::PrintToString(dims));
      EXPECT_TRUE(all_equal(read(xd::amin(p, dims)), each(group(pv, {9, 5, 4}, dims, false), min_of)));
      EXPECT_TRUE(all_equal(read(xd::amin(s, dims, true)), each(group(sv, {4, 3, 3}, dims, true), min_of)));
    }
  }
}

TEST(Amax, UnsignedAndExtremeIntegers) {
  EXPECT_TRUE(all_equal(read(xd::amax(make({1, 255, 128}, {3}, Dtype::u8))), {255}));
  EXPECT_TRUE(all_equal(read(xd::amin(make({1, 255, 0}, {3}, Dtype::u8))), {0}));
  EXPECT_TRUE(all_equal(read(xd::amin(make({-128, 127}, {2}, Dtype::i8))), {-128}));
  EXPECT_EQ(xd::amax(make_i64({INT64_MIN, INT64_MIN + 1}, {2})).item<int64_t>(), INT64_MIN + 1);
  EXPECT_EQ(xd::amin(make_i64({INT64_MAX, INT64_MAX - 1}, {2})).item<int64_t>(), INT64_MAX - 1);
}

// ------------------------------------------------------------------ argmax

TEST(Argmax, FirstIndexWinsOnTies) {
  const xd::Tensor a = xd::argmax(make({1, 3, 3, 2}, {4}, Dtype::f32), 0);
  EXPECT_EQ(a.dtype(), Dtype::i64);
  EXPECT_EQ(a.dim(), 0);
  EXPECT_EQ(a.item<int64_t>(), 1);
  EXPECT_EQ(xd::argmax(make({5, 5, 5}, {3}, Dtype::i32), 0).item<int64_t>(), 0);
  EXPECT_EQ(xd::argmax(make({-kInf, -kInf}, {2}, Dtype::f64), 0).item<int64_t>(), 0);
}

TEST(Argmax, NanCountsAsTheMaximumFirstNanWins) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_EQ(xd::argmax(make({1, kNaN, 5, kNaN}, {4}, d), 0).item<int64_t>(), 1);
    EXPECT_EQ(xd::argmax(make({kInf, 2, kNaN}, {3}, d), 0).item<int64_t>(), 2);
  }
}

TEST(Argmax, OverEachDimWithKeepdim) {
  const xd::Tensor x = make({3, 9, 2, 7, 1, 8}, {2, 3}, Dtype::i64);
  EXPECT_EQ(xd::argmax(x, 0).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(xd::argmax(x, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(xd::argmax(x, -1).to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  const xd::Tensor k = xd::argmax(x, 1, true);
  EXPECT_EQ(shape_of(k), (Shape{2, 1}));
  EXPECT_EQ(k.to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
}

TEST(Argmax, RandomEveryNumericDtypeAndStridedInput) {
  uint32_t seed = 80;
  for (Dtype d : numeric_dtypes()) {
    const auto base = random_values(4 * 9 * 5, -6, 6, d, ++seed);  // few distinct values: many ties
    const xd::Tensor t = make(base, {4, 9, 5}, d).permute({1, 2, 0});  // [9, 5, 4] strides [5, 1, 45]
    const auto v = gather(base, {9, 5, 4}, {5, 1, 45}, 0);
    for (int64_t dim : {0, 1, 2}) {
      SCOPED_TRACE(trace(d) + " dim " + std::to_string(dim));
      EXPECT_TRUE(all_equal(read(xd::argmax(t, dim)), each(group(v, {9, 5, 4}, {dim}, false), argmax_of)));
    }
  }
}

TEST(Argmax, ExpandedInputsTieOnTheFirstIndex) {
  for (Dtype d : {Dtype::f32, Dtype::i64, Dtype::f16}) {
    SCOPED_TRACE(trace(d));
    // [1, 5, 2] expanded to [4, 3] (strides [0, 1]): each row's maximum is at 1; down a column
    // all four rows are one stored value, so the first index, 0, wins.
    const xd::Tensor r = make({1, 5, 2}, {3}, d).expand({4, 3});
    EXPECT_EQ(xd::argmax(r, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 1, 1}));
    EXPECT_EQ(xd::argmax(r, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0}));
    // [[7], [9], [8]] expanded to [3, 5] (strides [1, 0]): a column's maximum is row 1.
    const xd::Tensor c = make({7, 9, 8}, {3, 1}, d).expand({3, 5});
    EXPECT_EQ(xd::argmax(c, 0).to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 1, 1, 1}));
    EXPECT_EQ(xd::argmax(c, 1, true).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0}));
  }
}

TEST(Argmax, SizeOneDimGivesIndexZero) {
  EXPECT_EQ(xd::argmax(make({4, 2}, {2, 1}, Dtype::f32), 1).to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
}

TEST(Argmax, ZeroDimInputGivesIndexZero) {
  // PyTorch: torch.argmax(torch.tensor(4.), 0) == 0.
  EXPECT_EQ(xd::argmax(make({4}, {}, Dtype::f32), 0).item<int64_t>(), 0);
  EXPECT_EQ(xd::argmax(make({4}, {}, Dtype::i32), -1, true).item<int64_t>(), 0);
}

// ------------------------------------------------------------------ softmax / log_softmax

TEST(Softmax, KnownValues) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::softmax(make({1, 2, 3}, {3}, d), 0)),
                          {0.09003057317038046, 0.24472847105479767, 0.6652409557748219}, d));
    EXPECT_TRUE(all_close(read(xd::log_softmax(make({1, 2, 3}, {3}, d), 0)),
                          {-2.40760596444438, -1.4076059644443801, -0.40760596444438013}, d));
  }
}

TEST(Softmax, NegativeInfinityEntriesGetZeroProbability) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::softmax(make({0, -kInf, 0, -kInf}, {2, 2}, d), 1)), {1, 0, 1, 0}, d));
    EXPECT_TRUE(all_close(read(xd::softmax(make({0, -kInf, 0}, {3}, d), 0)), {0.5, 0, 0.5}, d));
    EXPECT_TRUE(all_close(read(xd::log_softmax(make({0, -kInf, 0}, {3}, d), 0)),
                          {-0.6931471805599453, -kInf, -0.6931471805599453}, d));
  }
}

TEST(Softmax, LargeLogitsDoNotOverflow) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_close(read(xd::softmax(make({1000, 1000, -1000, 0}, {2, 2}, d), 1)), {0.5, 0.5, 0, 1}, d));
    EXPECT_TRUE(all_close(read(xd::log_softmax(make({1000, 0}, {2}, d), 0)), {0, -1000}, d));
  }
}

std::vector<double> softmax_ref(const std::vector<double>& v, const Shape& s, int64_t dim, bool log) {
  const int64_t outer = numel_of(Shape(s.begin(), s.begin() + dim)), n = s[static_cast<size_t>(dim)];
  const int64_t inner = numel_of(Shape(s.begin() + dim + 1, s.end()));
  std::vector<double> out(v.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return static_cast<size_t>((o * n + k) * inner + i); };
      double m = -kInf, z = 0;
      for (int64_t k = 0; k < n; ++k) m = std::max(m, v[at(k)]);
      for (int64_t k = 0; k < n; ++k) z += std::exp(v[at(k)] - m);
      for (int64_t k = 0; k < n; ++k) out[at(k)] = log ? v[at(k)] - m - std::log(z) : std::exp(v[at(k)] - m) / z;
    }
  return out;
}

TEST(Softmax, RandomEveryDimAndFloatDtypeMatchesFp64) {
  uint32_t seed = 90;
  for (Dtype d : float_dtypes()) {
    const auto v = random_values(4 * 5 * 7, -6, 6, d, ++seed);
    const xd::Tensor x = make(v, {4, 5, 7}, d);
    for (int64_t dim : {0, 1, 2}) {
      SCOPED_TRACE(trace(d) + " dim " + std::to_string(dim));
      const xd::Tensor s = xd::softmax(x, dim);
      EXPECT_EQ(s.dtype(), d);
      EXPECT_TRUE(all_close(read(s), softmax_ref(v, {4, 5, 7}, dim, false), d));
      const Tol t{tol(d).rtol, tol(d).rtol * 8};  // log-probabilities near 0 are judged absolutely
      EXPECT_TRUE(all_close(read(xd::log_softmax(x, dim - 3)), softmax_ref(v, {4, 5, 7}, dim, true), t));
    }
  }
}

TEST(Softmax, TransposedAndSlicedInputs) {
  const auto base = random_values(9 * 6, -3, 3, Dtype::f32, 5);
  const xd::Tensor t = make(base, {9, 6}, Dtype::f32);
  const auto tv = gather(base, {6, 9}, {1, 6}, 0);
  EXPECT_TRUE(all_close(read(xd::softmax(t.t(), 1)), softmax_ref(tv, {6, 9}, 1, false), Dtype::f32));
  EXPECT_TRUE(all_close(read(xd::log_softmax(t.t(), 0)), softmax_ref(tv, {6, 9}, 0, true), Dtype::f32));
  const xd::Tensor s = t.slice(0, 0, 9, 4);  // rows 0, 4, 8: [3, 6] strides [24, 1]
  const auto sv = gather(base, {3, 6}, {24, 1}, 0);
  EXPECT_TRUE(all_close(read(xd::softmax(s, 1)), softmax_ref(sv, {3, 6}, 1, false), Dtype::f32));
}

TEST(Softmax, ExpandedInputs) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    // [1, 2, 3] expanded to [2, 3] (strides [0, 1]): each row is softmax([1, 2, 3]); a column
    // holds one value twice, so 1/2 each (log: -ln 2).
    const xd::Tensor r = make({1, 2, 3}, {3}, d).expand({2, 3});
    const std::vector<double> row = {0.09003057317038046, 0.24472847105479767, 0.6652409557748219};
    std::vector<double> rows = row;
    rows.insert(rows.end(), row.begin(), row.end());
    EXPECT_TRUE(all_close(read(xd::softmax(r, 1)), rows, d));
    EXPECT_TRUE(all_close(read(xd::softmax(r, 0)), std::vector<double>(6, 0.5), d));
    EXPECT_TRUE(all_close(read(xd::log_softmax(r, 0)), std::vector<double>(6, -std::numbers::ln2), d));
  }
  // Random columns expanded along the softmax dim and across it, against fp64.
  const auto col = random_values(4, -3, 3, Dtype::f32, 17);
  const xd::Tensor c = make(col, {4, 1}, Dtype::f32).expand({4, 6});  // strides [1, 0]
  const auto cv = gather(col, {4, 6}, {1, 0}, 0);
  EXPECT_TRUE(all_close(read(xd::softmax(c, 1)), softmax_ref(cv, {4, 6}, 1, false), Dtype::f32));
  EXPECT_TRUE(all_close(read(xd::softmax(c, 0)), softmax_ref(cv, {4, 6}, 0, false), Dtype::f32));
  EXPECT_TRUE(all_close(read(xd::log_softmax(c, 0)), softmax_ref(cv, {4, 6}, 0, true), Dtype::f32));
}

TEST(Softmax, SizeOneDimAndEmptyInput) {
  EXPECT_TRUE(all_equal(read(xd::softmax(make({5, -7}, {2, 1}, Dtype::f32), 1)), {1, 1}));
  EXPECT_TRUE(all_equal(read(xd::log_softmax(make({5, -7}, {2, 1}, Dtype::f32), 1)), {0, 0}));
  EXPECT_EQ(shape_of(xd::softmax(xd::empty({0, 4}, Dtype::f32, dev()), 1)), (Shape{0, 4}));
  EXPECT_EQ(shape_of(xd::log_softmax(xd::empty({3, 0}, Dtype::f32, dev()), 1)), (Shape{3, 0}));
}

TEST(Softmax, ZeroDimInputGivesOne) {
  // PyTorch: torch.softmax(torch.tensor(3.), 0) == 1, log_softmax == 0.
  EXPECT_EQ(xd::softmax(make({3}, {}, Dtype::f64), 0).item<double>(), 1.0);
  EXPECT_EQ(xd::log_softmax(make({3}, {}, Dtype::f32), -1).item<float>(), 0.0f);
}

TEST(Softmax, LongRowSumsToOne) {
  const auto v = random_values(4099, -10, 10, Dtype::f32, 8);
  const auto p = read(xd::softmax(make(v, {1, 4099}, Dtype::f32), 1));
  EXPECT_NEAR(sum_of(p), 1.0, 1e-5);
  EXPECT_TRUE(all_close(p, softmax_ref(v, {1, 4099}, 1, false), Dtype::f32));
}

}  // namespace
