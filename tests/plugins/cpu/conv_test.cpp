// conv2d on the CPU backend: values worked out by hand, and a reference computed here in double
// by the definition (cross-correlation with zero padding, groups) over every floating dtype,
// strides, padding (explicit, "same" with an even kernel, "valid"), dilation, groups and
// depthwise, unbatched input, strided operands; oneDNN's kernel (where registered) against the
// reference loop, each shown to be the one that ran. Bad arguments: tests/unit/bad_inputs_conv_test.cpp.
#include "test_util.hpp"

#include <map>
#include <optional>
#include <set>

namespace {

using namespace xdt;
using xd::Dtype;

const std::vector<Dtype> kFloats = {Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16};

struct Conv {
  Shape x, w;  // [N, C, H, W], [O, C/g, kH, kW]
  int64_t sy = 1, sx = 1, py = 0, px = 0, dy = 1, dx = 1, groups = 1;
  int64_t oh() const { return (x[2] + 2 * py - dy * (w[2] - 1) - 1) / sy + 1; }
  int64_t ow() const { return (x[3] + 2 * px - dx * (w[3] - 1) - 1) / sx + 1; }
};

// The definition on row-major values; `bias` empty: none.
std::vector<double> reference(const Conv& c, const std::vector<double>& x, const std::vector<double>& w,
                              const std::vector<double>& bias) {
  const int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3], O = c.w[0], KH = c.w[2], KW = c.w[3];
  const int64_t cg = C / c.groups, og = O / c.groups, OH = c.oh(), OW = c.ow();
  std::vector<double> out(static_cast<size_t>(N * O * OH * OW));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t xo = 0; xo < OW; ++xo) {
          double acc = bias.empty() ? 0.0 : bias[static_cast<size_t>(o)];
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t i = 0; i < KH; ++i)
              for (int64_t j = 0; j < KW; ++j) {
                const int64_t iy = y * c.sy - c.py + i * c.dy, ix = xo * c.sx - c.px + j * c.dx;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                const int64_t cin = (o / og) * cg + ci;
                acc += x[static_cast<size_t>(((n * C + cin) * H + iy) * W + ix)] *
                       w[static_cast<size_t>(((o * cg + ci) * KH + i) * KW + j)];
              }
          out[static_cast<size_t>(((n * O + o) * OH + y) * OW + xo)] = acc;
        }
  return out;
}

std::vector<double> quantized(std::vector<double> v, Dtype d) {
  for (double& x : v) x = quantize(x, d);
  return v;
}

int64_t count(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

xd::Tensor run(const Conv& c, const xd::Tensor& x, const xd::Tensor& w, const std::optional<xd::Tensor>& b) {
  return xd::conv2d(x, w, b, {c.sy, c.sx}, {c.py, c.px}, {c.dy, c.dx}, c.groups);
}

// The cpu conv2d kernel that took the one call f() made.
template <class F>
std::string kernel_that_ran(Dtype d, F&& f) {
  std::map<std::string, uint64_t> before;
  for (const auto& k : xd::kernels())
    if (k.backend == "cpu" && k.op == "conv2d" && k.dtype == d) before[k.name] = k.calls;
  f();
  std::string ran;
  for (const auto& k : xd::kernels())
    if (k.backend == "cpu" && k.op == "conv2d" && k.dtype == d && k.calls != before[k.name]) ran += k.name;
  return ran;
}

const std::vector<Conv> kCases = {
    {{1, 3, 8, 8}, {4, 3, 3, 3}, 1, 1, 1, 1},         {{2, 4, 9, 7}, {6, 2, 3, 2}, 2, 1, 1, 0, 1, 1, 2},
    {{2, 3, 10, 10}, {5, 3, 3, 3}, 1, 1, 2, 2, 2, 2}, {{1, 4, 6, 6}, {4, 1, 3, 3}, 1, 1, 1, 1, 1, 1, 4},
    {{2, 3, 12, 11}, {8, 3, 5, 4}, 3, 2, 2, 1, 1, 2}, {{1, 16, 9, 9}, {40, 16, 3, 3}, 1, 1, 1, 1},
};

TEST(Conv2d, HandWorkedValues) {
  for (Dtype d : kFloats) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor x = make({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3}, d);
    const xd::Tensor w = make({1, 0, 0, 1}, {1, 1, 2, 2}, d);
    const xd::Tensor out = xd::conv2d(x, w, make({0.5}, {1}, d));
    EXPECT_EQ(out.dtype(), d);
    EXPECT_EQ(shape_of(out), (Shape{1, 1, 2, 2}));
    EXPECT_TRUE(all_equal(read(out), {6.5, 8.5, 12.5, 14.5}));
    // Padding 1, stride 2: the corners see one tap each of the diagonal kernel.
    const xd::Tensor padded = xd::conv2d(x, w, std::nullopt, {2}, {1});
    EXPECT_EQ(shape_of(padded), (Shape{1, 1, 2, 2}));
    EXPECT_TRUE(all_equal(read(padded), {1, 3, 7, 14}));
  }
}

