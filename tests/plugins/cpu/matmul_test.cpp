// mm, addmm, bmm, baddbmm on the CPU backend: literal cases, odd/prime sizes against an fp64
// recomputation in every float dtype, transposed / sliced / permuted / expanded operands, empty
// dims, beta = 0 not propagating NaN from the input, alpha/beta scaling, and oneDNN vs the plain
// loops where oneDNN kernels are registered.
#include "test_util.hpp"

#include <set>

namespace {

using namespace xdt;
using xd::Dtype;

struct Mat {
  std::vector<double> v;  // row-major logical values
  int64_t rows, cols;
  double at(int64_t r, int64_t c) const { return v[static_cast<size_t>(r * cols + c)]; }
};

// out = beta * input + alpha * a @ b (input already broadcast to [M, N], or empty for none);
// scale = |beta * input| + |alpha| * sum_k |a_ik b_kj|.
void mm_ref(const Mat& a, const Mat& b, double alpha, double beta, const std::vector<double>& input,
            std::vector<double>& out, std::vector<double>& scale) {
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j) {
      double s = 0, m = 0;
      for (int64_t k = 0; k < a.cols; ++k) {
        s += a.at(i, k) * b.at(k, j);
        m += std::fabs(a.at(i, k) * b.at(k, j));
      }
      double o = alpha * s, sc = std::fabs(alpha) * m;
      if (!input.empty() && beta != 0) {
        const double x = input[static_cast<size_t>(i * b.cols + j)];
        o += beta * x;
        sc += std::fabs(beta * x);
      }
      out.push_back(o);
      scale.push_back(sc);
    }
}

::testing::AssertionResult check_mm(const xd::Tensor& got, const Mat& a, const Mat& b, Dtype d, double alpha = 1,
                                    double beta = 0, const std::vector<double>& input = {}) {
  std::vector<double> want, scale;
  mm_ref(a, b, alpha, beta, input, want, scale);
  if (shape_of(got) != Shape{a.rows, b.cols})
    return ::testing::AssertionFailure() << "shape " << ::testing::PrintToString(shape_of(got));
  if (got.dtype() != d) return ::testing::AssertionFailure() << "dtype " << xd::dtype_name(got.dtype());
  return all_close(read(got), want, d, scale);
}

// ------------------------------------------------------------------ mm

TEST(Mm, KnownTwoByTwoProduct) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    EXPECT_TRUE(all_equal(read(xd::mm(make({1, 2, 3, 4}, {2, 2}, d), make({5, 6, 7, 8}, {2, 2}, d))), {19, 22, 43, 50}));
    // [1, 3] x [3, 2]
    EXPECT_TRUE(all_equal(read(xd::mm(make({1, -1, 2}, {1, 3}, d), make({1, 2, 3, 4, 5, 6}, {3, 2}, d))), {8, 10}));
  }
}

TEST(Mm, OddAndPrimeSizesMatchFp64InEveryFloatDtype) {
  const std::vector<std::array<int64_t, 3>> sizes = {{7, 13, 5}, {37, 41, 29}, {1, 1, 1}, {1, 17, 1}, {64, 1, 3},
                                                     {3, 257, 2}, {13, 7, 31}};
  uint32_t seed = 1;
  for (Dtype d : float_dtypes()) {
    for (const auto& [m, k, n] : sizes) {
      SCOPED_TRACE(trace(d) + " " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
      const Mat a{random_values(static_cast<size_t>(m * k), -2, 2, d, ++seed), m, k};
      const Mat b{random_values(static_cast<size_t>(k * n), -2, 2, d, ++seed), k, n};
      EXPECT_TRUE(check_mm(xd::mm(make(a.v, {m, k}, d), make(b.v, {k, n}, d)), a, b, d));
    }
  }
}

TEST(Mm, TransposedOperands) {
  uint32_t seed = 50;
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const int64_t m = 11, k = 19, n = 7;
    const auto at = random_values(static_cast<size_t>(k * m), -2, 2, d, ++seed);  // stored [k, m]
    const auto bt = random_values(static_cast<size_t>(n * k), -2, 2, d, ++seed);  // stored [n, k]
    const xd::Tensor ta = make(at, {k, m}, d).t(), tb = make(bt, {n, k}, d).t();
    const Mat a{gather(at, {m, k}, {1, m}, 0), m, k}, b{gather(bt, {k, n}, {1, k}, 0), k, n};
    EXPECT_TRUE(check_mm(xd::mm(ta, tb), a, b, d));
    EXPECT_TRUE(check_mm(xd::mm(ta, make(b.v, {k, n}, d)), a, b, d));
    EXPECT_TRUE(check_mm(xd::mm(make(a.v, {m, k}, d), tb), a, b, d));
  }
}

