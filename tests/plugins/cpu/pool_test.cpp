// max_pool2d, max_pool2d_with_indices and avg_pool2d on the CPU backend, against values torch
// 1.13 printed for the same inputs (literals below) and against the definition written out here
// tap by tap in double (a padded window, taps outside the input skipped), over kernels, strides,
// padding, dilation, ceil_mode, count_include_pad and divisor_override; unbatched, strided and
// empty-batch inputs; NaN and Inf. Bad arguments are in tests/unit/bad_inputs_pool_test.cpp.
#include "test_util.hpp"

#include <cmath>
#include <limits>

namespace {

using namespace xdt;
using xd::Dtype;

const std::vector<Dtype> kFloats = {Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16};

// The 4x5 plane the literals use.
const std::vector<double> kPlane = {1, 5, 5, 2, 3, 0, 3, 4, 4, -2, 7, -1, 2, 9, 9, 6, 6, 8, 0, 1};

std::vector<double> quantized(std::vector<double> v, Dtype d) {
  for (double& x : v) x = quantize(x, d);
  return v;
}

// ------------------------------------------------------------------ torch literals

TEST(Pool2d, MaxTorchLiterals) {
  for (Dtype d : kFloats) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor x = make(kPlane, {1, 1, 4, 5}, d);
    // F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True): torch.Size([1, 1, 3, 3])
    auto [o, i] = xd::max_pool2d_with_indices(x, {3}, {2}, {1}, {1}, true);
    EXPECT_EQ(shape_of(o), (Shape{1, 1, 3, 3}));
    EXPECT_EQ(i.dtype(), Dtype::i64);
    EXPECT_TRUE(all_equal(read(o), {5, 5, 4, 7, 9, 9, 6, 8, 1}));
    EXPECT_TRUE(all_equal(read(i), {1, 1, 8, 10, 13, 13, 15, 17, 19}));
    // F.max_pool2d(x, (2, 3), (1, 2), (1, 1), dilation=(2, 1), return_indices=True)
    auto [o2, i2] = xd::max_pool2d_with_indices(x, {2, 3}, {1, 2}, {1, 1}, {2, 1});
    EXPECT_EQ(shape_of(o2), (Shape{1, 1, 4, 3}));
    EXPECT_TRUE(all_equal(read(o2), {3, 4, 4, 7, 9, 9, 6, 8, 4, 7, 9, 9}));
    EXPECT_TRUE(all_equal(read(i2), {6, 7, 8, 10, 13, 13, 15, 17, 8, 10, 13, 13}));
    // The values alone: what max_pool2d gives.
    EXPECT_TRUE(all_equal(read(xd::max_pool2d(x, {2}, {1}, {0}, {2})), {7, 9, 9, 8, 6, 8}));
  }
}

TEST(Pool2d, MaxNanWinsWithTheLastNanIndex) {
  for (Dtype d : kFloats) {
    SCOPED_TRACE(trace(d));
    std::vector<double> v = kPlane;
    v[1] = kNaN;   // (0, 1)
    v[7] = kNaN;   // (1, 2)
    v[10] = kInf;  // (2, 0)
    // F.max_pool2d(y, 3, 2, 1, return_indices=True): the window over rows 0-1, cols 1-3 holds two
    // NaNs and takes the second's index (7).
    auto [o, i] = xd::max_pool2d_with_indices(make(v, {1, 1, 4, 5}, d), {3}, {2}, {1});
    EXPECT_TRUE(all_equal(read(o), {kNaN, kNaN, 4, kInf, kNaN, 9}));
    EXPECT_TRUE(all_equal(read(i), {1, 7, 8, 10, 7, 13}));
  }
}

TEST(Pool2d, MaxWindowWithoutInputTapsIsMinusInf) {
  // F.max_pool2d(torch.ones(1, 1, 1, 1), 2, 1, 1, 2, return_indices=True): the taps -1 and 1 miss
  // the 1x1 plane each way: (tensor([[[[-inf]]]]), tensor([[[[2]]]])).
  auto [o, i] = xd::max_pool2d_with_indices(make({1}, {1, 1, 1, 1}, Dtype::f32), {2}, {1}, {1}, {2});
  EXPECT_TRUE(all_equal(read(o), {-kInf}));
  EXPECT_TRUE(all_equal(read(i), {2}));
  // All -inf: nothing replaces the start, the index is the window's first tap inside.
  auto [o2, i2] = xd::max_pool2d_with_indices(make({-kInf, -kInf, -kInf, -kInf}, {1, 2, 2}, Dtype::f32), {2}, {1}, {1});
  EXPECT_TRUE(all_equal(read(o2), std::vector<double>(9, -kInf)));
  EXPECT_TRUE(all_equal(read(i2), {0, 0, 1, 0, 0, 1, 2, 2, 3}));
}

