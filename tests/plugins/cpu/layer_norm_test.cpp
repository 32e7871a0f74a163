// layer_norm and layer_norm_backward on the CPU backend: literal cases, an fp64 recomputation with
// and without weight and bias over one and several normalized dims in every float dtype, strided
// inputs, empty batches and empty rows (PyTorch's mean 0, rstd NaN), output_mask variants, and a
// finite-difference check of the backward formula itself.
#include "test_util.hpp"

#include <optional>

namespace {

using namespace xdt;
using xd::Dtype;

Dtype acc(Dtype d) { return d == Dtype::f64 ? Dtype::f64 : Dtype::f32; }

struct Fwd {
  std::vector<double> y, mean, rstd;
};

// Rows of n trailing elements; w, b empty when absent. Two-pass fp64 statistics, biased variance.
Fwd ln_ref(const std::vector<double>& x, int64_t n, const std::vector<double>& w, const std::vector<double>& b,
           double eps) {
  Fwd f;
  const size_t un = static_cast<size_t>(n);
  for (size_t r = 0; r < x.size() / un; ++r) {
    double s = 0, ss = 0;
    for (size_t i = 0; i < un; ++i) s += x[r * un + i];
    const double m = s / static_cast<double>(n);
    for (size_t i = 0; i < un; ++i) ss += (x[r * un + i] - m) * (x[r * un + i] - m);
    const double rs = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
    f.mean.push_back(m);
    f.rstd.push_back(rs);
    for (size_t i = 0; i < un; ++i)
      f.y.push_back((x[r * un + i] - m) * rs * (w.empty() ? 1.0 : w[i]) + (b.empty() ? 0.0 : b[i]));
  }
  return f;
}

struct Bwd {
  std::vector<double> dx, dw, db, dx_scale, dw_scale, db_scale;
};

// xh = (x - mean)·rstd, gw = g·w: dx = rstd·(gw − mean(gw) − xh·mean(gw·xh)), dw = Σ_rows g·xh,
// db = Σ_rows g (XD_OP_LAYER_NORM_BACKWARD in plugin_abi.h).
Bwd ln_bwd_ref(const std::vector<double>& g, const std::vector<double>& x, int64_t n, const std::vector<double>& mean,
               const std::vector<double>& rstd, const std::vector<double>& w) {
  Bwd b;
  const size_t un = static_cast<size_t>(n);
  b.dw.assign(un, 0.0);
  b.db.assign(un, 0.0);
  b.dw_scale.assign(un, 0.0);
  b.db_scale.assign(un, 0.0);
  for (size_t r = 0; r < x.size() / un; ++r) {
    const double rs = rstd[r];
    double m1 = 0, m2 = 0, a1 = 0, a2 = 0;
    for (size_t i = 0; i < un; ++i) {
      const double gw = g[r * un + i] * (w.empty() ? 1.0 : w[i]);
      const double xh = (x[r * un + i] - mean[r]) * rs;
      m1 += gw;
      m2 += gw * xh;
      a1 += std::fabs(gw);
      a2 += std::fabs(gw * xh);
    }
    m1 /= static_cast<double>(n);
    m2 /= static_cast<double>(n);
    for (size_t i = 0; i < un; ++i) {
      const double gv = g[r * un + i], gw = gv * (w.empty() ? 1.0 : w[i]);
      const double xh = (x[r * un + i] - mean[r]) * rs;
      b.dx.push_back(rs * (gw - m1 - xh * m2));
      b.dx_scale.push_back(rs * (std::fabs(gw) + (a1 + std::fabs(xh) * a2) / static_cast<double>(n)));
      b.dw[i] += gv * xh;
      b.dw_scale[i] += std::fabs(gv * xh);
      b.db[i] += gv;
      b.db_scale[i] += std::fabs(gv);
    }
  }
  return b;
}

Shape stat_shape(const Shape& s, size_t k) {
  Shape r = s;
  for (size_t i = s.size() - k; i < s.size(); ++i) r[i] = 1;
  return r;
}

std::optional<xd::Tensor> maybe(const std::vector<double>& v, const Shape& s, Dtype d) {
  return v.empty() ? std::nullopt : std::optional<xd::Tensor>(make(v, s, d));
}

// ------------------------------------------------------------------ forward

TEST(LayerNorm, KnownValues) {
  // [1, 2, 3, 4]: mean 2.5, biased variance 1.25.
  const double r = 1.0 / std::sqrt(1.25);
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto [y, mean, rstd] = xd::layer_norm(make({1, 2, 3, 4}, {1, 4}, d), {4}, std::nullopt, std::nullopt, 0.0);
    EXPECT_EQ(y.dtype(), d);
    EXPECT_EQ(mean.dtype(), acc(d));
    EXPECT_EQ(rstd.dtype(), acc(d));
    EXPECT_EQ(shape_of(mean), (Shape{1, 1}));
    EXPECT_EQ(shape_of(rstd), (Shape{1, 1}));
    EXPECT_TRUE(all_close(read(mean), {2.5}, acc(d)));
    EXPECT_TRUE(all_close(read(rstd), {r}, acc(d)));
    EXPECT_TRUE(all_close(read(y), {-1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r}, d));
    const auto [y2, m2, r2] = xd::layer_norm(make({1, 2, 3, 4}, {4}, d), {4}, make({1, 0.5, 2, -1}, {4}, d),
                                             make({0, 1, -1, 0.5}, {4}, d), 0.0);
    EXPECT_EQ(shape_of(m2), (Shape{1}));
    EXPECT_TRUE(all_close(read(y2), {-1.5 * r, 1 - 0.25 * r, -1 + r, 0.5 - 1.5 * r}, d));
  }
}

