// weight_int4_mm and quantize_int4 on the opencl device against the CPU reference: every gemv
// row block (M = 1, 2, 3, 5, 16; M = 1 both the general and the aligned kernel) and the tiled
// kernel (M = 17, 70), group sizes 32 to 512, K not a multiple of the staged tile, N not a multiple
// of a work-group's columns, a weight whose byte offset is not 16-aligned, and the quantizer bit
// for bit (ties and the bf16 scale rounding). dequantize_int4 (composed of public ops) bit for bit,
// strided operands included, its round trip and its agreement with weight_int4_mm on the device.
#include "support/throws_exactly.hpp"
#include "test_util.hpp"

namespace {

using namespace xdo;

// Products summed over K in another order (and, in the gemv, scaled per 32-chunk).
Tol int4_tol(Dtype d) {
  switch (d) {
    case Dtype::f32:
      return {2e-5, 2e-5};
    case Dtype::f16:
      return {2e-3, 2e-3};
    default:
      return {1.6e-2, 1.6e-2};
  }
}

struct Problem {
  int64_t m, k, n, g;
};

std::vector<Tensor> operands(const Problem& p, Dtype d, uint32_t seed) {
  return {
      random_tensor({p.m, p.k}, d, seed, -1, 1),
      make(random_values(static_cast<size_t>(p.n * p.k / 2), 0, 256, Dtype::u8, seed + 1), {p.n, p.k / 2}, Dtype::u8),
      random_tensor({p.k / p.g, p.n}, d, seed + 2, 0.005, 0.05),
      make(random_values(static_cast<size_t>(p.k / p.g * p.n), 0, 16, Dtype::i8, seed + 3), {p.k / p.g, p.n},
           Dtype::i8)};
}

TEST(OpenclInt4, WeightInt4MmMatchesTheCpu) {
  const std::vector<Problem> problems = {{1, 32, 1, 32},  {1, 4096, 300, 128}, {2, 544, 17, 32}, {3, 1024, 64, 256},
                                         {5, 96, 33, 32}, {16, 2048, 40, 512}, {17, 128, 9, 32}, {70, 640, 45, 64},
                                         {0, 64, 8, 32},  {1, 2048, 72, 64}};
  for (Dtype d : {Dtype::f32, Dtype::f16, Dtype::bf16})
    for (const Problem& p : problems) {
      const auto in = operands(p, d, static_cast<uint32_t>(p.m * 7 + p.n));
      EXPECT_TRUE(same_as_cpu(
          in, [&](const std::vector<Tensor>& v) { return xd::weight_int4_mm(v[0], v[1], v[2], v[3], p.g); },
          int4_tol(d)))
          << name_of(d) << " m=" << p.m << " k=" << p.k << " n=" << p.n << " g=" << p.g;
    }
}

TEST(OpenclInt4, NonFiniteAndHugeInputsGiveTheCpusResults) {
  // 16 rows, aligned operands and whole 32-column tiles: on NVIDIA GPUs the tensor-core kernel,
  // whose bf16 route corrects an offset weight by the rows' input sums and must fall back to the
  // exact route where those sums are not finite or could overflow (docs/ops/int4.md).
  const Problem p{16, 512, 64, 128};
  for (Dtype d : {Dtype::f16, Dtype::bf16}) {
    auto in = operands(p, d, 41);
    std::vector<double> x = in[0].to(Dtype::f64).to_vector<double>();
    const double inf = std::numeric_limits<double>::infinity();
    x[3 * 512 + 5] = inf;        // row 3: +Inf
    x[7 * 512 + 300] = std::nan("");  // row 7: NaN
    x[12 * 512 + 130] = -inf;    // row 12: -Inf
    x[9 * 512 + 10] = d == Dtype::bf16 ? 1e37 : 6e4;  // row 9: finite; times 143 past the float range
    in[0] = make(x, {p.m, p.k}, d);
    EXPECT_TRUE(same_as_cpu(
        in, [&](const std::vector<Tensor>& v) { return xd::weight_int4_mm(v[0], v[1], v[2], v[3], p.g); },
        int4_tol(d)))
        << name_of(d);
  }
}

TEST(OpenclInt4, UnalignedWeightRowsStillLoad) {
  // A weight that is a slice starting one byte into its buffer: the 16-byte loads fall back (M = 1:
  // the general gemv rather than the aligned one).
  for (const Problem& p : {Problem{4, 256, 12, 64}, Problem{1, 256, 16, 64}}) {
    const auto in = operands(p, Dtype::f32, 5);
    const Tensor big = make(random_values(static_cast<size_t>(p.n * p.k / 2 + 1), 0, 256, Dtype::u8, 9),
                            {p.n * p.k / 2 + 1}, Dtype::u8);
    const auto run = [&](const std::vector<Tensor>& v) {
      return xd::weight_int4_mm(v[0], v[1].slice(0, 1, p.n * p.k / 2 + 1).view({p.n, p.k / 2}), v[2], v[3], p.g);
    };
    EXPECT_TRUE(same_as_cpu({in[0], big, in[2], in[3]}, run, int4_tol(Dtype::f32))) << "m=" << p.m;
  }
}

TEST(OpenclInt4, QuantizeIsBitExact) {
  struct Q {
    int64_t n, k, g;
    double lo, hi;
  };
  for (Dtype d : {Dtype::f32, Dtype::bf16})
    for (const Q& q : {Q{1, 32, 32, -2, 2}, Q{7, 256, 64, -2, 2}, Q{33, 384, 128, 0.5, 1.5}, Q{5, 1024, 32, -3, -1}}) {
      const Tensor w = random_tensor({q.n, q.k}, d, static_cast<uint32_t>(q.n + q.k), q.lo, q.hi);
      for (int out = 0; out < 3; ++out) {
        const auto pick = [&](const std::vector<Tensor>& v) {
          auto [packed, scales, zeros] = xd::quantize_int4(v[0], q.g);
          return out == 0 ? packed : out == 1 ? scales : zeros;
        };
        EXPECT_TRUE(same_as_cpu({w}, pick, kExact)) << name_of(d) << " n=" << q.n << " k=" << q.k << " output " << out;
      }
    }
}

TEST(OpenclInt4, QuantizeTiesGoToEvenOnTheDevice) {
  // Scale exactly 1 and zero point 0 (lo = 0, hi = 15): 2.5 -> 2, 3.5 -> 4, 0.5 -> 0.
  std::vector<double> w(32, 0.0);
  w[0] = 2.5, w[1] = 3.5, w[2] = 15, w[3] = 0.5;
  auto [packed, scales, zeros] = xd::quantize_int4(make(w, {1, 32}, Dtype::f32).to(ocl()), 32);
  const auto p = read(packed);
  EXPECT_EQ(p[0], 2 | (4 << 4));
  EXPECT_EQ(p[1], 15 | (0 << 4));
  EXPECT_EQ(read(scales)[0], 1.0);
}

TEST(OpenclInt4, OperandsOnTwoDevicesAreADeviceError) {
  const auto in = operands({2, 64, 4, 32}, Dtype::f32, 3);
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::weight_int4_mm(in[0].to(ocl()), in[1], in[2], in[3], 32), "weight_int4_mm",
                        "'input' is on opencl", "'weight' is on cpu");
}

