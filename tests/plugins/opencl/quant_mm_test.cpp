// int_mm, scaled_mm and the fp8 conversions on the opencl device: int_mm bit-exact against the
// CPU reference (odd, prime and tile-edge shapes, K = 0, transposed and sliced operands);
// scaled_mm against the CPU for both scale modes, every out_dtype, bias dtypes and mixed formats;
// all 256 fp8 patterns through the device's cast kernels; the saturating cast.
#include "support/fp8_checks.hpp"
#include "test_util.hpp"

namespace {

using namespace xdo;

struct Mm {
  int64_t m, k, n;
  bool ta, tb;  // operands as transposed views
};

std::vector<Mm> shapes() {
  return {{1, 1, 1, false, false},    {5, 3, 7, false, false},     {65, 17, 64, false, false},
          {64, 64, 64, false, false}, {130, 71, 129, true, false}, {37, 41, 29, false, true},
          {200, 9, 3, true, true},    {6, 0, 5, false, false},     {3, 1031, 2, false, false}};
}

// A CPU operand of logical shape [rows, cols], stored transposed when asked.
Tensor operand(int64_t rows, int64_t cols, bool transposed, Dtype d, uint32_t seed, double lo, double hi) {
  return transposed ? random_tensor({cols, rows}, d, seed, lo, hi) : random_tensor({rows, cols}, d, seed, lo, hi);
}
Tensor view(const Tensor& t, bool transposed) { return transposed ? t.t() : t; }

TEST(OpenclIntMm, BitExactAgainstTheCpu) {
  uint32_t seed = 1;
  for (const Mm& s : shapes()) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) + (s.ta ? " a.T" : "") +
                 (s.tb ? " b.T" : ""));
    const Tensor a = operand(s.m, s.k, s.ta, Dtype::i8, ++seed, -128, 128);
    const Tensor b = operand(s.k, s.n, s.tb, Dtype::i8, ++seed, -128, 128);
    EXPECT_TRUE(same_as_cpu(
        {a, b}, [&](const std::vector<Tensor>& v) { return xd::int_mm(view(v[0], s.ta), view(v[1], s.tb)); }, kExact));
  }
}

TEST(OpenclIntMm, SlicedOperand) {
  const Tensor a = random_tensor({2 * 33 + 1, 17}, Dtype::i8, 5, -128, 128);
  const Tensor b = random_tensor({17, 9}, Dtype::i8, 6, -128, 128);
  EXPECT_TRUE(same_as_cpu(
      {a, b}, [](const std::vector<Tensor>& v) { return xd::int_mm(v[0].slice(0, 1, 67, 2), v[1]); }, kExact));
}

// scaled_mm: the device sums the exact fp8 products in k order as the CPU does, so results agree
// to the last bit in practice; the tolerance allows one unit of the output's rounding.
Tol out_tol(Dtype d) { return d == Dtype::f32 ? Tol{1e-6, 1e-6} : d == Dtype::f16 ? Tol{1e-3, 1e-3} : Tol{8e-3, 8e-3}; }

TEST(OpenclScaledMm, MatchesTheCpuForEveryConfiguration) {
  const Dtype outs[] = {Dtype::bf16, Dtype::f32, Dtype::f16};
  uint32_t seed = 100;
  int i = 0;
  for (const Mm& s : shapes()) {
    for (Dtype fa : {Dtype::f8e4m3fn, Dtype::f8e5m2}) {
      const Dtype fb = (i % 3 == 2) ? (fa == Dtype::f8e4m3fn ? Dtype::f8e5m2 : Dtype::f8e4m3fn) : fa;
      const bool rowwise = i % 2 == 1;
      const Dtype out = outs[i % 3];
      const int bias = i % 4;  // 0 none, 1 and 3 out's dtype, 2 bf16
      ++i;
      SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) + " " + name_of(fa) +
                   "@" + name_of(fb) + " -> " + name_of(out) + (rowwise ? " rowwise" : " tensorwise") + " bias " +
                   std::to_string(bias));
      std::vector<Tensor> in = {
          operand(s.m, s.k, s.ta, fa, ++seed, -3, 3), operand(s.k, s.n, s.tb, fb, ++seed, -3, 3),
          rowwise ? random_tensor({s.m, 1}, Dtype::f32, ++seed, 0.25, 2) : make({0.75}, {}, Dtype::f32),
          rowwise ? random_tensor({1, s.n}, Dtype::f32, ++seed, 0.25, 2) : make({1.5}, {1}, Dtype::f32)};
      if (bias != 0) in.push_back(random_tensor({s.n}, bias == 2 ? Dtype::bf16 : out, ++seed, -1, 1));
      EXPECT_TRUE(same_as_cpu(
          in,
          [&](const std::vector<Tensor>& v) {
            const std::optional<Tensor> b = v.size() > 4 ? std::optional<Tensor>(v[4]) : std::nullopt;
            return xd::scaled_mm(view(v[0], s.ta), view(v[1], s.tb), v[2], v[3], b, out);
          },
          out_tol(out)));
    }
  }
}

TEST(OpenclFp8Cast, EveryBitPatternDecodesToTheFormatsValue) {
  for (Dtype d : {Dtype::f8e4m3fn, Dtype::f8e5m2}) EXPECT_TRUE(xd::test::fp8_decodes_like_the_table(d, ocl()));
}

TEST(OpenclFp8Cast, EveryValueEncodesBackAndMidpointsRoundToEven) {
  for (Dtype d : {Dtype::f8e4m3fn, Dtype::f8e5m2}) EXPECT_TRUE(xd::test::fp8_encodes_back(d, ocl()));
}

TEST(OpenclFp8Cast, SaturatingCastClampsToMaxFinite) {
  for (Dtype d : {Dtype::f8e4m3fn, Dtype::f8e5m2})
    for (Dtype src : {Dtype::f32, Dtype::bf16}) EXPECT_TRUE(xd::test::fp8_saturates(d, src, ocl()));
}

}  // namespace
