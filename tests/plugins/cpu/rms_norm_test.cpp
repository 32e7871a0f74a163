// rms_norm and rms_norm_backward on the CPU backend: literal cases, the default eps, an fp64
// recomputation with and without weight over one and several normalized dims in every float
// dtype, strided inputs, empty batches, output_mask variants, and a finite-difference check of
// the backward formula itself.
#include "test_util.hpp"

#include <cfloat>
#include <optional>

namespace {

using namespace xdt;
using xd::Dtype;

Dtype acc(Dtype d) { return d == Dtype::f64 ? Dtype::f64 : Dtype::f32; }

struct Fwd {
  std::vector<double> y, rstd;
};

// Rows of n trailing elements; w empty for no weight.
Fwd rms_ref(const std::vector<double>& x, int64_t n, const std::vector<double>& w, double eps) {
  Fwd f;
  const int64_t rows = static_cast<int64_t>(x.size()) / n;
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < n; ++i) ss += x[static_cast<size_t>(r * n + i)] * x[static_cast<size_t>(r * n + i)];
    const double rs = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
    f.rstd.push_back(rs);
    for (int64_t i = 0; i < n; ++i)
      f.y.push_back(x[static_cast<size_t>(r * n + i)] * rs * (w.empty() ? 1.0 : w[static_cast<size_t>(i)]));
  }
  return f;
}

struct Bwd {
  std::vector<double> dx, dw, dx_scale, dw_scale;
};

// x̂ = x·rstd, dx = rstd·(g·w − x̂·mean(g·w·x̂)), dw = Σ_rows g·x̂ (the CPU reference's formula,
// plugins/cpu/kernels/rms_norm_backward.cpp; the op: XD_OP_RMS_NORM_BACKWARD in plugin_abi.h).
Bwd rms_bwd_ref(const std::vector<double>& g, const std::vector<double>& x, int64_t n, const std::vector<double>& rstd,
                const std::vector<double>& w) {
  Bwd b;
  b.dw.assign(static_cast<size_t>(n), 0.0);
  b.dw_scale.assign(static_cast<size_t>(n), 0.0);
  const int64_t rows = static_cast<int64_t>(x.size()) / n;
  for (int64_t r = 0; r < rows; ++r) {
    const double rs = rstd[static_cast<size_t>(r)];
    double m = 0, mabs = 0;
    for (int64_t i = 0; i < n; ++i) {
      const size_t p = static_cast<size_t>(r * n + i);
      const double gw = g[p] * (w.empty() ? 1.0 : w[static_cast<size_t>(i)]);
      m += gw * x[p] * rs;
      mabs += std::fabs(gw * x[p] * rs);
    }
    m /= static_cast<double>(n);
    mabs /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) {
      const size_t p = static_cast<size_t>(r * n + i);
      const double gw = g[p] * (w.empty() ? 1.0 : w[static_cast<size_t>(i)]);
      const double xh = x[p] * rs;
      b.dx.push_back(rs * (gw - xh * m));
      b.dx_scale.push_back(rs * (std::fabs(gw) + std::fabs(xh) * mabs));
      b.dw[static_cast<size_t>(i)] += g[p] * xh;
      b.dw_scale[static_cast<size_t>(i)] += std::fabs(g[p] * xh);
    }
  }
  return b;
}

// ------------------------------------------------------------------ forward

TEST(RmsNorm, KnownValuesWithoutWeight) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto [y, rstd] = xd::rms_norm(make({1, 2, 3, 4}, {1, 4}, d), {4}, std::nullopt, 0.0);
    EXPECT_EQ(y.dtype(), d);
    EXPECT_EQ(rstd.dtype(), acc(d));
    EXPECT_EQ(shape_of(rstd), (Shape{1, 1}));
    EXPECT_TRUE(all_close(read(rstd), {0.3651483716701107}, acc(d)));
    EXPECT_TRUE(all_close(read(y), {0.3651483716701107, 0.7302967433402214, 1.0954451150103321, 1.4605934866804429}, d));
  }
}