TEST(Mm, StepSlicedOperands) {
  const int64_t m = 6, k = 9, n = 5;
  const auto abase = random_values(static_cast<size_t>(m * 2 * k), -2, 2, Dtype::f32, 3);  // [6, 18]
  const auto bbase = random_values(static_cast<size_t>(3 * k * n), -2, 2, Dtype::f32, 4);  // [27, 5]
  const xd::Tensor ta = make(abase, {m, 2 * k}, Dtype::f32).slice(1, 1, 2 * k, 2);       // [6, 9] strides [18, 2]
  const xd::Tensor tb = make(bbase, {3 * k, n}, Dtype::f32).slice(0, 0, 3 * k, 3);       // [9, 5] strides [15, 1]
  ASSERT_EQ(strides_of(ta), (Shape{18, 2}));
  ASSERT_EQ(strides_of(tb), (Shape{15, 1}));
  const Mat a{gather(abase, {m, k}, {18, 2}, 1), m, k}, b{gather(bbase, {k, n}, {15, 1}, 0), k, n};
  EXPECT_TRUE(check_mm(xd::mm(ta, tb), a, b, Dtype::f32));
}

TEST(Mm, ExpandedOperand) {
  // A row expanded to [4, 3] (stride 0 along rows) times a [3, 2].
  const xd::Tensor a = make({1, 2, 3}, {1, 3}, Dtype::f64).expand({4, 3});
  EXPECT_TRUE(all_equal(read(xd::mm(a, make({1, 0, 0, 1, 1, 1}, {3, 2}, Dtype::f64))), {4, 5, 4, 5, 4, 5, 4, 5}));
}

TEST(Mm, EmptyInnerDimGivesZeros) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    poison(3 * 4 * xd::itemsize(d));
    const xd::Tensor out = xd::mm(xd::empty({3, 0}, d, dev()), xd::empty({0, 4}, d, dev()));
    EXPECT_EQ(shape_of(out), (Shape{3, 4}));
    EXPECT_TRUE(all_equal(read(out), std::vector<double>(12, 0.0)));
  }
  EXPECT_EQ(shape_of(xd::mm(xd::empty({0, 5}, Dtype::f32, dev()), xd::empty({5, 4}, Dtype::f32, dev()))), (Shape{0, 4}));
  EXPECT_EQ(shape_of(xd::mm(xd::empty({3, 5}, Dtype::f32, dev()), xd::empty({5, 0}, Dtype::f32, dev()))), (Shape{3, 0}));
}

TEST(Mm, InfAndNanInOperandsPropagate) {
  const xd::Tensor out = xd::mm(make({1, kNaN, 1, 1}, {2, 2}, Dtype::f32), make({1, 0, 1, 0}, {2, 2}, Dtype::f32));
  const auto v = read(out);
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));  // NaN * 0 is NaN
  EXPECT_TRUE(all_equal({v[2], v[3]}, {2, 0}));
}

// ------------------------------------------------------------------ addmm

TEST(Addmm, AlphaAndBetaScaleKnownValues) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor a = make({1, 2, 3, 4}, {2, 2}, d), b = make({5, 6, 7, 8}, {2, 2}, d);
    EXPECT_TRUE(all_equal(read(xd::addmm(xd::ones({2, 2}, d, dev()), a, b, 0.5, 2.0)), {38.5, 44.5, 86.5, 100.5}));
    EXPECT_TRUE(all_equal(read(xd::addmm(make({10, 20}, {2}, d), a, b)), {29, 42, 53, 70}));
    EXPECT_TRUE(all_equal(read(xd::addmm(make({-1, 1}, {2, 1}, d), a, b, 1.0, -1.0)), {-20, -23, -42, -49}));
    EXPECT_TRUE(all_equal(read(xd::addmm(make({100}, {}, d), a, b, 0.25, 0.5)), {34.5, 36, 46.5, 50}));
  }
}

