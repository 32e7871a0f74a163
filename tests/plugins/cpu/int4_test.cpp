// weight_int4_mm and quantize_int4 on the CPU reference: hand-worked values, an independent fp64
// recomputation, the quantizer's rounding (ties to even, scale rounded up in bf16) and its error
// bound, and quantize -> weight_int4_mm against the f32 matmul. dequantize_int4 (composed of
// public ops): hand-worked values, one rounding, the round trip, agreement with weight_int4_mm,
// strided operands and empty shapes.
#include "test_util.hpp"

#include <cfloat>

namespace {

using namespace xdt;

xd::Tensor bytes_tensor(const std::vector<uint8_t>& b, xd::IntList sizes, Dtype d) {
  return xd::from_host(b.data(), d, sizes, dev());
}

// The k-th int4 code of row n of a packed [N, K/2] weight.
int code(const std::vector<double>& packed, int64_t k2, int64_t n, int64_t k) {
  const auto byte = static_cast<int>(packed[static_cast<size_t>(n * k2 + k / 2)]);
  return k % 2 == 0 ? (byte & 15) : (byte >> 4);
}

// out[m][n] = sum_k x[m][k] * (q - z) * s, in double.
std::vector<double> reference(const std::vector<double>& x, const std::vector<double>& packed,
                              const std::vector<double>& s, const std::vector<double>& z, int64_t m, int64_t k,
                              int64_t n, int64_t g) {
  std::vector<double> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const size_t gi = static_cast<size_t>((kk / g) * n + j);
        acc += x[static_cast<size_t>(i * k + kk)] * (code(packed, k / 2, j, kk) - z[gi]) * s[gi];
      }
      out[static_cast<size_t>(i * n + j)] = acc;
    }
  return out;
}

TEST(CpuInt4, HandWorkedValues) {
  // Row 0 of the weight: bytes 0x21 (even k: 1, odd k: 2), zero 1, scale 0.5 -> w = 0, 0.5, 0, ...
  // Row 1: bytes 0xF0 (even 0, odd 15), zero 8, scale 0.25 -> w = -2, 1.75, -2, ...
  std::vector<uint8_t> w(32);
  for (int i = 0; i < 16; ++i) w[static_cast<size_t>(i)] = 0x21, w[static_cast<size_t>(16 + i)] = 0xF0;
  std::vector<double> x(64);
  for (int k = 0; k < 32; ++k) x[static_cast<size_t>(k)] = 1, x[static_cast<size_t>(32 + k)] = k;
  const std::vector<uint8_t> z = {1, 8};
  const auto out =
      read(xd::weight_int4_mm(make(x, {2, 32}, Dtype::f32), bytes_tensor(w, {2, 16}, Dtype::u8),
                              make({0.5, 0.25}, {1, 2}, Dtype::f32), bytes_tensor(z, {1, 2}, Dtype::i8), 32));
  // x = ones: 16 * 0.5 = 8 and 16 * (-2 + 1.75) = -4; x = k: 0.5 * (1 + 3 + ... + 31) = 128 and
  // -2 * (0 + 2 + ... + 30) + 1.75 * 256 = -32.
  EXPECT_EQ(out, (std::vector<double>{8, -4, 128, -32}));
}