TEST(Conv2d, AgainstTheDefinitionWithAndWithoutOneDnn) {
  uint32_t seed = 70;
  for (Dtype d : kFloats) {
    SCOPED_TRACE(trace(d));
    std::set<std::string> dnnl;
    for (const auto& k : xd::kernels())
      if (k.backend == "cpu" && k.op == "conv2d" && k.dtype == d && k.name.find("dnnl") != std::string::npos)
        dnnl.insert(k.name);
    for (const Conv& c : kCases) {
      SCOPED_TRACE(testing::Message() << "x " << c.x[0] << "x" << c.x[1] << "x" << c.x[2] << "x" << c.x[3] << " groups "
                                      << c.groups);
      const auto xv = quantized(random_values(static_cast<size_t>(count(c.x)), -1, 1, d, ++seed), d);
      const auto wv = quantized(random_values(static_cast<size_t>(count(c.w)), -1, 1, d, ++seed), d);
      const auto bv = quantized(random_values(static_cast<size_t>(c.w[0]), -1, 1, d, ++seed), d);
      const auto want = reference(c, xv, wv, bv);
      const std::vector<double> scale(want.size(), static_cast<double>(c.w[1] * c.w[2] * c.w[3]));
      std::vector<double> got;
      const std::string ran =
          kernel_that_ran(d, [&] { got = read(run(c, make(xv, c.x, d), make(wv, c.w, d), make(bv, {c.w[0]}, d))); });
      EXPECT_EQ(ran, dnnl.empty() ? "cpu.conv2d" : *dnnl.begin());
      EXPECT_TRUE(all_close(got, want, d, scale));
      for (const auto& n : dnnl) xd::set_kernel_enabled(n, false);
      std::vector<double> loop;
      EXPECT_EQ(
          kernel_that_ran(d, [&] { loop = read(run(c, make(xv, c.x, d), make(wv, c.w, d), make(bv, {c.w[0]}, d))); }),
          "cpu.conv2d");
      for (const auto& n : dnnl) xd::set_kernel_enabled(n, true);
      EXPECT_TRUE(all_close(loop, want, d, scale));
      // Without bias.
      EXPECT_TRUE(all_close(read(run(c, make(xv, c.x, d), make(wv, c.w, d), std::nullopt)), reference(c, xv, wv, {}), d,
                            scale));
    }
  }
}

TEST(Conv2d, OneDnnTakesF32WhereRegistered) {
  bool any = false;
  for (const auto& k : xd::kernels()) any |= k.backend == "cpu" && k.op == "conv2d" && k.name == "cpu.conv2d.dnnl";
  if (!any) GTEST_SKIP() << "built without oneDNN";
  const Conv c{{2, 8, 14, 14}, {16, 8, 3, 3}, 1, 1, 1, 1};
  const auto xv = random_values(static_cast<size_t>(count(c.x)), -1, 1, Dtype::f32, 3);
  const auto wv = random_values(static_cast<size_t>(count(c.w)), -1, 1, Dtype::f32, 4);
  EXPECT_EQ(
      kernel_that_ran(Dtype::f32,
                      [&] { (void)read(run(c, make(xv, c.x, Dtype::f32), make(wv, c.w, Dtype::f32), std::nullopt)); }),
      "cpu.conv2d.dnnl");
  // An empty batch is declined (nothing to compute) and the loop writes nothing.
  const Conv e{{0, 8, 14, 14}, {16, 8, 3, 3}, 1, 1, 1, 1};
  const xd::Tensor out = run(e, xd::zeros({0, 8, 14, 14}, Dtype::f32, dev()), make(wv, e.w, Dtype::f32), std::nullopt);
  EXPECT_EQ(shape_of(out), (Shape{0, 16, 14, 14}));
}