TEST(Addmm, BetaZeroIgnoresNanAndInfInput) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor a = make({1, 2, 3, 4}, {2, 2}, d), b = make({5, 6, 7, 8}, {2, 2}, d);
    EXPECT_TRUE(all_equal(read(xd::addmm(xd::full({2, 2}, kNaN, d, dev()), a, b, 0.0, 1.0)), {19, 22, 43, 50}));
    EXPECT_TRUE(all_equal(read(xd::addmm(make({kNaN, kInf}, {2}, d), a, b, 0.0, 2.0)), {38, 44, 86, 100}));
    EXPECT_TRUE(all_equal(read(xd::addmm(make({-kInf}, {1, 1}, d), a, b, 0.0, 1.0)), {19, 22, 43, 50}));
  }
}

TEST(Addmm, BetaZeroWithEmptyInnerDimGivesZerosNotNan) {
  poison(2 * 3 * 4);
  const xd::Tensor out =
      xd::addmm(xd::full({2, 3}, kNaN, Dtype::f32, dev()), xd::empty({2, 0}, Dtype::f32, dev()), xd::empty({0, 3}, Dtype::f32, dev()), 0.0);
  EXPECT_TRUE(all_equal(read(out), std::vector<double>(6, 0.0)));
  const xd::Tensor only_input = xd::addmm(make({1, 2, 3}, {3}, Dtype::f32), xd::empty({2, 0}, Dtype::f32, dev()),
                                          xd::empty({0, 3}, Dtype::f32, dev()), 2.0, 5.0);
  EXPECT_TRUE(all_equal(read(only_input), {2, 4, 6, 2, 4, 6}));
}

TEST(Addmm, RandomOddSizesWithBroadcastInputMatchFp64) {
  uint32_t seed = 200;
  const int64_t m = 37, k = 41, n = 29;
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const Mat a{random_values(static_cast<size_t>(m * k), -2, 2, d, ++seed), m, k};
    const auto bt = random_values(static_cast<size_t>(n * k), -2, 2, d, ++seed);
    const Mat b{gather(bt, {k, n}, {1, k}, 0), k, n};
    const auto bias = random_values(static_cast<size_t>(n), -5, 5, d, ++seed);
    std::vector<double> input;  // bias broadcast over rows
    for (int64_t i = 0; i < m; ++i) input.insert(input.end(), bias.begin(), bias.end());
    const xd::Tensor out = xd::addmm(make(bias, {n}, d), make(a.v, {m, k}, d), make(bt, {n, k}, d).t(), 0.5, -1.25);
    EXPECT_TRUE(check_mm(out, a, b, d, -1.25, 0.5, input));
    const auto full_in = random_values(static_cast<size_t>(m * n), -5, 5, d, ++seed);
    const xd::Tensor out2 = xd::addmm(make(full_in, {n, m}, d).t(), make(a.v, {m, k}, d), make(b.v, {k, n}, d), 3.0, 1.0);
    EXPECT_TRUE(check_mm(out2, a, b, d, 1.0, 3.0, gather(full_in, {m, n}, {1, m}, 0)));
  }
}

// ------------------------------------------------------------------ bmm / baddbmm

// Logical [B, R, C] values as per-batch matrices.
std::vector<Mat> batches(const std::vector<double>& v, int64_t bsz, int64_t r, int64_t c) {
  std::vector<Mat> out;
  for (int64_t i = 0; i < bsz; ++i)
    out.push_back({std::vector<double>(v.begin() + i * r * c, v.begin() + (i + 1) * r * c), r, c});
  return out;
}

::testing::AssertionResult check_bmm(const xd::Tensor& got, const std::vector<Mat>& a, const std::vector<Mat>& b, Dtype d,
                                     double alpha = 1, double beta = 0, const std::vector<double>& input = {}) {
  std::vector<double> want, scale;
  const int64_t mn = a.empty() ? 0 : a[0].rows * b[0].cols;
  for (size_t i = 0; i < a.size(); ++i) {
    std::vector<double> in;
    if (!input.empty())
      in.assign(input.begin() + static_cast<int64_t>(i) * mn, input.begin() + static_cast<int64_t>(i + 1) * mn);
    mm_ref(a[i], b[i], alpha, beta, in, want, scale);
  }
  if (got.dtype() != d) return ::testing::AssertionFailure() << "dtype " << xd::dtype_name(got.dtype());
  return all_close(read(got), want, d, scale);
}