TEST(CpuInt4, MatchesAnFp64RecomputationForEveryDtypeAndShape) {
  struct S {
    int64_t m, k, n, g;
  };
  for (Dtype d : {Dtype::f32, Dtype::f16, Dtype::bf16}) {
    for (const S s : {S{1, 32, 1, 32}, S{5, 256, 7, 64}, S{17, 384, 9, 128}, S{3, 512, 33, 512}}) {
      const uint32_t seed = static_cast<uint32_t>(s.m * 131 + s.k + s.n);
      const auto x = random_values(static_cast<size_t>(s.m * s.k), -1, 1, d, seed);
      const auto packed = random_values(static_cast<size_t>(s.n * s.k / 2), 0, 256, Dtype::u8, seed + 1);
      const auto sc = random_values(static_cast<size_t>(s.k / s.g * s.n), 0.01, 0.1, d, seed + 2);
      const auto z = random_values(static_cast<size_t>(s.k / s.g * s.n), 0, 16, Dtype::i8, seed + 3);
      const xd::Tensor xt = make(x, {s.m, s.k}, d), st = make(sc, {s.k / s.g, s.n}, d);
      const auto got = read(xd::weight_int4_mm(xt, make(packed, {s.n, s.k / 2}, Dtype::u8), st,
                                               make(z, {s.k / s.g, s.n}, Dtype::i8), s.g));
      // The operands as the kernel sees them (rounded to d), summed in double.
      const auto want = reference(read(xt), packed, read(st), z, s.m, s.k, s.n, s.g);
      const double rel = d == Dtype::f32 ? 1e-5 : d == Dtype::f16 ? 2e-3 : 1.6e-2;
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], rel * (std::abs(want[i]) + 0.05 * std::sqrt(static_cast<double>(s.k))))
            << xd::dtype_name(d) << " m=" << s.m << " k=" << s.k << " n=" << s.n << " at " << i;
    }
  }
}

TEST(CpuInt4, EmptyMAndZeroKGiveEmptyAndZeroOutputs) {
  const auto e = xd::weight_int4_mm(xd::zeros({0, 64}, Dtype::f32, dev()), xd::zeros({4, 32}, Dtype::u8, dev()),
                                    xd::ones({2, 4}, Dtype::f32, dev()), xd::zeros({2, 4}, Dtype::i8, dev()), 32);
  EXPECT_EQ(e.numel(), 0);
  const auto z = xd::weight_int4_mm(xd::ones({2, 0}, Dtype::bf16, dev()), xd::zeros({3, 0}, Dtype::u8, dev()),
                                    xd::ones({0, 3}, Dtype::bf16, dev()), xd::zeros({0, 3}, Dtype::i8, dev()), 32);
  EXPECT_EQ(read(z), std::vector<double>(6, 0.0));
}

TEST(CpuInt4, QuantizeHandWorkedGroup) {
  // lo = -1.5, hi = 3: scale 4.5/15 = 0.3, zero round(1.5/0.3) = 5; codes: -1.5 -> 0, 0 -> 5,
  // 3 -> 15, 0.6 -> 7, -0.61 -> round(-2.03) + 5 = 3. The rest of the group is 0 (code 5).
  std::vector<double> w(32, 0.0);
  w[0] = -1.5, w[1] = 0, w[2] = 3.0, w[3] = 0.6, w[4] = -0.61;
  auto [packed, scales, zeros] = xd::quantize_int4(make(w, {1, 32}, Dtype::f32), 32);
  EXPECT_NEAR(read(scales)[0], 0.3, 1e-7);
  EXPECT_EQ(read(zeros)[0], 5);
  const auto p = read(packed);
  ASSERT_EQ(p.size(), 16u);
  EXPECT_EQ(p[0], 0 | (5 << 4));
  EXPECT_EQ(p[1], 15 | (7 << 4));
  EXPECT_EQ(p[2], 3 | (5 << 4));
  for (size_t i = 3; i < 16; ++i) EXPECT_EQ(p[i], 5 | (5 << 4)) << i;
}

TEST(CpuInt4, QuantizeRoundsHalfToEvenAndGuardsAZeroRange) {
  // Values 0..15 in steps of 0.5 up to 15: lo = 0, hi = 15, scale exactly 1, zero 0, so 2.5 -> 2 and
  // 3.5 -> 4 (ties to even), 15 -> 15.
  std::vector<double> w(64, 0.0);
  w[0] = 2.5, w[1] = 3.5, w[2] = 15, w[3] = 0.5, w[4] = 1.5;
  // Second group: all zero. Scale FLT_EPSILON (torchao's guard), zero 0, codes 0.
  auto [packed, scales, zeros] = xd::quantize_int4(make(w, {1, 64}, Dtype::f32), 32);
  EXPECT_EQ(read(scales), (std::vector<double>{1.0, FLT_EPSILON}));
  EXPECT_EQ(read(zeros), (std::vector<double>{0, 0}));
  const auto p = read(packed);
  EXPECT_EQ(p[0], 2 | (4 << 4));
  EXPECT_EQ(p[1], 15 | (0 << 4));
  EXPECT_EQ(p[2], 2 | (0 << 4));
  for (size_t i = 16; i < 32; ++i) EXPECT_EQ(p[i], 0) << i;
}

