// int_mm, scaled_mm and the fp8 conversions on the CPU backend: hand-worked products, odd/prime
// and empty shapes against an independent recomputation (int64 sums; fp8 decoded from the format
// definition, summed in double), transposed and sliced operands, tensor-wise and row-wise scales,
// every out_dtype, bias in out's dtype and in bf16, mixed fp8 formats, and oneDNN's int8 matmul
// against the plain loop.
#include "support/fp8_checks.hpp"
#include "test_util.hpp"

#include <cstring>

namespace {

using namespace xdt;
using xd::Tensor;

// ------------------------------------------------------------------ helpers

std::vector<int8_t> bytes_i8(const Tensor& t) {
  const std::vector<uint8_t> b = t.contiguous().to_bytes();
  std::vector<int8_t> out(b.size());
  if (!b.empty()) std::memcpy(out.data(), b.data(), b.size());  // empty: data() may be null
  return out;
}

Tensor i8_tensor(const std::vector<int8_t>& v, xd::IntList sizes) {
  return xd::from_host(v.data(), Dtype::i8, sizes, dev());
}

std::vector<int8_t> random_i8(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(dist(rng));
  return v;
}

// out = a @ b from a's and b's stored values (any layout), as int64 sums wrapped to int32.
std::vector<double> int_mm_ref(const Tensor& a, const Tensor& b) {
  const auto va = bytes_i8(a), vb = bytes_i8(b);
  const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  std::vector<double> out;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t s = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        s += int64_t{va[static_cast<size_t>(i * k + kk)]} * vb[static_cast<size_t>(kk * n + j)];
      out.push_back(static_cast<int32_t>(s));
    }
  return out;
}

// ------------------------------------------------------------------ int_mm

TEST(IntMm, HandWorkedProducts) {
  const Tensor r = xd::int_mm(i8_tensor({1, 2, 3, 4}, {2, 2}), i8_tensor({5, 6, 7, 8}, {2, 2}));
  EXPECT_EQ(r.dtype(), Dtype::i32);
  EXPECT_TRUE(all_equal(read(r), {19, 22, 43, 50}));
  // The extremes of i8: (-128)(-128) + 127*127 and (-128)(127) + 127*(-128).
  EXPECT_TRUE(all_equal(read(xd::int_mm(i8_tensor({-128, 127}, {1, 2}), i8_tensor({-128, 127, 127, -128}, {2, 2}))),
                        {16384 + 16129, -16256 - 16256}));
}

// Every product 16384 and every pair of them 32768: one past int16, where a kernel that sums pairs
// in 16 bits (oneDNN without VNNI) saturates. Whichever kernel the CPU registers must be exact.
TEST(IntMm, ExtremeOperandsOverflowNoIntermediate) {
  const int64_t m = 9, k = 300, n = 33;
  const Tensor a = i8_tensor(std::vector<int8_t>(static_cast<size_t>(m * k), -128), {m, k});
  std::vector<int8_t> bv(static_cast<size_t>(k * n), -128);
  for (size_t i = 1; i < bv.size(); i += 7) bv[i] = 127;  // some products -16256
  const Tensor b = i8_tensor(bv, {k, n});
  EXPECT_TRUE(all_equal(read(xd::int_mm(a, b)), int_mm_ref(a, b)));
  EXPECT_EQ(read(xd::int_mm(a, i8_tensor(std::vector<int8_t>(static_cast<size_t>(k * n), -128), {k, n})))[0],
            300.0 * 16384.0);
}

TEST(IntMm, OddPrimeAndEmptyShapesMatchInt64Sums) {
  const std::vector<std::array<int64_t, 3>> sizes = {{1, 1, 1}, {7, 13, 5}, {37, 41, 29}, {1, 257, 3},  {64, 1, 3},
                                                     {0, 5, 3}, {4, 0, 3},  {3, 5, 0},    {67, 129, 45}};
  uint32_t seed = 1;
  for (const auto& [m, k, n] : sizes) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
    const Tensor a = i8_tensor(random_i8(static_cast<size_t>(m * k), ++seed), {m, k});
    const Tensor b = i8_tensor(random_i8(static_cast<size_t>(k * n), ++seed), {k, n});
    const Tensor r = xd::int_mm(a, b);
    EXPECT_EQ(shape_of(r), (Shape{m, n}));
    EXPECT_TRUE(all_equal(read(r), int_mm_ref(a, b)));
  }
}