TEST(RmsNorm, KnownValuesWithWeight) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto [y, rstd] = xd::rms_norm(make({1, 2, 3, 4}, {4}, d), {4}, make({1, 0.5, 2, -1}, {4}, d), 0.0);
    EXPECT_EQ(shape_of(rstd), (Shape{1}));
    EXPECT_TRUE(all_close(read(y), {0.3651483716701107, 0.3651483716701107, 2.1908902300206643, -1.4605934866804429}, d));
  }
}

TEST(RmsNorm, DefaultEpsIsMachineEpsilonOfTheAccumulationType) {
  // All-zero rows: rstd = 1/sqrt(eps) exactly shows which eps was used.
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto [y, rstd] = xd::rms_norm(xd::zeros({2, 3}, d, dev()), {3});
    const double want = d == Dtype::f64 ? 67108864.0 : 2896.3093757400984;  // 1/sqrt(DBL_EPSILON), 1/sqrt(FLT_EPSILON)
    EXPECT_TRUE(all_close(read(rstd), {want, want}, acc(d)));
    EXPECT_TRUE(all_equal(read(y), std::vector<double>(6, 0.0)));
  }
}

TEST(RmsNorm, ExplicitEpsIsAddedToTheMeanSquare) {
  const auto [y, rstd] = xd::rms_norm(make({3, 4}, {2}, Dtype::f64), {2}, std::nullopt, 0.5);
  EXPECT_TRUE(all_close(read(rstd), {1.0 / std::sqrt(12.5 + 0.5)}, Dtype::f64));
  EXPECT_TRUE(all_close(read(y), {3.0 / std::sqrt(13.0), 4.0 / std::sqrt(13.0)}, Dtype::f64));
}

TEST(RmsNorm, RandomOneAndSeveralNormalizedDimsWithAndWithoutWeight) {
  struct Case {
    Shape shape;
    Shape normalized;
  };
  const std::vector<Case> cases = {{{5, 7}, {7}}, {{3, 4, 6}, {4, 6}}, {{2, 3, 5, 3}, {5, 3}}, {{2, 3, 4}, {2, 3, 4}},
                                   {{1, 13}, {13}}, {{37}, {37}}};
  uint32_t seed = 1;
  for (Dtype d : float_dtypes()) {
    for (const auto& c : cases) {
      for (bool with_w : {false, true}) {
        SCOPED_TRACE(trace(d) + " shape " + ::testing::PrintToString(c.shape) + " weight " + std::to_string(with_w));
        const int64_t n = numel_of(c.normalized);
        const auto x = random_values(static_cast<size_t>(numel_of(c.shape)), -3, 3, d, ++seed);
        const auto w = with_w ? random_values(static_cast<size_t>(n), -2, 2, d, ++seed) : std::vector<double>{};
        const std::optional<xd::Tensor> wt = with_w ? std::optional<xd::Tensor>(make(w, c.normalized, d)) : std::nullopt;
        const auto [y, rstd] = xd::rms_norm(make(x, c.shape, d), c.normalized, wt, 1e-6);
        Shape rshape = c.shape;
        for (size_t i = c.shape.size() - c.normalized.size(); i < c.shape.size(); ++i) rshape[i] = 1;
        EXPECT_EQ(shape_of(rstd), rshape);
        EXPECT_EQ(shape_of(y), c.shape);
        EXPECT_EQ(rstd.dtype(), acc(d));
        const Fwd want = rms_ref(x, n, w, 1e-6);
        EXPECT_TRUE(all_close(read(rstd), want.rstd, acc(d)));
        EXPECT_TRUE(all_close(read(y), want.y, d));
      }
    }
  }
}