// dequant(quantize(w)) is within scale/2 of w, element by element, and 15 steps of the stored
// scale cover each group's range (bf16 scales are rounded up).
TEST(CpuInt4, QuantizeErrorIsAtMostHalfAScale) {
  struct S {
    int64_t n, k, g;
    double lo, hi;
  };
  for (Dtype d : {Dtype::f32, Dtype::bf16}) {
    for (const S s :
         {S{7, 256, 32, -2, 2}, S{5, 384, 128, 0.5, 1.5}, S{3, 128, 64, -3, -1}, S{16, 1024, 256, -1e-3, 5}}) {
      const xd::Tensor wt = make(random_values(static_cast<size_t>(s.n * s.k), s.lo, s.hi, d, 7), {s.n, s.k}, d);
      auto [packed, scales, zeros] = xd::quantize_int4(wt, s.g);
      ASSERT_EQ(scales.dtype(), d);
      const auto w = read(wt), p = read(packed), sc = read(scales), z = read(zeros);
      for (int64_t r = 0; r < s.n; ++r) {
        for (int64_t gi = 0; gi < s.k / s.g; ++gi) {
          const double scale = sc[static_cast<size_t>(gi * s.n + r)], zero = z[static_cast<size_t>(gi * s.n + r)];
          ASSERT_GE(zero, 0);
          ASSERT_LE(zero, 15);
          for (int64_t kk = gi * s.g; kk < (gi + 1) * s.g; ++kk) {
            const double deq = (code(p, s.k / 2, r, kk) - zero) * scale;
            ASSERT_LE(std::abs(deq - w[static_cast<size_t>(r * s.k + kk)]), scale * (0.5 + 1e-6))
                << xd::dtype_name(d) << " row " << r << " k " << kk;
          }
        }
      }
    }
  }
}

// quantize -> weight_int4_mm approximates input @ w^T: each product is off by at most
// |x| * scale / 2, so |out - exact| <= sum_k |x_k| * scale_k / 2 (plus f32 rounding).
TEST(CpuInt4, QuantizeThenMatmulApproximatesTheF32Matmul) {
  const int64_t m = 4, k = 512, n = 24, g = 128;
  const auto xv = random_values(static_cast<size_t>(m * k), -1, 1, Dtype::f32, 11);
  const auto wv = random_values(static_cast<size_t>(n * k), -0.5, 0.5, Dtype::f32, 12);
  const xd::Tensor x = make(xv, {m, k}, Dtype::f32), w = make(wv, {n, k}, Dtype::f32);
  auto [packed, scales, zeros] = xd::quantize_int4(w, g);
  const auto got = read(xd::weight_int4_mm(x, packed, scales, zeros, g));
  const auto exact = read(xd::mm(x, w.transpose(0, 1)));
  const auto sc = read(scales);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double bound = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        bound += std::abs(xv[static_cast<size_t>(i * k + kk)]) * sc[static_cast<size_t>((kk / g) * n + j)] / 2;
      const double e = exact[static_cast<size_t>(i * n + j)];
      EXPECT_LE(std::abs(got[static_cast<size_t>(i * n + j)] - e), bound + 1e-4) << i << "," << j;
    }
}

// dequant[n][k] = (q - zeros[k/g][n]) * scales[k/g][n] in double (exact: |q - z| < 2^8 and a scale
// of at most 24 bits), then rounded once to d.
std::vector<double> dequant_reference(const std::vector<double>& packed, const std::vector<double>& s,
                                      const std::vector<double>& z, int64_t n, int64_t k, int64_t g, Dtype d) {
  std::vector<double> out(static_cast<size_t>(n * k));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t kk = 0; kk < k; ++kk) {
      const size_t gi = static_cast<size_t>((kk / g) * n + r);
      out[static_cast<size_t>(r * k + kk)] = quantize((code(packed, k / 2, r, kk) - z[gi]) * s[gi], d);
    }
  return out;
}