TEST(LayerNorm, DefaultEpsIsPyTorchs) {
  // A constant row has variance 0: rstd = 1/sqrt(1e-5) shows the eps.
  const auto [y, mean, rstd] = xd::layer_norm(xd::full({2, 3}, 2.0, Dtype::f64, dev()), {3});
  EXPECT_TRUE(all_close(read(rstd), {1 / std::sqrt(1e-5), 1 / std::sqrt(1e-5)}, Dtype::f64));
  EXPECT_TRUE(all_close(read(mean), {2, 2}, Dtype::f64));
  EXPECT_TRUE(all_equal(read(y), std::vector<double>(6, 0.0)));
}

TEST(LayerNorm, RandomEveryDtypeWithAndWithoutWeightAndBias) {
  struct Case {
    Shape shape;
    Shape normalized;
  };
  const std::vector<Case> cases = {{{5, 7}, {7}}, {{3, 4, 6}, {4, 6}}, {{2, 3, 4}, {2, 3, 4}}, {{37}, {37}}};
  uint32_t seed = 1;
  for (Dtype d : float_dtypes()) {
    for (const auto& c : cases) {
      for (int params = 0; params < 3; ++params) {  // none, weight, weight and bias
        SCOPED_TRACE(trace(d) + " shape " + ::testing::PrintToString(c.shape) + " params " + std::to_string(params));
        const int64_t n = numel_of(c.normalized);
        const auto x = random_values(static_cast<size_t>(numel_of(c.shape)), -3, 3, d, ++seed);
        const auto w = params > 0 ? random_values(static_cast<size_t>(n), -2, 2, d, ++seed) : std::vector<double>{};
        const auto b = params > 1 ? random_values(static_cast<size_t>(n), -2, 2, d, ++seed) : std::vector<double>{};
        const auto [y, mean, rstd] = xd::layer_norm(make(x, c.shape, d), c.normalized, maybe(w, c.normalized, d),
                                                    maybe(b, c.normalized, d), 1e-6);
        EXPECT_EQ(shape_of(mean), stat_shape(c.shape, c.normalized.size()));
        EXPECT_EQ(shape_of(rstd), stat_shape(c.shape, c.normalized.size()));
        EXPECT_EQ(shape_of(y), c.shape);
        const Fwd want = ln_ref(x, n, w, b, 1e-6);
        EXPECT_TRUE(all_close(read(mean), want.mean, acc(d)));
        EXPECT_TRUE(all_close(read(rstd), want.rstd, acc(d)));
        EXPECT_TRUE(all_close(read(y), want.y, d));
      }
    }
  }
}

TEST(LayerNorm, TransposedSlicedAndExpandedInputs) {
  // x [7, 6] read through its transpose [6, 7] (strides [1, 6]); weight and bias every other
  // element of one buffer of 28 (stride 2, the bias at offset 14); one row expanded to 5.
  for (Dtype d : {Dtype::f32, Dtype::bf16}) {
    SCOPED_TRACE(trace(d));
    const auto base = random_values(42, -2, 2, d, 11), pbase = random_values(28, -2, 2, d, 12);
    const xd::Tensor p = make(pbase, {28}, d);
    const auto [y, mean, rstd] =
        xd::layer_norm(make(base, {7, 6}, d).t(), {7}, p.slice(0, 0, 14, 2), p.slice(0, 14, 28, 2), 1e-5);
    const Fwd want =
        ln_ref(gather(base, {6, 7}, {1, 6}, 0), 7, gather(pbase, {7}, {2}, 0), gather(pbase, {7}, {2}, 14), 1e-5);
    EXPECT_TRUE(all_close(read(mean), want.mean, acc(d)));
    EXPECT_TRUE(all_close(read(rstd), want.rstd, acc(d)));
    EXPECT_TRUE(all_close(read(y), want.y, d));
    const auto row = random_values(7, -2, 2, d, 31);
    const auto [y2, m2, r2] = xd::layer_norm(make(row, {7}, d).expand({5, 7}), {7});
    EXPECT_TRUE(all_close(read(y2), ln_ref(gather(row, {5, 7}, {0, 1}, 0), 7, {}, {}, 1e-5).y, d));
  }
}