TEST(RmsNorm, TransposedPermutedAndSlicedInputs) {
  for (Dtype d : {Dtype::f32, Dtype::bf16}) {
    SCOPED_TRACE(trace(d));
    const auto base = random_values(9 * 6, -2, 2, d, 11);
    const auto wbase = random_values(18, -2, 2, d, 12);
    const xd::Tensor x = make(base, {9, 6}, d).t();                 // [6, 9] strides [1, 6]
    const xd::Tensor w = make(wbase, {18}, d).slice(0, 0, 18, 2);  // [9] stride 2
    const auto xv = gather(base, {6, 9}, {1, 6}, 0), wv = gather(wbase, {9}, {2}, 0);
    const auto [y, rstd] = xd::rms_norm(x, {9}, w, 1e-5);
    const Fwd want = rms_ref(xv, 9, wv, 1e-5);
    EXPECT_TRUE(all_close(read(rstd), want.rstd, acc(d)));
    EXPECT_TRUE(all_close(read(y), want.y, d));
    // 3-d permuted, normalizing the last two dims of the view.
    const xd::Tensor p = make(base, {3, 6, 3}, d).permute({1, 0, 2});  // [6, 3, 3] strides [3, 18, 1]
    const auto pv = gather(base, {6, 3, 3}, {3, 18, 1}, 0);
    const auto [y2, rstd2] = xd::rms_norm(p, {3, 3}, std::nullopt, 1e-5);
    EXPECT_TRUE(all_close(read(y2), rms_ref(pv, 9, {}, 1e-5).y, d));
  }
}

TEST(RmsNorm, ExpandedInputAndWeight) {
  // x = [3, 4] expanded to [2, 2] (strides [0, 1]): mean square 12.5, so with eps 0 each row is
  // [3, 4] / sqrt(12.5) = [0.848528..., 1.131370...]; weight 2 expanded to [2] doubles it.
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor x = make({3, 4}, {2}, d).expand({2, 2});
    const xd::Tensor w = make({2}, {1}, d).expand({2});
    ASSERT_EQ(strides_of(x), (Shape{0, 1}));
    ASSERT_EQ(strides_of(w), (Shape{0}));
    const auto [y, rstd] = xd::rms_norm(x, {2}, w, 0.0);
    const double r = 1.0 / std::sqrt(12.5);
    EXPECT_TRUE(all_close(read(rstd), {r, r}, acc(d)));
    EXPECT_TRUE(all_close(read(y), {6 * r, 8 * r, 6 * r, 8 * r}, d));
  }
  // Random: one row of 7 expanded to 5 rows, a column of 5 expanded across 7, against fp64.
  for (Dtype d : {Dtype::f32, Dtype::bf16}) {
    SCOPED_TRACE(trace(d));
    const auto row = random_values(7, -2, 2, d, 31), col = random_values(5, -2, 2, d, 32);
    const auto wv = random_values(7, -2, 2, d, 33);
    const xd::Tensor w = make(wv, {7}, d);
    const auto [y1, rstd1] = xd::rms_norm(make(row, {7}, d).expand({5, 7}), {7}, w, 1e-5);
    const Fwd want1 = rms_ref(gather(row, {5, 7}, {0, 1}, 0), 7, wv, 1e-5);
    EXPECT_TRUE(all_close(read(rstd1), want1.rstd, acc(d)));
    EXPECT_TRUE(all_close(read(y1), want1.y, d));
    const auto [y2, rstd2] = xd::rms_norm(make(col, {5, 1}, d).expand({5, 7}), {7}, w, 1e-5);
    const Fwd want2 = rms_ref(gather(col, {5, 7}, {1, 0}, 0), 7, wv, 1e-5);
    EXPECT_TRUE(all_close(read(rstd2), want2.rstd, acc(d)));
    EXPECT_TRUE(all_close(read(y2), want2.y, d));
  }
}