TEST(CpuInt4, DequantizeHandWorkedValuesTakeTheLowNibbleForEvenK) {
  // N = 2, K = 64, g = 32: two groups a row, each with its own zero point and scale.
  // Row 0: group 0 bytes 0x21 (even k 1, odd k 2), zero 1, scale 0.5 -> 0, 0.5;
  //        group 1 bytes 0x5F (even 15, odd 5), zero 3, scale 2 -> 24, 4.
  // Row 1: group 0 bytes 0xF0 (even 0, odd 15), zero 8, scale 0.25 -> -2, 1.75;
  //        group 1 bytes 0x3A (even 10, odd 3), zero 0, scale 0.125 -> 1.25, 0.375.
  std::vector<uint8_t> p(64);
  for (size_t i = 0; i < 16; ++i) p[i] = 0x21, p[16 + i] = 0x5F, p[32 + i] = 0xF0, p[48 + i] = 0x3A;
  const std::vector<uint8_t> z = {1, 8, 3, 0};  // [K/g, N]
  std::vector<double> want(128);
  for (size_t k = 0; k < 64; ++k) {
    const bool even = k % 2 == 0;
    want[k] = k < 32 ? (even ? 0 : 0.5) : (even ? 24 : 4);
    want[64 + k] = k < 32 ? (even ? -2 : 1.75) : (even ? 1.25 : 0.375);
  }
  for (Dtype d : {Dtype::f32, Dtype::f16, Dtype::bf16}) {
    const xd::Tensor w =
        xd::dequantize_int4(bytes_tensor(p, {2, 32}, Dtype::u8), make({0.5, 0.25, 2, 0.125}, {2, 2}, d),
                            bytes_tensor(z, {2, 2}, Dtype::i8), 32);
    EXPECT_EQ(w.dtype(), d);
    EXPECT_EQ(shape_of(w), (Shape{2, 64}));
    EXPECT_EQ(read(w), want) << xd::dtype_name(d);
  }
}

TEST(CpuInt4, DequantizeRoundsTheExactProductOnceToTheScalesDtype) {
  for (Dtype d : {Dtype::f32, Dtype::f16, Dtype::bf16}) {
    const int64_t n = 9, k = 256, g = 64;
    const auto packed = random_values(static_cast<size_t>(n * k / 2), 0, 256, Dtype::u8, 21);
    // Scales with every bit of their dtype in use, so most products need rounding in f32 and bf16.
    const auto sc = random_values(static_cast<size_t>(k / g * n), 0.01, 3, d, 22);
    const auto z = random_values(static_cast<size_t>(k / g * n), 0, 16, Dtype::i8, 23);
    const xd::Tensor w = xd::dequantize_int4(make(packed, {n, k / 2}, Dtype::u8), make(sc, {k / g, n}, d),
                                             make(z, {k / g, n}, Dtype::i8), g);
    ASSERT_EQ(w.dtype(), d);
    EXPECT_TRUE(all_equal(read(w), dequant_reference(packed, sc, z, n, k, g, d))) << xd::dtype_name(d);
  }
}

// |dequantize_int4(quantize_int4(w)) - w| <= scale/2 per element, plus for bf16 the final rounding
// of the dequantized value to bf16 (half a unit in its last place: at most 2^-8 of it).
TEST(CpuInt4, DequantizeOfQuantizeIsWithinHalfAScale) {
  for (Dtype d : {Dtype::f32, Dtype::bf16}) {
    const int64_t n = 7, k = 384, g = 128;
    const xd::Tensor wt = make(random_values(static_cast<size_t>(n * k), -2, 3, d, 31), {n, k}, d);
    auto [packed, scales, zeros] = xd::quantize_int4(wt, g);
    const xd::Tensor back = xd::dequantize_int4(packed, scales, zeros, g);
    ASSERT_EQ(back.dtype(), d);
    const auto w = read(wt), b = read(back), sc = read(scales);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t kk = 0; kk < k; ++kk) {
        const size_t i = static_cast<size_t>(r * k + kk);
        const double bound = sc[static_cast<size_t>((kk / g) * n + r)] * (0.5 + 1e-6) +
                             (d == Dtype::bf16 ? std::ldexp(std::abs(b[i]), -8) : 0.0);
        ASSERT_LE(std::abs(b[i] - w[i]), bound) << xd::dtype_name(d) << " row " << r << " k " << kk;
      }
  }
}