TEST(IntMm, TransposedAndSlicedOperands) {
  const int64_t m = 19, k = 23, n = 11;
  const Tensor at = i8_tensor(random_i8(static_cast<size_t>(k * m), 7), {k, m}).t();  // [m,k], col-major
  const Tensor bs =
      i8_tensor(random_i8(static_cast<size_t>(2 * k * n), 8), {2 * k, n}).slice(0, 1, 2 * k, 2);  // every 2nd row
  const Tensor bt = i8_tensor(random_i8(static_cast<size_t>(n * k), 9), {n, k}).t();
  ASSERT_FALSE(at.is_contiguous());
  ASSERT_FALSE(bs.is_contiguous());
  EXPECT_TRUE(all_equal(read(xd::int_mm(at, bs)), int_mm_ref(at, bs)));
  EXPECT_TRUE(all_equal(read(xd::int_mm(at, bt)), int_mm_ref(at, bt)));
}

// Disables the named kernels for its scope.
struct Disabled {
  std::vector<std::string> names;
  explicit Disabled(std::vector<std::string> n) : names(std::move(n)) {
    for (const auto& x : names) xd::set_kernel_enabled(x, false);
  }
  ~Disabled() {
    for (const auto& x : names) xd::set_kernel_enabled(x, true);
  }
};

// Calls taken by the cpu kernel `name` so far (xd::kernels() counts them).
uint64_t calls(const std::string& name) {
  for (const auto& k : xd::kernels())
    if (k.name == name) return k.calls;
  ADD_FAILURE() << "no kernel named " << name;
  return 0;
}

TEST(IntMm, OneDnnAndThePlainLoopAgree) {
  bool has_dnnl = false;
  for (const auto& k : xd::kernels()) has_dnnl |= k.name == "cpu.int_mm.dnnl";
  if (!has_dnnl) GTEST_SKIP() << "no oneDNN int_mm here (built without oneDNN, or no VNNI: see matmul_dnnl.cpp)";
  for (const bool transposed : {false, true}) {
    const int64_t m = 67, k = 129, n = 45;
    const Tensor a = transposed ? i8_tensor(random_i8(static_cast<size_t>(m * k), 3), {k, m}).t()
                                : i8_tensor(random_i8(static_cast<size_t>(m * k), 3), {m, k});
    const Tensor b = i8_tensor(random_i8(static_cast<size_t>(k * n), 4), {k, n});
    // Plain operands: oneDNN must run them (its kernel declines in supports() what oneDNN
    // cannot take, and would leave the call to the loop kernel, counted there).
    const uint64_t dnnl_before = calls("cpu.int_mm.dnnl"), loop_before = calls("cpu.int_mm.loop");
    const auto with_dnnl = read(xd::int_mm(a, b));
    EXPECT_EQ(calls("cpu.int_mm.dnnl"), dnnl_before + 1);
    EXPECT_EQ(calls("cpu.int_mm.loop"), loop_before);
    std::vector<double> plain;
    {
      Disabled off({"cpu.int_mm.dnnl"});
      plain = read(xd::int_mm(a, b));
    }
    EXPECT_EQ(calls("cpu.int_mm.loop"), loop_before + 1);
    EXPECT_TRUE(all_equal(with_dnnl, plain));
    EXPECT_TRUE(all_equal(plain, int_mm_ref(a, b)));
  }
}

// ------------------------------------------------------------------ scaled_mm

// Logical fp8 values of a tensor (any layout), decoded with the independent table.
std::vector<double> fp8_values(const Tensor& t) {
  const auto table = xd::test::fp8_reference_table(t.dtype());
  std::vector<double> out;
  for (uint8_t b : t.contiguous().to_bytes()) out.push_back(table[b]);
  return out;
}

std::vector<double> f32_values(const Tensor& t) { return read(t.contiguous()); }

