// scaled_dot_product_attention on the CPU backend: values worked out by hand (the literal below,
// softmax([1/sqrt(2), 0]) @ v), and a reference computed here in double by the definition,
// softmax(q @ k^T * scale + mask) @ v with the row maximum subtracted, on the row-major values of
// the inputs: every floating dtype, causal with L < S and L > S, bool and float masks broadcast,
// leading dims broadcast, strided operands, rows with every key masked (NaN), L = 0, S = 0
// (zeros), E = 0 (every score 0). Bad arguments are in tests/unit/bad_inputs_test.cpp.
#include "test_util.hpp"

#include <cmath>
#include <limits>
#include <optional>

namespace {

using namespace xdt;
using xd::Dtype;

const std::vector<Dtype> kFloats = {Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16};

// The definition on row-major [B, L, E], [B, S, E], [B, S, Ev] and an additive [B, L, S] mask
// (empty: none); causal keeps j <= i.
std::vector<double> reference(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                              const std::vector<double>& mask, int64_t B, int64_t L, int64_t S, int64_t E, int64_t Ev,
                              bool causal, double scale) {
  std::vector<double> out(static_cast<size_t>(B * L * Ev), 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < L; ++i) {
      std::vector<double> s(static_cast<size_t>(S));
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < S; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < E; ++e)
          dot += q[static_cast<size_t>((b * L + i) * E + e)] * k[static_cast<size_t>((b * S + j) * E + e)];
        double x = E == 0 ? 0.0 : dot * scale;
        if (!mask.empty()) x += mask[static_cast<size_t>((b * L + i) * S + j)];
        if (causal && j > i) x = -std::numeric_limits<double>::infinity();
        s[static_cast<size_t>(j)] = x;
        if (std::isnan(x) || x > m) m = std::isnan(m) ? m : x;
      }
      if (S == 0) continue;
      double sum = 0;
      for (double& x : s) sum += (x = std::exp(x - m));
      for (int64_t e = 0; e < Ev; ++e) {
        double acc = 0;
        for (int64_t j = 0; j < S; ++j) acc += s[static_cast<size_t>(j)] * v[static_cast<size_t>((b * S + j) * Ev + e)];
        out[static_cast<size_t>((b * L + i) * Ev + e)] = acc / sum;
      }
    }
  return out;
}

std::vector<double> quantized(std::vector<double> v, Dtype d) {
  for (double& x : v) x = quantize(x, d);
  return v;
}

TEST(Attention, HandWorkedValues) {
  for (Dtype d : kFloats) {
    SCOPED_TRACE(trace(d));
    // scores [1/sqrt(2), 0] -> weights [0.66976, 0.33024] of the value rows [1, 2] and [3, 4]
    const xd::Tensor out = xd::scaled_dot_product_attention(make({1, 0}, {1, 2}, d), make({1, 0, 0, 1}, {2, 2}, d),
                                                            make({1, 2, 3, 4}, {2, 2}, d));
    EXPECT_EQ(out.dtype(), d);
    EXPECT_EQ(shape_of(out), (Shape{1, 2}));
    EXPECT_TRUE(all_close(read(out), {1.6604769013466862, 2.6604769013466862}, d));
    // is_causal: query 0 sees key 0 only; query 1 both (scale 1: weights e/(e+1), 1/(e+1)).
    const xd::Tensor c = xd::scaled_dot_product_attention(make({1, 0, 1, 0}, {2, 2}, d), make({1, 0, 0, 1}, {2, 2}, d),
                                                          make({1, 2, 3, 4}, {2, 2}, d), std::nullopt, true, 1.0);
    const double w = std::exp(1.0) / (std::exp(1.0) + 1);
    EXPECT_TRUE(all_close(read(c), {1, 2, w + 3 * (1 - w), 2 * w + 4 * (1 - w)}, d));
  }
}

TEST(Attention, AgainstTheDefinition) {
  uint32_t seed = 40;
  struct C {
    int64_t B, L, S, E, Ev;
    bool causal;
  };
  for (Dtype d : kFloats) {
    SCOPED_TRACE(trace(d));
    for (const C& c :
         {C{2, 5, 7, 4, 3, false}, C{3, 9, 4, 8, 8, true}, C{1, 4, 11, 6, 2, true}, C{2, 40, 37, 16, 5, false}}) {
      SCOPED_TRACE(testing::Message() << c.B << "x" << c.L << "x" << c.S << "x" << c.E << "x" << c.Ev << c.causal);
      const auto q = quantized(random_values(static_cast<size_t>(c.B * c.L * c.E), -1, 1, d, ++seed), d);
      const auto k = quantized(random_values(static_cast<size_t>(c.B * c.S * c.E), -1, 1, d, ++seed), d);
      const auto v = quantized(random_values(static_cast<size_t>(c.B * c.S * c.Ev), -2, 2, d, ++seed), d);
      const xd::Tensor out = xd::scaled_dot_product_attention(make(q, {c.B, c.L, c.E}, d), make(k, {c.B, c.S, c.E}, d),
                                                              make(v, {c.B, c.S, c.Ev}, d), std::nullopt, c.causal);
      EXPECT_EQ(shape_of(out), (Shape{c.B, c.L, c.Ev}));
      const double scale = 1 / std::sqrt(static_cast<double>(c.E));
      EXPECT_TRUE(all_close(read(out), reference(q, k, v, {}, c.B, c.L, c.S, c.E, c.Ev, c.causal, scale), d));
      // A float mask, the same for every batch ([L, S] broadcast), and an explicit scale.
      const auto fm = quantized(random_values(static_cast<size_t>(c.L * c.S), -3, 3, d, ++seed), d);
      std::vector<double> fm_full;
      for (int64_t b = 0; b < c.B; ++b) fm_full.insert(fm_full.end(), fm.begin(), fm.end());
      const xd::Tensor masked =
          xd::scaled_dot_product_attention(make(q, {c.B, c.L, c.E}, d), make(k, {c.B, c.S, c.E}, d),
                                           make(v, {c.B, c.S, c.Ev}, d), make(fm, {c.L, c.S}, d), false, 0.5);
      EXPECT_TRUE(all_close(read(masked), reference(q, k, v, fm_full, c.B, c.L, c.S, c.E, c.Ev, false, 0.5), d));
    }
  }
}