TEST(Bmm, KnownValuesPerBatch) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor a = make({1, 2, 3, 4, 1, 0, 0, 1}, {2, 2, 2}, d);
    const xd::Tensor b = make({5, 6, 7, 8, 2, 3, 4, 5}, {2, 2, 2}, d);
    const xd::Tensor out = xd::bmm(a, b);
    EXPECT_EQ(shape_of(out), (Shape{2, 2, 2}));
    EXPECT_TRUE(all_equal(read(out), {19, 22, 43, 50, 2, 3, 4, 5}));
  }
}

TEST(Bmm, RandomOddSizesWithPermutedAndTransposedOperands) {
  uint32_t seed = 300;
  const int64_t bsz = 3, m = 7, k = 13, n = 5;
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto abase = random_values(static_cast<size_t>(m * bsz * k), -2, 2, d, ++seed);  // stored [m, B, k]
    const auto bbase = random_values(static_cast<size_t>(bsz * n * k), -2, 2, d, ++seed);  // stored [B, n, k]
    const xd::Tensor ta = make(abase, {m, bsz, k}, d).permute({1, 0, 2});               // [B, m, k] strides [k, B*k, 1]
    const xd::Tensor tb = make(bbase, {bsz, n, k}, d).transpose(1, 2);                  // [B, k, n] strides [n*k, 1, k]
    const auto a = batches(gather(abase, {bsz, m, k}, {k, bsz * k, 1}, 0), bsz, m, k);
    const auto b = batches(gather(bbase, {bsz, k, n}, {n * k, 1, k}, 0), bsz, k, n);
    EXPECT_TRUE(check_bmm(xd::bmm(ta, tb), a, b, d));
    std::vector<double> ac, bc;
    for (const auto& x : a) ac.insert(ac.end(), x.v.begin(), x.v.end());
    for (const auto& x : b) bc.insert(bc.end(), x.v.begin(), x.v.end());
    EXPECT_TRUE(check_bmm(xd::bmm(make(ac, {bsz, m, k}, d), make(bc, {bsz, k, n}, d)), a, b, d));
  }
}

TEST(Bmm, ExpandedBatchOperand) {
  const auto bv = random_values(4 * 3, -2, 2, Dtype::f32, 9);
  const auto av = random_values(5 * 2 * 4, -2, 2, Dtype::f32, 10);
  const xd::Tensor tb = make(bv, {4, 3}, Dtype::f32).unsqueeze(0).expand({5, 4, 3});  // batch stride 0
  ASSERT_EQ(strides_of(tb)[0], 0);
  std::vector<Mat> b(5, Mat{bv, 4, 3});
  EXPECT_TRUE(check_bmm(xd::bmm(make(av, {5, 2, 4}, Dtype::f32), tb), batches(av, 5, 2, 4), b, Dtype::f32));
}

TEST(Bmm, EmptyBatchAndEmptyInnerDim) {
  EXPECT_EQ(shape_of(xd::bmm(xd::empty({0, 2, 3}, Dtype::f32, dev()), xd::empty({0, 3, 4}, Dtype::f32, dev()))), (Shape{0, 2, 4}));
  poison(2 * 3 * 4 * 4);
  const xd::Tensor z = xd::bmm(xd::empty({2, 3, 0}, Dtype::f32, dev()), xd::empty({2, 0, 4}, Dtype::f32, dev()));
  EXPECT_TRUE(all_equal(read(z), std::vector<double>(24, 0.0)));
}

TEST(Baddbmm, BetaZeroIgnoresNanInputAndAlphaScales) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor a = make({1, 2, 3, 4, 1, 0, 0, 1}, {2, 2, 2}, d);
    const xd::Tensor b = make({5, 6, 7, 8, 2, 3, 4, 5}, {2, 2, 2}, d);
    EXPECT_TRUE(all_equal(read(xd::baddbmm(xd::full({2, 2, 2}, kNaN, d, dev()), a, b, 0.0, 0.5)),
                          {9.5, 11, 21.5, 25, 1, 1.5, 2, 2.5}));
    EXPECT_TRUE(all_equal(read(xd::baddbmm(make({1, -1}, {2}, d), a, b, 2.0, 1.0)), {21, 20, 45, 48, 4, 1, 6, 3}));
  }
}