// (a*sa)@(b*sb) + bias in double; `scale` receives the magnitude of what was summed.
std::vector<double> scaled_ref(const Tensor& a, const Tensor& b, const Tensor& sa, const Tensor& sb,
                               const std::optional<Tensor>& bias, std::vector<double>& scale) {
  const auto va = fp8_values(a), vb = fp8_values(b), vsa = f32_values(sa), vsb = f32_values(sb);
  const std::vector<double> vbias = bias ? read(*bias) : std::vector<double>{};
  const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  std::vector<double> out;
  scale.clear();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0, mag = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const double p = va[static_cast<size_t>(i * k + kk)] * vb[static_cast<size_t>(kk * n + j)];
        s += p;
        mag += std::fabs(p);
      }
      const double f =
          vsa[vsa.size() == 1 ? 0 : static_cast<size_t>(i)] * vsb[vsb.size() == 1 ? 0 : static_cast<size_t>(j)];
      double o = s * f;
      mag *= std::fabs(f);
      if (bias) o += vbias[static_cast<size_t>(j)], mag += std::fabs(vbias[static_cast<size_t>(j)]);
      out.push_back(o);
      scale.push_back(mag);
    }
  return out;
}

Tensor fp8_random(xd::IntList sizes, Dtype d, uint32_t seed) {
  const int64_t n = numel_of(sizes.vec());
  return make(random_values(static_cast<size_t>(n), -3, 3, d, seed), sizes, d);
}

TEST(ScaledMm, HandWorkedTensorwise) {
  // e4m3fn a = [[1, 2], [0.5, -1]], b = [[3, -0.25], [1, 4]]; a@b = [[5, 7.75], [0.5, -4.125]];
  // times 2 * 0.5 = 1, rounded to bf16 (all exact).
  const Tensor a = make({1, 2, 0.5, -1}, {2, 2}, Dtype::f8e4m3fn);
  const Tensor b = make({3, -0.25, 1, 4}, {2, 2}, Dtype::f8e4m3fn);
  const Tensor r = xd::scaled_mm(a, b, make({2}, {}, Dtype::f32), make({0.5}, {1}, Dtype::f32));
  EXPECT_EQ(r.dtype(), Dtype::bf16);
  EXPECT_TRUE(all_equal(read(r), {5, 7.75, 0.5, -4.125}));
  // Row-wise: rows scaled by [1, 4], columns by [2, -1]; bias [0.5, 1] in f32.
  const Tensor rw = xd::scaled_mm(a, b, make({1, 4}, {2, 1}, Dtype::f32), make({2, -1}, {1, 2}, Dtype::f32),
                                  make({0.5, 1}, {2}, Dtype::f32), Dtype::f32);
  EXPECT_TRUE(all_equal(read(rw), {10.5, -6.75, 4.5, 17.5}));
}

TEST(ScaledMm, MatchesDoubleRecomputationForEveryConfiguration) {
  struct C {
    int64_t m, k, n;
    Dtype a, b, out;
    bool rowwise;
    int bias;  // 0 none, 1 out's dtype, 2 bf16
  };
  const std::vector<C> cs = {{1, 1, 1, Dtype::f8e4m3fn, Dtype::f8e4m3fn, Dtype::bf16, false, 0},
                             {7, 13, 5, Dtype::f8e4m3fn, Dtype::f8e4m3fn, Dtype::f32, true, 1},
                             {37, 41, 29, Dtype::f8e5m2, Dtype::f8e5m2, Dtype::f16, false, 1},
                             {17, 64, 31, Dtype::f8e4m3fn, Dtype::f8e5m2, Dtype::bf16, true, 2},
                             {5, 0, 3, Dtype::f8e5m2, Dtype::f8e4m3fn, Dtype::f32, false, 2},
                             {0, 3, 4, Dtype::f8e4m3fn, Dtype::f8e4m3fn, Dtype::bf16, false, 1},
                             {3, 257, 2, Dtype::f8e5m2, Dtype::f8e5m2, Dtype::f32, true, 0}};
  uint32_t seed = 100;
  for (const C& c : cs) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n) + " " +
                 xd::dtype_name(c.a) + "@" + xd::dtype_name(c.b) + " -> " + xd::dtype_name(c.out));
    const Tensor a = fp8_random({c.m, c.k}, c.a, ++seed), b = fp8_random({c.k, c.n}, c.b, ++seed);
    const Tensor sa =
        c.rowwise ? make(random_values(static_cast<size_t>(c.m), 0.25, 2, Dtype::f32, ++seed), {c.m, 1}, Dtype::f32)
                  : make({0.75}, {}, Dtype::f32);
    const Tensor sb =
        c.rowwise ? make(random_values(static_cast<size_t>(c.n), 0.25, 2, Dtype::f32, ++seed), {1, c.n}, Dtype::f32)
                  : make({1.5}, {1}, Dtype::f32);
    std::optional<Tensor> bias;
    if (c.bias != 0)
      bias = make(random_values(static_cast<size_t>(c.n), -1, 1, Dtype::f32, ++seed), {c.n},
                  c.bias == 1 ? c.out : Dtype::bf16);
    const Tensor r = xd::scaled_mm(a, b, sa, sb, bias, c.out);
    EXPECT_EQ(r.dtype(), c.out);
    EXPECT_EQ(shape_of(r), (Shape{c.m, c.n}));
    std::vector<double> scale;
    const auto want = scaled_ref(a, b, sa, sb, bias, scale);
    EXPECT_TRUE(all_close(read(r), want, c.out, scale));
  }
}