TEST(RmsNorm, EmptyBatchAndSizeOneNormalizedDim) {
  const auto [y, rstd] = xd::rms_norm(xd::empty({0, 4}, Dtype::f32, dev()), {4}, xd::ones({4}, Dtype::f32, dev()));
  EXPECT_EQ(shape_of(y), (Shape{0, 4}));
  EXPECT_EQ(shape_of(rstd), (Shape{0, 1}));
  const auto [y1, r1] = xd::rms_norm(make({2, -0.5, 4}, {3, 1}, Dtype::f64), {1}, std::nullopt, 0.0);
  EXPECT_TRUE(all_close(read(r1), {0.5, 2.0, 0.25}, Dtype::f64));
  EXPECT_TRUE(all_close(read(y1), {1, -1, 1}, Dtype::f64));  // x / |x|
}

TEST(RmsNorm, LowPrecisionInputsAccumulateInF32) {
  // 4096 ones: an f16 sum of squares would stop at 2048. 300^2 overflows f16. Large bf16 values
  // normalise to 1.
  const auto [y, rstd] = xd::rms_norm(xd::ones({2, 4096}, Dtype::f16, dev()), {4096});
  EXPECT_TRUE(all_close(read(rstd), {1.0 / std::sqrt(1.0 + FLT_EPSILON), 1.0 / std::sqrt(1.0 + FLT_EPSILON)}, Dtype::f32));
  const auto [y2, rstd2] = xd::rms_norm(xd::full({1, 8}, 300.0, Dtype::f16, dev()), {8}, std::nullopt, 0.0);
  EXPECT_TRUE(all_close(read(rstd2), {1.0 / 300.0}, Dtype::f32));
  EXPECT_TRUE(all_close(read(y2), std::vector<double>(8, 1.0), Dtype::f16));
  const auto [y3, rstd3] = xd::rms_norm(xd::full({1, 8}, 1e10, Dtype::bf16, dev()), {8}, std::nullopt, 0.0);
  EXPECT_TRUE(all_close(read(y3), std::vector<double>(8, 1.0), Dtype::bf16));
}

// ------------------------------------------------------------------ backward

TEST(RmsNormBackward, KnownValuesWithoutWeight) {
  const xd::Tensor x = make({1, 2}, {1, 2}, Dtype::f64);
  const auto [y, rstd] = xd::rms_norm(x, {2}, std::nullopt, 0.0);
  const auto [dx, dw] = xd::rms_norm_backward(make({1, 1}, {1, 2}, Dtype::f64), x, {2}, rstd, std::nullopt);
  EXPECT_TRUE(all_close(read(rstd), {0.6324555320336759}, Dtype::f64));
  EXPECT_TRUE(all_close(read(dx), {0.2529822128134704, -0.12649110640673514}, Dtype::f64));
  EXPECT_FALSE(dw.defined());  // no weight, no weight gradient
}

TEST(RmsNormBackward, KnownValuesWithWeightTwoRows) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor x = make({1, 2, 3, -1}, {2, 2}, d), w = make({2, 0.5}, {2}, d);
    const auto [y, rstd] = xd::rms_norm(x, {2}, w, 0.0);
    const auto [dx, dw] = xd::rms_norm_backward(make({1, 1, 0.5, -2}, {2, 2}, d), x, {2}, rstd, w);
    ASSERT_TRUE(dx.defined() && dw.defined());
    EXPECT_EQ(dx.dtype(), d);
    EXPECT_EQ(dw.dtype(), d);
    EXPECT_EQ(shape_of(dw), (Shape{2}));
    EXPECT_TRUE(all_close(read(dx), {0.8854377448471462, -0.4427188724235731, -0.08944271909999156, -0.2683281572999748},
                          Tol{tol(d).rtol, tol(d).rtol}));
    EXPECT_TRUE(all_close(read(dw), {1.3032759252836128, 2.1593382550672677}, d));
  }
}