TEST(Baddbmm, RandomBroadcastInputMatchesFp64) {
  uint32_t seed = 400;
  const int64_t bsz = 4, m = 5, k = 11, n = 3;
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto av = random_values(static_cast<size_t>(bsz * m * k), -2, 2, d, ++seed);
    const auto bv = random_values(static_cast<size_t>(bsz * k * n), -2, 2, d, ++seed);
    const auto iv = random_values(static_cast<size_t>(m * n), -3, 3, d, ++seed);  // [1, m, n] broadcast over batch
    std::vector<double> input;
    for (int64_t i = 0; i < bsz; ++i) input.insert(input.end(), iv.begin(), iv.end());
    const xd::Tensor out = xd::baddbmm(make(iv, {1, m, n}, d), make(av, {bsz, m, k}, d), make(bv, {bsz, k, n}, d), -0.5, 1.5);
    EXPECT_EQ(shape_of(out), (Shape{bsz, m, n}));
    EXPECT_TRUE(check_bmm(out, batches(av, bsz, m, k), batches(bv, bsz, k, n), d, 1.5, -0.5, input));
  }
}

TEST(Baddbmm, PermutedAndTransposedBatchOperandsKnownValues) {
  // batch1 = [A0, A1] = [[[1, 2], [3, 4]], [[0, 1], [1, 0]]] stored as [m, B, k];
  // batch2 = [B0, B1] = [[[5, 6], [7, 8]], [[2, 0], [0, 3]]] stored transposed per batch;
  // input [[1, -1], [2, 0]] stored transposed, broadcast over the batch.
  // A0 B0 = [[19, 22], [43, 50]], A1 B1 = [[0, 3], [2, 0]]; out = 2 input + 0.5 A B.
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor b1 = make({1, 2, 0, 1, 3, 4, 1, 0}, {2, 2, 2}, d).permute({1, 0, 2});
    const xd::Tensor b2 = make({5, 7, 6, 8, 2, 0, 0, 3}, {2, 2, 2}, d).transpose(1, 2);
    const xd::Tensor in = make({1, 2, -1, 0}, {2, 2}, d).t();
    ASSERT_EQ(strides_of(b1), (Shape{2, 4, 1}));
    ASSERT_EQ(strides_of(b2), (Shape{4, 1, 2}));
    EXPECT_TRUE(all_equal(read(xd::baddbmm(in, b1, b2, 2.0, 0.5)), {11.5, 9, 25.5, 25, 2, -0.5, 5, 0}));
  }
}

TEST(Baddbmm, RandomPermutedBatchOperandsAndTransposedInputMatchFp64) {
  uint32_t seed = 450;
  const int64_t bsz = 3, m = 6, k = 9, n = 4;
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const auto abase = random_values(static_cast<size_t>(k * bsz * m), -2, 2, d, ++seed);  // stored [k, B, m]
    const auto bbase = random_values(static_cast<size_t>(n * bsz * k), -2, 2, d, ++seed);  // stored [n, B, k]
    const auto ibase = random_values(static_cast<size_t>(n * m), -3, 3, d, ++seed);        // stored [n, m]
    const xd::Tensor ta = make(abase, {k, bsz, m}, d).permute({1, 2, 0});  // [B, m, k] strides [m, 1, B*m]
    const xd::Tensor tb = make(bbase, {n, bsz, k}, d).permute({1, 2, 0});  // [B, k, n] strides [k, 1, B*k]
    const xd::Tensor ti = make(ibase, {n, m}, d).t();                      // [m, n] strides [1, m]
    ASSERT_EQ(strides_of(ta), (Shape{m, 1, bsz * m}));
    ASSERT_EQ(strides_of(tb), (Shape{k, 1, bsz * k}));
    const auto a = batches(gather(abase, {bsz, m, k}, {m, 1, bsz * m}, 0), bsz, m, k);
    const auto b = batches(gather(bbase, {bsz, k, n}, {k, 1, bsz * k}, 0), bsz, k, n);
    const auto iv = gather(ibase, {m, n}, {1, m}, 0);
    std::vector<double> input;
    for (int64_t i = 0; i < bsz; ++i) input.insert(input.end(), iv.begin(), iv.end());
    const xd::Tensor out = xd::baddbmm(ti, ta, tb, 0.75, -1.25);
    EXPECT_EQ(shape_of(out), (Shape{bsz, m, n}));
    EXPECT_TRUE(check_bmm(out, a, b, d, -1.25, 0.75, input));
  }
}

// ------------------------------------------------------------------ oneDNN vs plain loops