TEST(Attention, BoolMaskAndRowsWithEveryKeyMasked) {
  for (Dtype d : kFloats) {
    SCOPED_TRACE(trace(d));
    const auto q = quantized(random_values(3 * 2, -1, 1, d, 7), d);
    const auto k = quantized(random_values(2 * 2, -1, 1, d, 8), d);
    const auto v = quantized(random_values(2 * 3, -1, 1, d, 9), d);
    // Row 0 keeps both keys, row 1 key 1 only, row 2 none: NaN, as PyTorch's math path.
    const std::vector<double> keep = {1, 1, 0, 1, 0, 0};
    const xd::Tensor out = xd::scaled_dot_product_attention(make(q, {3, 2}, d), make(k, {2, 2}, d), make(v, {2, 3}, d),
                                                            make(keep, {3, 2}, Dtype::boolean));
    const double inf = std::numeric_limits<double>::infinity();
    const auto want = reference(q, k, v, {0, 0, -inf, 0, -inf, -inf}, 1, 3, 2, 2, 3, false, 1 / std::sqrt(2.0));
    EXPECT_TRUE(all_close(read(out), want, d));
    const auto got = read(out);
    EXPECT_TRUE(std::isnan(got[6]) && std::isnan(got[7]) && std::isnan(got[8]));
    EXPECT_TRUE(all_close({got[3], got[4], got[5]}, {v[3], v[4], v[5]}, d));  // one key: its value row
  }
}

TEST(Attention, BroadcastAndStridedOperands) {
  const Dtype d = Dtype::f32;
  // q [2, 3, L, E], k [1, 3, S, E] and v [2, 1, S, Ev] broadcast to the batch [2, 3].
  const xd::Tensor q = make(random_values(2 * 3 * 4 * 5, -1, 1, d, 20), {2, 3, 4, 5}, d);
  const xd::Tensor k = make(random_values(1 * 3 * 6 * 5, -1, 1, d, 21), {1, 3, 6, 5}, d);
  const xd::Tensor v = make(random_values(2 * 1 * 6 * 2, -1, 1, d, 22), {2, 1, 6, 2}, d);
  const xd::Tensor out = xd::scaled_dot_product_attention(q, k, v);
  EXPECT_EQ(shape_of(out), (Shape{2, 3, 4, 2}));
  const auto full = [](const xd::Tensor& t, int64_t rows, int64_t cols) {
    return read(t.expand({2, 3, rows, cols}).contiguous());
  };
  const double scale = 1 / std::sqrt(5.0);
  EXPECT_TRUE(
      all_close(read(out), reference(full(q, 4, 5), full(k, 6, 5), full(v, 6, 2), {}, 6, 4, 6, 5, 2, false, scale), d));
  // Transposed key and a sliced value give what their contiguous copies give.
  const xd::Tensor kt = make(random_values(6 * 5, -1, 1, d, 23), {5, 6}, d).t();
  const xd::Tensor vs = make(random_values(12 * 2, -1, 1, d, 24), {12, 2}, d).slice(0, 0, 12, 2);
  const xd::Tensor q2 = q.select(0, 0).select(0, 0);
  EXPECT_TRUE(
      all_equal(read(xd::scaled_dot_product_attention(q2, kt, vs, std::nullopt, true)),
                read(xd::scaled_dot_product_attention(q2, kt.contiguous(), vs.contiguous(), std::nullopt, true))));
}

TEST(Attention, EmptyDims) {
  for (Dtype d : kFloats) {
    SCOPED_TRACE(trace(d));
    EXPECT_EQ(shape_of(xd::scaled_dot_product_attention(make({}, {2, 0, 3}, d), xd::zeros({2, 4, 3}, d, dev()),
                                                        xd::zeros({2, 4, 5}, d, dev()))),
              (Shape{2, 0, 5}));
    // S = 0: softmax over an empty row is empty and the product with [0, Ev] sums nothing: zeros.
    const xd::Tensor z =
        xd::scaled_dot_product_attention(make({1, 2, 3, 4, 5, 6}, {2, 3}, d), make({}, {0, 3}, d), make({}, {0, 2}, d));
    EXPECT_TRUE(all_equal(read(z), {0, 0, 0, 0}));
    // E = 0: every score is 0 (PyTorch scales q and k before the empty product), the mean of v.
    const xd::Tensor m =
        xd::scaled_dot_product_attention(make({}, {2, 0}, d), make({}, {3, 0}, d), make({1, 2, 3, 4, 5, 6}, {3, 2}, d));
    EXPECT_TRUE(all_close(read(m), {3, 4, 3, 4}, d));
  }
}

}  // namespace