TEST(Conv2d, SameValidUnbatchedAndStridedOperands) {
  const Dtype d = Dtype::f32;
  // "same" with an even kernel (4 x 3, dilation [1, 2]): PyTorch pads (1, 2) top/left and (2, 2)
  // bottom/right; the output keeps 7 x 6. Checked against an explicit zero-padded input.
  const auto xv = random_values(2 * 7 * 6, -1, 1, d, 11);
  const auto wv = random_values(3 * 2 * 4 * 3, -1, 1, d, 12);
  const xd::Tensor x = make(xv, {1, 2, 7, 6}, d);
  const xd::Tensor w = make(wv, {3, 2, 4, 3}, d);
  const xd::Tensor same = xd::conv2d(x, w, std::nullopt, {1}, xd::ConvPadding::same, {1, 2});
  EXPECT_EQ(shape_of(same), (Shape{1, 3, 7, 6}));
  std::vector<double> padded(static_cast<size_t>(2 * 10 * 10), 0.0);
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t y = 0; y < 7; ++y)
      for (int64_t xi = 0; xi < 6; ++xi)
        padded[static_cast<size_t>((c * 10 + y + 1) * 10 + xi + 2)] = xv[static_cast<size_t>((c * 7 + y) * 6 + xi)];
  const Conv explicit_pad{{1, 2, 10, 10}, {3, 2, 4, 3}, 1, 1, 0, 0, 1, 2};
  std::vector<double> want = reference(explicit_pad, padded, wv, {});  // 7 x 6 of it
  EXPECT_TRUE(all_close(read(same), want, d, std::vector<double>(want.size(), 24.0)));
  // "valid" is padding 0.
  EXPECT_TRUE(all_equal(read(xd::conv2d(x, w, std::nullopt, {1}, xd::ConvPadding::valid)),
                        read(xd::conv2d(x, w, std::nullopt, {1}, {0}))));
  // Unbatched [C, H, W] in, [O, oH, oW] out, the batched result's values.
  const xd::Tensor u = xd::conv2d(make(xv, {2, 7, 6}, d), w, std::nullopt, {1}, {1});
  EXPECT_EQ(shape_of(u), (Shape{3, 6, 6}));
  EXPECT_TRUE(all_equal(read(u), read(xd::conv2d(x, w, std::nullopt, {1}, {1}))));
  // A transposed input (H and W swapped in storage) and a sliced weight give what their
  // contiguous copies give.
  const xd::Tensor xt = make(xv, {1, 2, 6, 7}, d).transpose(2, 3);
  const xd::Tensor ws = make(random_values(6 * 2 * 4 * 3, -1, 1, d, 13), {6, 2, 4, 3}, d).slice(0, 0, 6, 2);
  EXPECT_TRUE(all_equal(read(xd::conv2d(xt, ws, std::nullopt, {1}, {1})),
                        read(xd::conv2d(xt.contiguous(), ws.contiguous(), std::nullopt, {1}, {1}))));
}

TEST(Conv2d, NoInputChannelsGiveTheBias) {
  const Dtype d = Dtype::f32;
  const xd::Tensor out =
      xd::conv2d(xd::zeros({2, 0, 5, 5}, d, dev()), xd::zeros({3, 0, 3, 3}, d, dev()), make({1, 2, 3}, {3}, d));
  EXPECT_EQ(shape_of(out), (Shape{2, 3, 3, 3}));
  const auto v = read(out);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], static_cast<double>(1 + (i / 9) % 3));
}

}  // namespace