// Disables the named kernels for its lifetime.
class DisabledKernels {
 public:
  explicit DisabledKernels(std::set<std::string> names) : names_(std::move(names)) {
    for (const auto& n : names_) xd::set_kernel_enabled(n, false);
  }
  ~DisabledKernels() {
    for (const auto& n : names_) xd::set_kernel_enabled(n, true);
  }
  DisabledKernels(const DisabledKernels&) = delete;
  DisabledKernels& operator=(const DisabledKernels&) = delete;

 private:
  std::set<std::string> names_;
};

std::set<std::string> dnnl_kernels(const std::string& op, Dtype d) {
  std::set<std::string> out;
  for (const auto& k : xd::kernels())
    if (k.backend == "cpu" && k.op == op && k.dtype == d && k.name.find("dnnl") != std::string::npos) out.insert(k.name);
  return out;
}

// How often the cpu kernel `name` ran for dtype d (xd::kernels() counts every call a kernel took).
uint64_t calls(const std::string& name, Dtype d) {
  for (const auto& k : xd::kernels())
    if (k.backend == "cpu" && k.name == name && k.dtype == d) return k.calls;
  ADD_FAILURE() << "no cpu kernel " << name << " for " << xd::dtype_name(d);
  return 0;
}

// Runs f once and says which of op's two cpu kernels took it: the oneDNN kernel declines (in
// supports()) what oneDNN has no primitive for, and the plain loop kernel then runs it.
enum class Ran { dnnl, loop, other };
template <class F>
Ran which_ran(const std::string& op, Dtype d, F&& f) {
  const std::string dnnl = "cpu." + op + ".dnnl", loop = "cpu." + op + ".loop";
  const uint64_t dnnl_before = calls(dnnl, d), loop_before = calls(loop, d);
  f();
  const uint64_t dnnl_calls = calls(dnnl, d) - dnnl_before, loop_calls = calls(loop, d) - loop_before;
  if (dnnl_calls == 1 && loop_calls == 0) return Ran::dnnl;
  if (dnnl_calls == 0 && loop_calls == 1) return Ran::loop;
  return Ran::other;
}

TEST(MmDnnl, AgreesWithPlainLoopsOn64x96x80AndTransposedInputs) {
  const auto names = dnnl_kernels("mm", Dtype::f32);
  if (names.empty()) GTEST_SKIP() << "no oneDNN mm kernel is registered for cpu/f32";
  const int64_t m = 64, k = 96, n = 80;
  const auto av = random_values(static_cast<size_t>(m * k), -1, 1, Dtype::f32, 1);
  const auto bv = random_values(static_cast<size_t>(k * n), -1, 1, Dtype::f32, 2);
  const Mat a{av, m, k}, b{bv, k, n};
  std::vector<double> want, scale;
  mm_ref(a, b, 1, 0, {}, want, scale);
  // Same logical operands, stored transposed.
  std::vector<double> at(av.size()), bt(bv.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) at[static_cast<size_t>(j * m + i)] = av[static_cast<size_t>(i * k + j)];
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) bt[static_cast<size_t>(j * k + i)] = bv[static_cast<size_t>(i * n + j)];
  auto run = [&](bool transposed) {
    return transposed ? read(xd::mm(make(at, {k, m}, Dtype::f32).t(), make(bt, {n, k}, Dtype::f32).t()))
                      : read(xd::mm(make(av, {m, k}, Dtype::f32), make(bv, {k, n}, Dtype::f32)));
  };
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "transposed" : "contiguous");
    std::vector<double> with_dnnl;
    // Plain row- and column-major operands: oneDNN must take them, not hand them to the loops.
    EXPECT_EQ(which_ran("mm", Dtype::f32, [&] { with_dnnl = run(transposed); }), Ran::dnnl);
    std::vector<double> plain;
    {
      DisabledKernels off(names);
      EXPECT_EQ(which_ran("mm", Dtype::f32, [&] { plain = run(transposed); }), Ran::loop);
    }
    EXPECT_TRUE(all_close(with_dnnl, want, Dtype::f32, scale));
    EXPECT_TRUE(all_close(plain, want, Dtype::f32, scale));
    EXPECT_TRUE(all_close(with_dnnl, plain, Dtype::f32, scale));
  }
}