TEST(Pool2d, AvgTorchLiterals) {
  for (Dtype d : kFloats) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor x = make(kPlane, {1, 1, 4, 5}, d);
    // F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), then count_include_pad=False, divisor_override=2;
    // torch printed f32 values, written here as the fractions they round (23/9 for 2.5555556).
    EXPECT_TRUE(all_close(read(xd::avg_pool2d(x, {3}, {2}, {1}, true)),
                          quantized({1, 23.0 / 9, 7.0 / 9, 7.0 / 3, 35.0 / 9, 7.0 / 3, 2, 7.0 / 3, 1.0 / 6}, d), d));
    EXPECT_TRUE(all_close(read(xd::avg_pool2d(x, {3}, {2}, {1}, true, false)),
                          quantized({2.25, 23.0 / 6, 1.75, 3.5, 35.0 / 9, 3.5, 6, 14.0 / 3, 0.5}, d), d));
    EXPECT_TRUE(all_equal(read(xd::avg_pool2d(x, {3}, {2}, {1}, true, true, 2)),
                          {4.5, 11.5, 3.5, 10.5, 17.5, 10.5, 6.0, 7.0, 0.5}));
    // F.avg_pool2d(x, 2, ceil_mode=True): torch.Size([1, 1, 2, 3]), the last column a 2x1 window
    // divided by its clipped size 2.
    const xd::Tensor c = xd::avg_pool2d(x, {2}, {}, {0}, true);
    EXPECT_EQ(shape_of(c), (Shape{1, 1, 2, 3}));
    EXPECT_TRUE(all_equal(read(c), {2.25, 3.75, 0.5, 4.5, 4.75, 5.0}));
  }
}

// ------------------------------------------------------------------ the definition, tap by tap

struct Config {
  Shape in;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil;
};

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const double span = static_cast<double>(in + 2 * p - d * (k - 1) - 1);
  int64_t o = static_cast<int64_t>(ceil ? std::ceil(span / s) : std::floor(span / s)) + 1;
  if (ceil && (o - 1) * s >= in + p) --o;
  return o;
}

// Values and indices of max pooling of row-major [N, C, H, W] `x`, and avg pooling's values
// (dilation 1) for each count_include_pad / divisor.
struct Expected {
  std::vector<double> max, index, avg;
};

Expected definition(const std::vector<double>& x, const Config& c, bool include_pad, int64_t divisor) {
  const int64_t N = c.in[0], C = c.in[1], H = c.in[2], W = c.in[3];
  const int64_t Ho = out_size(H, c.kh, c.sh, c.ph, c.dh, c.ceil), Wo = out_size(W, c.kw, c.sw, c.pw, c.dw, c.ceil);
  const int64_t aHo = out_size(H, c.kh, c.sh, c.ph, 1, c.ceil), aWo = out_size(W, c.kw, c.sw, c.pw, 1, c.ceil);
  Expected e;
  for (int64_t plane = 0; plane < N * C; ++plane) {
    const double* p = x.data() + plane * H * W;
    for (int64_t oh = 0; oh < Ho; ++oh)
      for (int64_t ow = 0; ow < Wo; ++ow) {
        double best = -kInf;
        int64_t at = -1;
        for (int64_t i = 0; i < c.kh; ++i)
          for (int64_t j = 0; j < c.kw; ++j) {
            const int64_t h = oh * c.sh - c.ph + i * c.dh, w = ow * c.sw - c.pw + j * c.dw;
            if (h < 0 || h >= H || w < 0 || w >= W) continue;
            if (at < 0) at = h * W + w;  // the first tap inside, kept when nothing beats -inf
            if (p[h * W + w] > best || std::isnan(p[h * W + w])) {
              best = p[h * W + w];
              at = h * W + w;
            }
          }
        e.max.push_back(best);
        e.index.push_back(static_cast<double>(at));
      }
    for (int64_t oh = 0; oh < aHo; ++oh)
      for (int64_t ow = 0; ow < aWo; ++ow) {
        double sum = 0;
        int64_t inside = 0, padded = 0;
        for (int64_t i = 0; i < c.kh; ++i)
          for (int64_t j = 0; j < c.kw; ++j) {
            const int64_t h = oh * c.sh - c.ph + i, w = ow * c.sw - c.pw + j;
            if (h >= H + c.ph || w >= W + c.pw) continue;  // past the right/bottom padding
            ++padded;
            if (h < 0 || h >= H || w < 0 || w >= W) continue;
            ++inside;
            sum += p[h * W + w];
          }
        e.avg.push_back(sum / static_cast<double>(divisor != 0 ? divisor : include_pad ? padded : inside));
      }
  }
  return e;
}