TEST(LayerNorm, EmptyBatchAndEmptyRows) {
  const auto [y, mean, rstd] =
      xd::layer_norm(xd::empty({0, 4}, Dtype::f32, dev()), {4}, xd::ones({4}, Dtype::f32, dev()));
  EXPECT_EQ(shape_of(y), (Shape{0, 4}));
  EXPECT_EQ(shape_of(mean), (Shape{0, 1}));
  EXPECT_EQ(shape_of(rstd), (Shape{0, 1}));
  // Rows of no elements: mean 0 and rstd NaN, as torch.native_layer_norm gives.
  const auto [y0, m0, r0] = xd::layer_norm(xd::empty({3, 0}, Dtype::f32, dev()), {0});
  EXPECT_EQ(shape_of(y0), (Shape{3, 0}));
  EXPECT_TRUE(all_equal(read(m0), {0, 0, 0}));
  EXPECT_TRUE(all_equal(read(r0), {kNaN, kNaN, kNaN}));
  // A normalized size of 1: every output is the bias.
  const auto [y1, m1, r1] =
      xd::layer_norm(make({2, -0.5, 4}, {3, 1}, Dtype::f64), {1}, std::nullopt, make({0.25}, {1}, Dtype::f64), 0.0);
  EXPECT_TRUE(all_close(read(m1), {2, -0.5, 4}, Dtype::f64));
  EXPECT_TRUE(all_equal(read(r1), {kInf, kInf, kInf}));
  EXPECT_TRUE(all_equal(read(y1), {kNaN, kNaN, kNaN}));  // 0 * Inf, as PyTorch gives with eps 0
}

// ------------------------------------------------------------------ backward

TEST(LayerNormBackward, RandomEveryDtypeMatchesFp64) {
  struct Case {
    Shape shape;
    Shape normalized;
  };
  const std::vector<Case> cases = {{{6, 11}, {11}}, {{3, 4, 5}, {4, 5}}, {{1, 64}, {64}}};
  uint32_t seed = 100;
  for (const auto& c : cases) {
    const size_t n = static_cast<size_t>(numel_of(c.normalized)), total = static_cast<size_t>(numel_of(c.shape));
    for (Dtype d : float_dtypes()) {
      // Without a weight, then with one; a bias always (grad_bias does not read it).
      for (bool with_w : {false, true}) {
        SCOPED_TRACE(::testing::PrintToString(c.shape) + " " + trace(d) + (with_w ? " with weight" : ""));
        const auto x = random_values(total, -3, 3, d, ++seed), g = random_values(total, -2, 2, d, ++seed);
        const auto w = with_w ? random_values(n, -2, 2, d, ++seed) : std::vector<double>{};
        const auto bias = random_values(n, -1, 1, d, ++seed);
        // The statistics as the forward gives them, rounded to their dtype; the reference uses the same.
        Fwd f = ln_ref(x, n, {}, {}, 1e-6);
        for (auto& v : f.mean) v = quantize(v, acc(d));
        for (auto& v : f.rstd) v = quantize(v, acc(d));
        const Shape ss = stat_shape(c.shape, c.normalized.size());
        const auto [dx, dw, db] =
            xd::layer_norm_backward(make(g, c.shape, d), make(x, c.shape, d), c.normalized, make(f.mean, ss, acc(d)),
                                    make(f.rstd, ss, acc(d)), maybe(w, c.normalized, d), make(bias, c.normalized, d));
        const Bwd want = ln_bwd_ref(g, x, n, f.mean, f.rstd, w);
        EXPECT_EQ(shape_of(dx), c.shape);
        EXPECT_TRUE(all_close(read(dx), want.dx, d, want.dx_scale));
        EXPECT_EQ(dw.defined(), with_w);
        if (with_w) {
          EXPECT_TRUE(all_close(read(dw), want.dw, d, want.dw_scale));
        }
        ASSERT_TRUE(db.defined());
        EXPECT_EQ(shape_of(db), c.normalized);
        EXPECT_TRUE(all_close(read(db), want.db, d, want.db_scale));
      }
    }
  }
}