TEST(RmsNormBackward, RandomEveryDtypeMatchesFp64) {
  struct Case {
    Shape shape;
    Shape normalized;
  };
  const std::vector<Case> cases = {{{6, 11}, {11}}, {{3, 4, 5}, {4, 5}}, {{2, 2, 3, 7}, {3, 7}}, {{1, 64}, {64}}};
  uint32_t seed = 100;
  for (Dtype d : float_dtypes()) {
    for (const auto& c : cases) {
      for (bool with_w : {false, true}) {
        SCOPED_TRACE(trace(d) + " shape " + ::testing::PrintToString(c.shape) + " weight " + std::to_string(with_w));
        const int64_t n = numel_of(c.normalized), total = numel_of(c.shape);
        const auto x = random_values(static_cast<size_t>(total), -3, 3, d, ++seed);
        const auto g = random_values(static_cast<size_t>(total), -2, 2, d, ++seed);
        const auto w = with_w ? random_values(static_cast<size_t>(n), -2, 2, d, ++seed) : std::vector<double>{};
        // rstd as the forward would give it, rounded to its dtype; the reference uses the same values.
        std::vector<double> rs = rms_ref(x, n, {}, 1e-6).rstd;
        for (auto& r : rs) r = quantize(r, acc(d));
        Shape rshape = c.shape;
        for (size_t i = c.shape.size() - c.normalized.size(); i < c.shape.size(); ++i) rshape[i] = 1;
        const std::optional<xd::Tensor> wt = with_w ? std::optional<xd::Tensor>(make(w, c.normalized, d)) : std::nullopt;
        const auto [dx, dw] = xd::rms_norm_backward(make(g, c.shape, d), make(x, c.shape, d), c.normalized,
                                                    make(rs, rshape, acc(d)), wt);
        const Bwd want = rms_bwd_ref(g, x, n, rs, w);
        EXPECT_EQ(shape_of(dx), c.shape);
        EXPECT_TRUE(all_close(read(dx), want.dx, d, want.dx_scale));
        EXPECT_EQ(dw.defined(), with_w);
        if (with_w) {
          EXPECT_EQ(shape_of(dw), c.normalized);
          EXPECT_TRUE(all_close(read(dw), want.dw, d, want.dw_scale));
        }
      }
    }
  }
}

TEST(RmsNormBackward, OutputMaskSelectsWhichGradientsAreComputed) {
  const auto x = random_values(4 * 6, -2, 2, Dtype::f32, 7), g = random_values(4 * 6, -2, 2, Dtype::f32, 8);
  const auto w = random_values(6, -2, 2, Dtype::f32, 9);
  const xd::Tensor tx = make(x, {4, 6}, Dtype::f32), tg = make(g, {4, 6}, Dtype::f32), tw = make(w, {6}, Dtype::f32);
  const auto [y, rstd] = xd::rms_norm(tx, {6}, tw);
  const auto rs = read(rstd);
  const Bwd want = rms_bwd_ref(g, x, 6, rs, w);
  {
    const auto [dx, dw] = xd::rms_norm_backward(tg, tx, {6}, rstd, tw, {true, false});
    ASSERT_TRUE(dx.defined());
    EXPECT_FALSE(dw.defined());
    EXPECT_TRUE(all_close(read(dx), want.dx, Dtype::f32, want.dx_scale));
  }
  {
    const auto [dx, dw] = xd::rms_norm_backward(tg, tx, {6}, rstd, tw, {false, true});
    EXPECT_FALSE(dx.defined());
    ASSERT_TRUE(dw.defined());
    EXPECT_TRUE(all_close(read(dw), want.dw, Dtype::f32, want.dw_scale));
  }
  {
    const auto [dx, dw] = xd::rms_norm_backward(tg, tx, {6}, rstd, tw, {false, false});
    EXPECT_FALSE(dx.defined());
    EXPECT_FALSE(dw.defined());
  }
  {
    const auto [dx, dw] = xd::rms_norm_backward(tg, tx, {6}, rstd, std::nullopt, {true, true});
    ASSERT_TRUE(dx.defined());
    EXPECT_FALSE(dw.defined());
    EXPECT_TRUE(all_close(read(dx), rms_bwd_ref(g, x, 6, rs, {}).dx, Dtype::f32, want.dx_scale));
  }
}