TEST(Pool2d, MatchesTheDefinition) {
  const std::vector<Config> configs = {
      {{2, 3, 7, 9}, 3, 3, 2, 2, 1, 1, 1, 1, false},  {{2, 3, 7, 9}, 3, 2, 2, 1, 1, 0, 1, 1, true},
      {{1, 2, 10, 11}, 3, 3, 3, 3, 1, 1, 1, 1, true}, {{2, 2, 9, 11}, 3, 3, 1, 1, 2, 2, 2, 2, false},
      {{1, 3, 12, 10}, 2, 3, 2, 2, 1, 1, 3, 2, true}, {{3, 1, 5, 5}, 2, 2, 2, 2, 0, 0, 1, 1, true},
  };
  uint32_t seed = 40;
  for (Dtype d : kFloats)
    for (const Config& c : configs) {
      SCOPED_TRACE(trace(d) + " config " + std::to_string(&c - configs.data()));
      const std::vector<double> x = random_values(static_cast<size_t>(numel_of(c.in)), -3, 3, d, ++seed);
      const xd::Tensor t = make(x, c.in, d);
      auto [o, i] = xd::max_pool2d_with_indices(t, {c.kh, c.kw}, {c.sh, c.sw}, {c.ph, c.pw}, {c.dh, c.dw}, c.ceil);
      const Expected e = definition(x, c, true, 0);
      EXPECT_TRUE(all_equal(read(o), e.max));
      EXPECT_TRUE(all_equal(read(i), e.index));
      // avg takes no dilation: pad at most half the kernel holds there too (ph <= kh / 2).
      if (c.ph > c.kh / 2 || c.pw > c.kw / 2) continue;
      const std::vector<std::pair<bool, int64_t>> avg_variants = {{true, 0}, {false, 0}, {true, 7}, {false, -3}};
      for (const auto& [include_pad, divisor] : avg_variants) {
        const std::vector<double> want = quantized(definition(x, c, include_pad, divisor).avg, d);
        const auto div = divisor != 0 ? std::optional<int64_t>(divisor) : std::nullopt;
        EXPECT_TRUE(all_close(
            read(xd::avg_pool2d(t, {c.kh, c.kw}, {c.sh, c.sw}, {c.ph, c.pw}, c.ceil, include_pad, div)), want, d));
      }
    }
}

TEST(Pool2d, UnbatchedStridedAndEmptyBatch) {
  const Dtype d = Dtype::f32;
  const std::vector<double> x = random_values(3 * 8 * 6, -2, 2, d, 7);
  const xd::Tensor batched = make(x, {1, 3, 8, 6}, d);
  const xd::Tensor plain = make(x, {3, 8, 6}, d);
  auto [o, i] = xd::max_pool2d_with_indices(plain, {3}, {2}, {1});
  auto [ob, ib] = xd::max_pool2d_with_indices(batched, {3}, {2}, {1});
  EXPECT_EQ(shape_of(o), (Shape{3, 4, 3}));
  EXPECT_EQ(shape_of(i), (Shape{3, 4, 3}));
  EXPECT_TRUE(all_equal(read(o), read(ob)));
  EXPECT_TRUE(all_equal(read(i), read(ib)));
  EXPECT_EQ(shape_of(xd::avg_pool2d(plain, {2})), (Shape{3, 4, 3}));
  EXPECT_TRUE(all_equal(read(xd::avg_pool2d(plain, {2})), read(xd::avg_pool2d(batched, {2}))));
  // A transposed view ([.., W, H] stored, H and W swapped back) gives what its copy gives.
  const xd::Tensor tr = make(x, {1, 3, 6, 8}, d).transpose(2, 3);
  ASSERT_FALSE(tr.is_contiguous());
  EXPECT_TRUE(all_equal(read(xd::max_pool2d(tr, {3, 2}, {1, 2}, {1, 1})),
                        read(xd::max_pool2d(tr.contiguous(), {3, 2}, {1, 2}, {1, 1}))));
  EXPECT_TRUE(all_equal(read(xd::avg_pool2d(tr, {3, 2}, {1, 2}, {1, 1}, true, false)),
                        read(xd::avg_pool2d(tr.contiguous(), {3, 2}, {1, 2}, {1, 1}, true, false))));
  // N = 0, as PyTorch allows: an empty result of the pooled shape.
  const xd::Tensor empty = make({}, {0, 3, 8, 6}, d);
  EXPECT_EQ(shape_of(xd::max_pool2d(empty, {2})), (Shape{0, 3, 4, 3}));
  EXPECT_EQ(shape_of(std::get<1>(xd::max_pool2d_with_indices(empty, {2}))), (Shape{0, 3, 4, 3}));
  EXPECT_EQ(shape_of(xd::avg_pool2d(empty, {3}, {2}, {1}, true)), (Shape{0, 3, 5, 4}));  // torch.Size([0, 3, 5, 4])
}

}  // namespace