TEST(CpuInt4, MatmulWithTheDequantizedWeightAgreesWithWeightInt4Mm) {
  const int64_t m = 5, k = 512, n = 24, g = 128;
  const xd::Tensor x = make(random_values(static_cast<size_t>(m * k), -1, 1, Dtype::f32, 41), {m, k}, Dtype::f32);
  const xd::Tensor packed =
      make(random_values(static_cast<size_t>(n * k / 2), 0, 256, Dtype::u8, 42), {n, k / 2}, Dtype::u8);
  const xd::Tensor scales =
      make(random_values(static_cast<size_t>(k / g * n), 0.01, 0.1, Dtype::f32, 43), {k / g, n}, Dtype::f32);
  const xd::Tensor zeros =
      make(random_values(static_cast<size_t>(k / g * n), 0, 16, Dtype::i8, 44), {k / g, n}, Dtype::i8);
  const auto got = read(xd::mm(x, xd::dequantize_int4(packed, scales, zeros, g).t()));
  const auto want = read(xd::weight_int4_mm(x, packed, scales, zeros, g));
  // The same f32 products, summed in another order.
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 2e-5 * (std::abs(want[i]) + 0.05 * std::sqrt(static_cast<double>(k)))) << i;
}

TEST(CpuInt4, DequantizeReadsStridedOperands) {
  const int64_t n = 6, k = 128, g = 32;
  // packed: columns 1..K/2 of a wider tensor; scales and zeros: transposed views of [N, K/g] ones.
  const xd::Tensor wide =
      make(random_values(static_cast<size_t>(n * (k / 2 + 3)), 0, 256, Dtype::u8, 51), {n, k / 2 + 3}, Dtype::u8);
  const xd::Tensor packed = wide.slice(1, 1, k / 2 + 1);
  const xd::Tensor scales =
      make(random_values(static_cast<size_t>(n * k / g), 0.01, 1, Dtype::bf16, 52), {n, k / g}, Dtype::bf16).t();
  const xd::Tensor zeros =
      make(random_values(static_cast<size_t>(n * k / g), 0, 16, Dtype::i8, 53), {n, k / g}, Dtype::i8).t();
  ASSERT_FALSE(packed.is_contiguous());
  ASSERT_FALSE(scales.is_contiguous());
  ASSERT_FALSE(zeros.is_contiguous());
  const xd::Tensor got = xd::dequantize_int4(packed, scales, zeros, g);
  const xd::Tensor want = xd::dequantize_int4(packed.contiguous(), scales.contiguous(), zeros.contiguous(), g);
  EXPECT_TRUE(all_equal(read(got), read(want)));
  EXPECT_TRUE(all_equal(read(got), dequant_reference(read(packed), read(scales), read(zeros), n, k, g, Dtype::bf16)));
}

TEST(CpuInt4, DequantizeOfNoRowsOrNoColumnsIsEmpty) {
  const auto no_rows = xd::dequantize_int4(xd::zeros({0, 32}, Dtype::u8, dev()), xd::ones({2, 0}, Dtype::bf16, dev()),
                                           xd::zeros({2, 0}, Dtype::i8, dev()), 32);
  EXPECT_EQ(shape_of(no_rows), (Shape{0, 64}));
  EXPECT_EQ(no_rows.dtype(), Dtype::bf16);
  const auto no_cols = xd::dequantize_int4(xd::zeros({3, 0}, Dtype::u8, dev()), xd::ones({0, 3}, Dtype::f16, dev()),
                                           xd::zeros({0, 3}, Dtype::i8, dev()), 32);
  EXPECT_EQ(shape_of(no_cols), (Shape{3, 0}));
  EXPECT_EQ(no_cols.dtype(), Dtype::f16);
}

}  // namespace