TEST(LayerNormBackward, OutputMaskSelectsWhichGradientsAreComputed) {
  const Dtype f = Dtype::f32;
  const xd::Tensor tx = make(random_values(15, -2, 2, f, 17), {3, 5}, f);
  const xd::Tensor tg = make(random_values(15, -2, 2, f, 18), {3, 5}, f);
  const xd::Tensor tw = make(random_values(5, -2, 2, f, 19), {5}, f);
  const auto [y, mean, rstd] = xd::layer_norm(tx, {5}, tw, tw);
  const auto [dx, dw, db] = xd::layer_norm_backward(tg, tx, {5}, mean, rstd, tw, tw);
  const auto [dx1, dw1, db1] = xd::layer_norm_backward(tg, tx, {5}, mean, rstd, tw, tw, {true, false, false});
  EXPECT_TRUE(dx1.defined());
  EXPECT_FALSE(dw1.defined());
  EXPECT_FALSE(db1.defined());
  EXPECT_TRUE(all_equal(read(dx1), read(dx)));
  const auto [dx2, dw2, db2] = xd::layer_norm_backward(tg, tx, {5}, mean, rstd, tw, tw, {false, true, true});
  EXPECT_FALSE(dx2.defined());
  EXPECT_TRUE(all_equal(read(dw2), read(dw)));
  EXPECT_TRUE(all_equal(read(db2), read(db)));
  // Without weight and bias their gradients are undefined whatever the mask says.
  const auto [dx3, dw3, db3] = xd::layer_norm_backward(tg, tx, {5}, mean, rstd, std::nullopt, std::nullopt);
  EXPECT_TRUE(dx3.defined());
  EXPECT_FALSE(dw3.defined());
  EXPECT_FALSE(db3.defined());
}

TEST(LayerNormBackward, EmptyBatchGivesZeroParameterGradients) {
  const xd::Tensor x = xd::empty({0, 3}, Dtype::f32, dev());
  const xd::Tensor w = xd::ones({3}, Dtype::f32, dev());
  const auto [y, mean, rstd] = xd::layer_norm(x, {3}, w, w);
  const auto [dx, dw, db] = xd::layer_norm_backward(x, x, {3}, mean, rstd, w, w);
  EXPECT_EQ(shape_of(dx), (Shape{0, 3}));
  EXPECT_TRUE(all_equal(read(dw), {0, 0, 0}));
  EXPECT_TRUE(all_equal(read(db), {0, 0, 0}));
}

TEST(LayerNormBackward, MatchesFiniteDifferencesOfTheForward) {
  // loss = sum(layer_norm(x) * c): d loss / d x_i, d w_i, d b_i by central differences in f64.
  const Shape s{3, 5};
  const auto x = random_values(15, -2, 2, Dtype::f64, 41), c = random_values(15, -1, 1, Dtype::f64, 42);
  const auto w = random_values(5, 0.5, 1.5, Dtype::f64, 43), b = random_values(5, -1, 1, Dtype::f64, 44);
  const auto loss = [&](const std::vector<double>& xv, const std::vector<double>& wv, const std::vector<double>& bv) {
    const Fwd f = ln_ref(xv, 5, wv, bv, 1e-5);
    double l = 0;
    for (size_t i = 0; i < f.y.size(); ++i) l += f.y[i] * c[i];
    return l;
  };
  const auto [y, mean, rstd] =
      xd::layer_norm(make(x, s, Dtype::f64), {5}, make(w, {5}, Dtype::f64), make(b, {5}, Dtype::f64), 1e-5);
  const auto [dx, dw, db] = xd::layer_norm_backward(make(c, s, Dtype::f64), make(x, s, Dtype::f64), {5}, mean, rstd,
                                                    make(w, {5}, Dtype::f64), make(b, {5}, Dtype::f64));
  const double h = 1e-6;
  const auto diff = [&](std::vector<double> v, size_t i, auto&& f) {
    v[i] += h;
    const double up = f(v);
    v[i] -= 2 * h;
    return (up - f(v)) / (2 * h);
  };
  std::vector<double> ndx, ndw, ndb;
  for (size_t i = 0; i < x.size(); ++i) ndx.push_back(diff(x, i, [&](const auto& v) { return loss(v, w, b); }));
  for (size_t i = 0; i < w.size(); ++i) ndw.push_back(diff(w, i, [&](const auto& v) { return loss(x, v, b); }));
  for (size_t i = 0; i < b.size(); ++i) ndb.push_back(diff(b, i, [&](const auto& v) { return loss(x, w, v); }));
  EXPECT_TRUE(all_close(read(dx), ndx, Tol{1e-6, 1e-6}));
  EXPECT_TRUE(all_close(read(dw), ndw, Tol{1e-6, 1e-6}));
  EXPECT_TRUE(all_close(read(db), ndb, Tol{1e-6, 1e-6}));
}

}  // namespace