TEST(MmDnnl, EveryDnnlMatmulKernelAgreesWithPlainLoops) {
  bool any = false;
  for (const char* op : {"mm", "addmm", "bmm", "baddbmm"}) {
    for (Dtype d : float_dtypes()) {
      const auto names = dnnl_kernels(op, d);
      if (names.empty()) continue;
      any = true;
      SCOPED_TRACE(std::string(op) + " " + trace(d));
      const int64_t bsz = 2, m = 17, k = 33, n = 9;
      const auto av = random_values(static_cast<size_t>(bsz * m * k), -1, 1, d, 5);  // as [2m, k] or [k, 2m]
      const auto bv = random_values(static_cast<size_t>(bsz * k * n), -1, 1, d, 6);  // as [B, k, n] or [B, n, k]
      const auto b2 = random_values(static_cast<size_t>(k * n), -1, 1, d, 7);        // as [k, n] or [n, k]
      const auto iv = random_values(static_cast<size_t>(n), -1, 1, d, 8);
      const std::string o = op;
      // Operands strided in the ways oneDNN kernels have to handle or decline.
      auto run = [&] {
        if (o == "mm") return read(xd::mm(make(av, {bsz * m, k}, d).slice(0, 0, m), make(b2, {n, k}, d).t()));
        if (o == "addmm")
          return read(xd::addmm(make(iv, {n}, d), make(av, {k, bsz * m}, d).t().slice(0, 0, m), make(b2, {k, n}, d), 0.5, 2.0));
        if (o == "bmm") return read(xd::bmm(make(av, {bsz, m, k}, d), make(bv, {bsz, n, k}, d).transpose(1, 2)));
        return read(xd::baddbmm(make(iv, {n}, d), make(av, {bsz, m, k}, d), make(bv, {bsz, k, n}, d), 0.0, 1.0));
      };
      // Every operand here is a plain matrix (a leading dimension, row- or column-major) with
      // non-zero batch strides: oneDNN must run each, the loops only when it is disabled.
      std::vector<double> with_dnnl, plain;
      EXPECT_EQ(which_ran(o, d, [&] { with_dnnl = run(); }), Ran::dnnl);
      {
        DisabledKernels off(names);
        EXPECT_EQ(which_ran(o, d, [&] { plain = run(); }), Ran::loop);
      }
      std::vector<double> scale(with_dnnl.size(), 2.0 * static_cast<double>(k));
      EXPECT_TRUE(all_close(with_dnnl, plain, d, scale));
    }
  }
  if (!any) GTEST_SKIP() << "no oneDNN kernel is registered on the cpu backend";
}

TEST(MmDnnl, OperandsOneDnnlCannotTakeRunOnThePlainLoopsVisibly) {
  if (dnnl_kernels("mm", Dtype::f32).empty()) GTEST_SKIP() << "no oneDNN mm kernel is registered for cpu/f32";
  // a = [[1, 2, 3], [4, 5, 6]], b = [[1, 0], [-1, 2], [3, 1]]: a @ b = [[8, 7], [17, 16]].
  const std::vector<double> av = {1, 2, 3, 4, 5, 6}, bv = {1, 0, -1, 2, 3, 1};
  xd::Tensor out;
  // A batch broadcast from one matrix (batch stride 0): declined in supports(), run by the loops.
  std::vector<double> bb = bv;
  bb.insert(bb.end(), bv.begin(), bv.end());
  EXPECT_EQ(which_ran("bmm", Dtype::f32,
                      [&] {
                        out = xd::bmm(make(av, {1, 2, 3}, Dtype::f32).expand({2, 2, 3}), make(bb, {2, 3, 2}, Dtype::f32));
                      }),
            Ran::loop);
  EXPECT_TRUE(all_equal(read(out), {8, 7, 17, 16, 8, 7, 17, 16}));
  // Every other column of [[1..6], [7..12]]: strides (6, 2), neither row- nor column-major.
  // [[1, 3, 5], [7, 9, 11]] @ b = [[1 - 3 + 15, 6 + 5], [7 - 9 + 33, 18 + 11]].
  const xd::Tensor every_other = make({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 6}, Dtype::f32).slice(1, 0, 6, 2);
  EXPECT_EQ(which_ran("mm", Dtype::f32, [&] { out = xd::mm(every_other, make(bv, {3, 2}, Dtype::f32)); }), Ran::loop);
  EXPECT_TRUE(all_equal(read(out), {13, 11, 31, 29}));
}

}  // namespace