// Every step is exact or one correctly rounded f32 multiplication, then one conversion.
TEST(OpenclInt4, DequantizeIsBitExact) {
  for (Dtype d : {Dtype::f32, Dtype::f16, Dtype::bf16})
    for (const Problem& p : {Problem{0, 64, 1, 32}, Problem{0, 256, 17, 64}, Problem{0, 1024, 40, 128}}) {
      const auto in = operands(p, d, static_cast<uint32_t>(p.k + p.n));
      EXPECT_TRUE(same_as_cpu(
          {in[1], in[2], in[3]},
          [&](const std::vector<Tensor>& v) { return xd::dequantize_int4(v[0], v[1], v[2], p.g); }, kExact))
          << name_of(d) << " k=" << p.k << " n=" << p.n;
      // scales and zeros as transposed views of [N, K/g] tensors, packed as a column slice.
      const auto strided = [&](const std::vector<Tensor>& v) {
        return xd::dequantize_int4(v[0].slice(1, 1, p.k / 2 + 1), v[1].t(), v[2].t(), p.g);
      };
      const Tensor wide = random_tensor({p.n, p.k / 2 + 2}, Dtype::u8, 3, 0, 256);
      EXPECT_TRUE(same_as_cpu({wide, in[2].t().contiguous(), in[3].t().contiguous()}, strided, kExact))
          << name_of(d) << " strided k=" << p.k << " n=" << p.n;
    }
}

// The round trip gives the CPU's bits, so the CPU's bound (CpuInt4.DequantizeOfQuantizeIsWithin
// HalfAScale) holds on the device too.
TEST(OpenclInt4, DequantizeOfQuantizeIsTheCpusRoundTrip) {
  for (Dtype d : {Dtype::f32, Dtype::bf16}) {
    const Tensor w = random_tensor({12, 512}, d, 17, -2, 3);
    const auto round_trip = [](const std::vector<Tensor>& v) {
      auto [packed, scales, zeros] = xd::quantize_int4(v[0], 128);
      return xd::dequantize_int4(packed, scales, zeros, 128);
    };
    EXPECT_TRUE(same_as_cpu({w}, round_trip, kExact)) << name_of(d);
  }
}

TEST(OpenclInt4, MatmulWithTheDequantizedWeightAgreesWithWeightInt4Mm) {
  const Problem p{3, 1024, 33, 64};
  const auto in = operands(p, Dtype::f32, 29);
  std::vector<Tensor> dev_in;
  for (const Tensor& t : in) dev_in.push_back(t.to(ocl()));
  const Tensor got = xd::mm(dev_in[0], xd::dequantize_int4(dev_in[1], dev_in[2], dev_in[3], p.g).t());
  const Tensor want = xd::weight_int4_mm(dev_in[0], dev_in[1], dev_in[2], dev_in[3], p.g);
  EXPECT_TRUE(all_close(read(got), read(want), int4_tol(Dtype::f32)));
}

TEST(OpenclInt4, DequantizeOperandsOnTwoDevicesAreADeviceError) {
  const auto in = operands({0, 64, 4, 32}, Dtype::f32, 3);
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::dequantize_int4(in[1].to(ocl()), in[2], in[3], 32), "dequantize_int4",
                        "'packed' is on opencl", "'scales' is on cpu");
}

}  // namespace