TEST(ScaledMm, TransposedAndSlicedOperands) {
  const int64_t m = 21, k = 35, n = 13;
  const Tensor at = fp8_random({k, m}, Dtype::f8e4m3fn, 11).t();
  const Tensor bs = fp8_random({2 * k, n}, Dtype::f8e4m3fn, 12).slice(0, 0, 2 * k, 2);
  const Tensor bt = fp8_random({n, k}, Dtype::f8e5m2, 13).t();
  const Tensor sa = make({0.5}, {}, Dtype::f32), sb = make({3}, {}, Dtype::f32);
  for (const Tensor& b : {bs, bt}) {
    std::vector<double> scale;
    const auto want = scaled_ref(at, b, sa, sb, std::nullopt, scale);
    EXPECT_TRUE(all_close(read(xd::scaled_mm(at, b, sa, sb, std::nullopt, Dtype::f32)), want, Dtype::f32, scale));
  }
}

TEST(ScaledMm, NanAndInfInOperandsPropagate) {
  // e5m2 has Inf; e4m3fn's S.1111.111 is NaN.
  const Tensor a = make({INFINITY, 1, 1, 1}, {2, 2}, Dtype::f8e5m2);
  const Tensor b = make({1, 0, 1, 1}, {2, 2}, Dtype::f8e5m2);
  const auto r =
      read(xd::scaled_mm(a, b, make({1}, {}, Dtype::f32), make({1}, {}, Dtype::f32), std::nullopt, Dtype::f32));
  EXPECT_TRUE(std::isinf(r[0]));
  EXPECT_TRUE(std::isnan(r[1]));  // Inf * 0
  EXPECT_EQ(r[2], 2);
}

// ------------------------------------------------------------------ fp8 conversions

TEST(Fp8Cast, EveryBitPatternDecodesToTheFormatsValue) {
  for (Dtype d : {Dtype::f8e4m3fn, Dtype::f8e5m2}) EXPECT_TRUE(xd::test::fp8_decodes_like_the_table(d, dev()));
  // Anchors of the table itself, from the OCP FP8 specification.
  EXPECT_EQ(xd::test::fp8_reference_value(0x7e, Dtype::f8e4m3fn), 448.0);
  EXPECT_EQ(xd::test::fp8_reference_value(0x01, Dtype::f8e4m3fn), std::ldexp(1.0, -9));
  EXPECT_EQ(xd::test::fp8_reference_value(0x7b, Dtype::f8e5m2), 57344.0);
  EXPECT_EQ(xd::test::fp8_reference_value(0x01, Dtype::f8e5m2), std::ldexp(1.0, -16));
  EXPECT_TRUE(std::isinf(xd::test::fp8_reference_value(0xfc, Dtype::f8e5m2)));
}

TEST(Fp8Cast, EveryValueEncodesBackAndMidpointsRoundToEven) {
  for (Dtype d : {Dtype::f8e4m3fn, Dtype::f8e5m2}) EXPECT_TRUE(xd::test::fp8_encodes_back(d, dev()));
}

TEST(Fp8Cast, SaturatingCastClampsToMaxFinite) {
  for (Dtype d : {Dtype::f8e4m3fn, Dtype::f8e5m2})
    for (Dtype src : {Dtype::f32, Dtype::bf16}) EXPECT_TRUE(xd::test::fp8_saturates(d, src, dev()));
  EXPECT_EQ(xd::fp8_max(Dtype::f8e4m3fn), 448.0);
  EXPECT_EQ(xd::fp8_max(Dtype::f8e5m2), 57344.0);
}

}  // namespace