// The backward formula against central differences of L = Σ g·y, computed here in double, so the
// reference formula above is itself checked.
TEST(RmsNormBackward, MatchesFiniteDifferencesOfTheForward) {
  const int64_t rows = 3, n = 5;
  const double eps = 1e-3;
  const auto x = random_values(static_cast<size_t>(rows * n), -2, 2, Dtype::f64, 21);
  const auto g = random_values(static_cast<size_t>(rows * n), -2, 2, Dtype::f64, 22);
  const auto w = random_values(static_cast<size_t>(n), -2, 2, Dtype::f64, 23);
  auto loss = [&](const std::vector<double>& xx, const std::vector<double>& ww) {
    const auto y = rms_ref(xx, n, ww, eps).y;
    double l = 0;
    for (size_t i = 0; i < y.size(); ++i) l += g[i] * y[i];
    return l;
  };
  const double h = 1e-6;
  std::vector<double> num_dx, num_dw;
  for (size_t i = 0; i < x.size(); ++i) {
    auto xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    num_dx.push_back((loss(xp, w) - loss(xm, w)) / (2 * h));
  }
  for (size_t i = 0; i < w.size(); ++i) {
    auto wp = w, wm = w;
    wp[i] += h;
    wm[i] -= h;
    num_dw.push_back((loss(x, wp) - loss(x, wm)) / (2 * h));
  }
  const xd::Tensor tx = make(x, {rows, n}, Dtype::f64), tw = make(w, {n}, Dtype::f64);
  const auto [y, rstd] = xd::rms_norm(tx, {n}, tw, eps);
  const auto [dx, dw] = xd::rms_norm_backward(make(g, {rows, n}, Dtype::f64), tx, {n}, rstd, tw);
  EXPECT_TRUE(all_close(read(dx), num_dx, Tol{1e-6, 1e-7}));
  EXPECT_TRUE(all_close(read(dw), num_dw, Tol{1e-6, 1e-7}));
}

TEST(RmsNormBackward, EmptyBatchGivesZeroWeightGradient) {
  poison(4 * 4);
  const xd::Tensor x = xd::empty({0, 4}, Dtype::f32, dev());
  const auto [dx, dw] = xd::rms_norm_backward(xd::empty({0, 4}, Dtype::f32, dev()), x, {4},
                                              xd::empty({0, 1}, Dtype::f32, dev()), xd::ones({4}, Dtype::f32, dev()));
  EXPECT_EQ(shape_of(dx), (Shape{0, 4}));
  ASSERT_TRUE(dw.defined());
  EXPECT_TRUE(all_equal(read(dw), {0, 0, 0, 0}));
}

TEST(RmsNormBackward, TransposedGradAndInput) {
  const auto xb = random_values(7 * 5, -2, 2, Dtype::f32, 31), gb = random_values(7 * 5, -2, 2, Dtype::f32, 32);
  const auto w = random_values(7, -2, 2, Dtype::f32, 33);
  const xd::Tensor x = make(xb, {7, 5}, Dtype::f32).t(), g = make(gb, {7, 5}, Dtype::f32).t();  // [5, 7]
  const auto xv = gather(xb, {5, 7}, {1, 5}, 0), gv = gather(gb, {5, 7}, {1, 5}, 0);
  const xd::Tensor tw = make(w, {7}, Dtype::f32);
  const auto [y, rstd] = xd::rms_norm(x, {7}, tw, 1e-6);
  const auto rs = read(rstd);
  EXPECT_TRUE(all_close(rs, rms_ref(xv, 7, {}, 1e-6).rstd, Dtype::f32));
  const auto [dx, dw] = xd::rms_norm_backward(g, x, {7}, rstd, tw);
  const Bwd want = rms_bwd_ref(gv, xv, 7, rs, w);
  EXPECT_TRUE(all_close(read(dx), want.dx, Dtype::f32, want.dx_scale));
  EXPECT_TRUE(all_close(read(dw), want.dw, Dtype::f32, want.dw_scale));
}

}  // namespace
