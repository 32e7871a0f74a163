// mm, addmm, bmm, baddbmm on the CPU backend: literal cases, odd/prime sizes against an fp64
// recomputation in every float dtype, transposed / sliced / permuted / expanded operands, empty
// dims, beta = 0 not propagating NaN from the input, alpha/beta scaling, and oneDNN vs the plain
// loops where oneDNN kernels are registered.
#include "test_util.hpp"

#include <algorithm>
#include <functional>
#include <map>
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

// The cpu kernel of op/dtype d that took the one call f() made ("" when f made none, or several).
template <class F>
std::string kernel_that_ran(const std::string& op, Dtype d, F&& f) {
  std::map<std::string, uint64_t> before;  // xd::kernels() counts every call a kernel took
  for (const auto& k : xd::kernels())
    if (k.backend == "cpu" && k.op == op && k.dtype == d) before[k.name] = k.calls;
  f();
  std::string ran;
  uint64_t total = 0;
  for (const auto& k : xd::kernels())
    if (k.backend == "cpu" && k.op == op && k.dtype == d && k.calls != before[k.name]) {
      total += k.calls - before[k.name];
      ran = k.name;
    }
  return total == 1 ? ran : std::string();
}

// Runs f once and says which kind of op's cpu kernels took it: a oneDNN kernel (native, or
// f16/bf16 through f32) declines in check() what it cannot take, and the plain loop kernel then
// runs it.
enum class Ran { dnnl, loop, other };
template <class F>
Ran which_ran(const std::string& op, Dtype d, F&& f) {
  const std::string name = kernel_that_ran(op, d, std::forward<F>(f));
  if (name == "cpu." + op + ".loop") return Ran::loop;
  if (name.find("dnnl") != std::string::npos) return Ran::dnnl;
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

// ------------------------------------------------------------------ f16/bf16 through oneDNN's f32 matmul

// cpu.<op>.dnnl_f32 converts f16/bf16 operands to f32, runs oneDNN's f32 matmul and rounds once:
// the loops' semantics, so on operands whose f32 sums are exact (small integers) it must agree
// with the loop bit for bit, and within the f32 order of additions otherwise.

constexpr Dtype kHalfDtypes[] = {Dtype::f16, Dtype::bf16};

// The cpu kernels of op/d in the order the slot tries them.
std::vector<std::string> slot(const std::string& op, Dtype d) {
  std::vector<std::string> out;
  for (const auto& k : xd::kernels())
    if (k.backend == "cpu" && k.op == op && k.dtype == d) out.push_back(k.name);
  return out;
}

bool has_convert(const std::string& op, Dtype d) {
  const auto names = slot(op, d);
  return std::find(names.begin(), names.end(), "cpu." + op + ".dnnl_f32") != names.end();
}

// Every kernel of op/d's slot but `keep`.
std::set<std::string> all_but(const std::string& op, Dtype d, const std::string& keep) {
  std::set<std::string> out;
  for (const auto& n : slot(op, d))
    if (n != keep) out.insert(n);
  return out;
}

// f() run once with cpu.<op>.dnnl_f32 alone in the slot and once with the loop alone; each must
// take the call.
struct Both {
  std::vector<double> convert, loop;
};
template <class F>
Both convert_and_loop(const std::string& op, Dtype d, F&& f) {
  Both r;
  for (const std::string& kernel : {"cpu." + op + ".dnnl_f32", "cpu." + op + ".loop"}) {
    const DisabledKernels off(all_but(op, d, kernel));
    std::vector<double>& out = kernel == "cpu." + op + ".loop" ? r.loop : r.convert;
    EXPECT_EQ(kernel_that_ran(op, d, [&] { out = read(f()); }), kernel);
  }
  return r;
}

// n small integers in [-4, 4]: products and sums of a few thousand of them are exact in f32, so
// any order of additions gives the same f32 result and the same rounding.
std::vector<double> small_ints(size_t n, uint32_t seed, int lo = -4, int hi = 4) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

#define XD_SKIP_WITHOUT_CONVERT()                                                                  \
  do {                                                                                             \
    if (!has_convert("mm", Dtype::f16))                                                            \
      GTEST_SKIP() << "no cpu.mm.dnnl_f32 kernel (built without oneDNN, or its engine did not open)"; \
  } while (false)

TEST(MmDnnlF32, RegisteredForF16AndBf16AfterNativeOneDnnlAndBeforeTheLoop) {
  XD_SKIP_WITHOUT_CONVERT();
  for (const char* op : {"mm", "addmm", "bmm", "baddbmm"})
    for (Dtype d : kHalfDtypes) {
      SCOPED_TRACE(std::string(op) + " " + trace(d));
      const auto names = slot(op, d);
      const std::string o = op;
      ASSERT_GE(names.size(), 2u);
      EXPECT_EQ(names.back(), "cpu." + o + ".loop");
      EXPECT_EQ(names[names.size() - 2], "cpu." + o + ".dnnl_f32");
      if (names.size() > 2) {
        EXPECT_EQ(names.front(), "cpu." + o + ".dnnl");  // native bf16 (AVX-512)
      }
    }
  EXPECT_FALSE(has_convert("mm", Dtype::f32));
  EXPECT_FALSE(has_convert("mm", Dtype::f64));
}

TEST(MmDnnlF32, LargeHalfMatmulsTakeOneDnnlNotTheLoop) {
  XD_SKIP_WITHOUT_CONVERT();
  const int64_t m = 192, k = 256, n = 160;
  uint32_t seed = 700;
  for (Dtype d : kHalfDtypes) {
    SCOPED_TRACE(trace(d));
    const Mat a{random_values(static_cast<size_t>(m * k), -1, 1, d, ++seed), m, k};
    const Mat b{random_values(static_cast<size_t>(k * n), -1, 1, d, ++seed), k, n};
    xd::Tensor out;
    EXPECT_EQ(which_ran("mm", d, [&] { out = xd::mm(make(a.v, {m, k}, d), make(b.v, {k, n}, d)); }), Ran::dnnl);
    EXPECT_TRUE(check_mm(out, a, b, d));
    const Both r = convert_and_loop("mm", d, [&] { return xd::mm(make(a.v, {m, k}, d), make(b.v, {k, n}, d)); });
    std::vector<double> want, scale;
    mm_ref(a, b, 1, 0, {}, want, scale);
    EXPECT_TRUE(all_close(r.convert, r.loop, d, scale));
  }
}

TEST(MmDnnlF32, TransposedSlicedAndExpandedOperandsMatchTheLoopExactly) {
  XD_SKIP_WITHOUT_CONVERT();
  const int64_t m = 23, k = 37, n = 19;
  for (Dtype d : kHalfDtypes) {
    SCOPED_TRACE(trace(d));
    const auto av = small_ints(static_cast<size_t>(2 * m * 2 * k), 1);  // [2m, 2k]
    const auto bv = small_ints(static_cast<size_t>(3 * k * n), 2);      // [3k, n] or [n, 3k]
    const auto row = small_ints(static_cast<size_t>(k), 3);
    const std::vector<std::pair<const char*, std::function<xd::Tensor()>>> cases = {
        {"a.t b.t", [&] { return xd::mm(make(av, {2 * k, 2 * m}, d).slice(0, 0, k).slice(1, 0, m).t(),
                                        make(bv, {n, 3 * k}, d).slice(1, 0, k).t()); }},
        {"a every other column", [&] { return xd::mm(make(av, {2 * m, 2 * k}, d).slice(1, 1, 2 * k, 2).slice(0, 0, m),
                                                     make(bv, {3 * k, n}, d).slice(0, 0, k)); }},
        {"b every third row, offset a", [&] { return xd::mm(make(av, {2 * m, 2 * k}, d).slice(0, 3, 3 + m).slice(1, 5, 5 + k),
                                                           make(bv, {3 * k, n}, d).slice(0, 2, 3 * k, 3)); }},
        {"a every other element both ways", [&] { return xd::mm(make(av, {2 * m, 2 * k}, d).slice(0, 0, 2 * m, 2).slice(1, 0, 2 * k, 2),
                                                               make(bv, {n, 3 * k}, d).slice(1, 0, 3 * k, 3).t()); }},
        {"a expanded row", [&] { return xd::mm(make(row, {1, k}, d).expand({m, k}), make(bv, {3 * k, n}, d).slice(0, 0, k)); }},
    };
    for (const auto& [name, f] : cases) {
      SCOPED_TRACE(name);
      const Both r = convert_and_loop("mm", d, f);
      EXPECT_EQ(r.convert.size(), static_cast<size_t>(m * n));
      EXPECT_TRUE(all_equal(r.convert, r.loop));
    }
  }
}

TEST(MmDnnlF32, AddmmBroadcastBiasAlphaAndBetaMatchTheLoopExactly) {
  XD_SKIP_WITHOUT_CONVERT();
  const int64_t m = 29, k = 31, n = 17;
  for (Dtype d : kHalfDtypes) {
    SCOPED_TRACE(trace(d));
    const auto av = small_ints(static_cast<size_t>(m * k), 11), bv = small_ints(static_cast<size_t>(k * n), 12);
    const auto bias = small_ints(static_cast<size_t>(m * n), 13, -20, 20);
    const xd::Tensor a = make(av, {m, k}, d), bt = make(bv, {n, k}, d).t();
    const std::vector<std::pair<const char*, std::function<xd::Tensor()>>> cases = {
        {"bias row, beta 0.5, alpha -1.25", [&] { return xd::addmm(make(bias, {m * n}, d).slice(0, 0, n), a, bt, 0.5, -1.25); }},
        {"bias column, beta -2, alpha 0.75", [&] { return xd::addmm(make(std::vector<double>(bias.begin(), bias.begin() + m), {m, 1}, d), a, bt, -2.0, 0.75); }},
        {"scalar, beta 3", [&] { return xd::addmm(make({7}, {}, d), a, bt, 3.0, 1.0); }},
        {"transposed full input", [&] { return xd::addmm(make(bias, {n, m}, d).t(), a, bt, 1.0, 1.0); }},
        {"beta 0 ignores a NaN bias", [&] { return xd::addmm(xd::full({n}, kNaN, d, dev()), a, bt, 0.0, 0.5); }},
        {"alpha 0.001 rounds small", [&] { return xd::addmm(make(bias, {m * n}, d).slice(0, 0, n), a, bt, 0.001, 0.001); }},
    };
    for (const auto& [name, f] : cases) {
      SCOPED_TRACE(name);
      const Both r = convert_and_loop("addmm", d, f);
      EXPECT_EQ(r.convert.size(), static_cast<size_t>(m * n));
      EXPECT_TRUE(all_equal(r.convert, r.loop));
      for (double x : r.convert) EXPECT_FALSE(std::isnan(x));
    }
  }
}

TEST(MmDnnlF32, BmmAndBaddbmmMatchTheLoopExactly) {
  XD_SKIP_WITHOUT_CONVERT();
  const int64_t bsz = 3, m = 9, k = 21, n = 11;
  for (Dtype d : kHalfDtypes) {
    SCOPED_TRACE(trace(d));
    const auto av = small_ints(static_cast<size_t>(bsz * m * k), 21), bv = small_ints(static_cast<size_t>(bsz * k * n), 22);
    const auto iv = small_ints(static_cast<size_t>(bsz * m * n), 23, -30, 30);
    const xd::Tensor a_perm = make(av, {m, bsz, k}, d).permute({1, 0, 2});   // [B, m, k], strides [k, B*k, 1]
    const xd::Tensor b_tr = make(bv, {bsz, n, k}, d).transpose(1, 2);        // [B, k, n], column-major
    const xd::Tensor b_one = make(std::vector<double>(bv.begin(), bv.begin() + k * n), {1, k, n}, d).expand({bsz, k, n});     // batch stride 0
    const xd::Tensor a = make(av, {bsz, m, k}, d), b = make(bv, {bsz, k, n}, d);
    const std::vector<std::pair<const char*, std::function<xd::Tensor()>>> bmm_cases = {
        {"contiguous", [&] { return xd::bmm(a, b); }},
        {"permuted a, transposed b", [&] { return xd::bmm(a_perm, b_tr); }},
        {"b broadcast over the batch", [&] { return xd::bmm(a_perm, b_one); }},
    };
    for (const auto& [name, f] : bmm_cases) {
      SCOPED_TRACE(name);
      const Both r = convert_and_loop("bmm", d, f);
      EXPECT_EQ(r.convert.size(), static_cast<size_t>(bsz * m * n));
      EXPECT_TRUE(all_equal(r.convert, r.loop));
    }
    const std::vector<std::pair<const char*, std::function<xd::Tensor()>>> baddbmm_cases = {
        {"input [1, m, n], beta -0.5, alpha 1.5", [&] { return xd::baddbmm(make(std::vector<double>(iv.begin(), iv.begin() + m * n), {1, m, n}, d), a, b_tr, -0.5, 1.5); }},
        {"bias row, beta 2, alpha 0.25", [&] { return xd::baddbmm(make(iv, {bsz * m * n}, d).slice(0, 0, n), a_perm, b, 2.0, 0.25); }},
        {"full transposed input", [&] { return xd::baddbmm(make(iv, {bsz, n, m}, d).transpose(1, 2), a, b_one, 1.0, -1.0); }},
        {"beta 0 ignores a NaN input", [&] { return xd::baddbmm(xd::full({bsz, m, n}, kNaN, d, dev()), a, b, 0.0, 2.0); }},
    };
    for (const auto& [name, f] : baddbmm_cases) {
      SCOPED_TRACE(name);
      const Both r = convert_and_loop("baddbmm", d, f);
      EXPECT_EQ(r.convert.size(), static_cast<size_t>(bsz * m * n));
      EXPECT_TRUE(all_equal(r.convert, r.loop));
      for (double x : r.convert) EXPECT_FALSE(std::isnan(x));
    }
  }
}

TEST(MmDnnlF32, EmptyProblemsAndKZeroRunOnTheLoop) {
  XD_SKIP_WITHOUT_CONVERT();
  for (Dtype d : kHalfDtypes) {
    SCOPED_TRACE(trace(d));
    xd::Tensor out;
    poison(3 * 4 * 2);
    EXPECT_EQ(kernel_that_ran("mm", d, [&] { out = xd::mm(xd::empty({3, 0}, d, dev()), xd::empty({0, 4}, d, dev())); }),
              "cpu.mm.loop");
    EXPECT_TRUE(all_equal(read(out), std::vector<double>(12, 0.0)));
    EXPECT_EQ(kernel_that_ran("addmm", d,
                              [&] {
                                out = xd::addmm(make({1, 2, 3, 4}, {4}, d), xd::empty({3, 0}, d, dev()),
                                                xd::empty({0, 4}, d, dev()), 0.5, 2.0);
                              }),
              "cpu.addmm.loop");
    EXPECT_TRUE(all_equal(read(out), {0.5, 1, 1.5, 2, 0.5, 1, 1.5, 2, 0.5, 1, 1.5, 2}));
    EXPECT_EQ(kernel_that_ran("bmm", d, [&] { out = xd::bmm(xd::empty({2, 3, 0}, d, dev()), xd::empty({2, 0, 4}, d, dev())); }),
              "cpu.bmm.loop");
    EXPECT_TRUE(all_equal(read(out), std::vector<double>(24, 0.0)));
    // M, N or the batch 0: nothing to write; the f32 kernel must never take them.
    for (const auto& [op, f] : std::vector<std::pair<std::string, std::function<xd::Tensor()>>>{
             {"mm", [&] { return xd::mm(xd::empty({0, 5}, d, dev()), xd::empty({5, 4}, d, dev())); }},
             {"mm", [&] { return xd::mm(xd::empty({3, 5}, d, dev()), xd::empty({5, 0}, d, dev())); }},
             {"bmm", [&] { return xd::bmm(xd::empty({0, 2, 3}, d, dev()), xd::empty({0, 3, 4}, d, dev())); }},
             {"baddbmm", [&] { return xd::baddbmm(xd::empty({0, 2, 4}, d, dev()), xd::empty({0, 2, 3}, d, dev()),
                                                  xd::empty({0, 3, 4}, d, dev()), 1.0, 1.0); }}}) {
      SCOPED_TRACE(op);
      EXPECT_NE(kernel_that_ran(op, d, [&] { out = f(); }), "cpu." + op + ".dnnl_f32");
      EXPECT_EQ(out.numel(), 0);
    }
  }
}

// K = 1: out[i, j] = round(a[i] * b[j]) for every f16 (bf16) bit pattern a[i], so each
// conversion to f32 and back is checked against the loop's (numeric.hpp): Inf, NaN, subnormals,
// ties to even, overflow to Inf, and results in the subnormal range.
TEST(MmDnnlF32, KOneRoundsEveryBitPatternLikeTheLoop) {
  XD_SKIP_WITHOUT_CONVERT();
  for (Dtype d : kHalfDtypes) {
    SCOPED_TRACE(trace(d));
    const double ulp = d == Dtype::f16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
    const std::vector<double> bv = {1, 1 + ulp, 1.5 + ulp, 3, std::ldexp(1.0, -5), 0, -1};
    const int64_t n = static_cast<int64_t>(bv.size());
    const auto make_all = [&] {
      std::vector<uint16_t> bits(65536);
      for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(i);
      if (d == Dtype::f16) {
        std::vector<xd::half> v(bits.size());
        for (size_t i = 0; i < v.size(); ++i) v[i] = xd::half::from_bits(bits[i]);
        return xd::tensor(v, {65536, 1}, dev());
      }
      std::vector<xd::bfloat16> v(bits.size());
      for (size_t i = 0; i < v.size(); ++i) v[i] = xd::bfloat16::from_bits(bits[i]);
      return xd::tensor(v, {65536, 1}, dev());
    };
    const xd::Tensor a = make_all(), b = make(bv, {1, n}, d);
    const Both r = convert_and_loop("mm", d, [&] { return xd::mm(a, b); });
    EXPECT_TRUE(all_equal(r.convert, r.loop));
    size_t infs = 0, nans = 0;
    for (double x : r.convert) {
      infs += std::isinf(x) ? 1 : 0;
      nans += std::isnan(x) ? 1 : 0;
    }
    EXPECT_GT(infs, 0u);
    EXPECT_GT(nans, 0u);
    // The same through the epilogue: alpha and a broadcast bias row.
    const Both r2 = convert_and_loop("addmm", d, [&] { return xd::addmm(make(bv, {n}, d), a, b, -0.75, 0.5); });
    EXPECT_TRUE(all_equal(r2.convert, r2.loop));
  }
}

TEST(MmDnnlF32, OverflowToInfAndNanPropagateLikeTheLoop) {
  XD_SKIP_WITHOUT_CONVERT();
  for (Dtype d : kHalfDtypes) {
    SCOPED_TRACE(trace(d));
    // big * big * 8 overflows the output (f16), or f32 itself (bf16).
    const double big = d == Dtype::f16 ? 128 : std::ldexp(1.0, 70);
    const int64_t m = 5, k = 8, n = 5;
    std::vector<double> av(static_cast<size_t>(m * k)), bv(static_cast<size_t>(k * n), big);
    for (int64_t j = 0; j < k; ++j) {
      av[static_cast<size_t>(0 * k + j)] = big;
      av[static_cast<size_t>(1 * k + j)] = -big;
      av[static_cast<size_t>(2 * k + j)] = j == 3 ? kNaN : 1;
      av[static_cast<size_t>(3 * k + j)] = j == 0 ? kInf : 1;
      av[static_cast<size_t>(4 * k + j)] = j % 2 == 0 ? 300 : -300;  // products overflow f16, their sum is 0
    }
    for (int64_t i = 0; i < k; ++i) {
      bv[static_cast<size_t>(i * n + 4)] = 0;
      if (d == Dtype::f16) bv[static_cast<size_t>(i * n + 3)] = 300;
    }
    const Both r = convert_and_loop("mm", d, [&] { return xd::mm(make(av, {m, k}, d), make(bv, {k, n}, d)); });
    EXPECT_TRUE(all_equal(r.convert, r.loop));
    const auto& v = r.convert;
    for (int64_t j = 0; j < 4; ++j) {
      EXPECT_EQ(v[static_cast<size_t>(0 * n + j)], kInf) << j;
      EXPECT_EQ(v[static_cast<size_t>(1 * n + j)], -kInf) << j;
      EXPECT_TRUE(std::isnan(v[static_cast<size_t>(2 * n + j)])) << j;
      EXPECT_EQ(v[static_cast<size_t>(3 * n + j)], kInf) << j;
    }
    EXPECT_EQ(v[static_cast<size_t>(0 * n + 4)], 0);
    EXPECT_TRUE(std::isnan(v[static_cast<size_t>(2 * n + 4)]));  // NaN * 0
    EXPECT_TRUE(std::isnan(v[static_cast<size_t>(3 * n + 4)]));  // Inf * 0
    if (d == Dtype::f16) {
      EXPECT_EQ(v[static_cast<size_t>(4 * n + 3)], 0);  // +-90000 summed in f32
    }
  }
}

// Problems past the kernel's 64 MiB of f32 temporaries run in blocks: of rows of a (M), of
// columns of b (N) and of batches, the last block smaller than the others.
TEST(MmDnnlF32, ProblemsPastTheBufferBoundRunInBlocksAndMatchTheLoop) {
  XD_SKIP_WITHOUT_CONVERT();
  auto same = [](const Both& r) {  // all_equal, without its per-element messages on millions
    if (r.convert.size() != r.loop.size()) return false;
    for (size_t i = 0; i < r.convert.size(); ++i)
      if (r.convert[i] != r.loop[i] && !(std::isnan(r.convert[i]) && std::isnan(r.loop[i]))) return false;
    return true;
  };
  for (Dtype d : kHalfDtypes) {
    SCOPED_TRACE(trace(d));
    {  // M = 16385 rows x N = 1024: the destination alone is past the bound
      const int64_t m = 16385, n = 1024;
      const auto av = small_ints(static_cast<size_t>(m), 31), bv = small_ints(static_cast<size_t>(n), 32);
      const auto bias = small_ints(static_cast<size_t>(n), 33);
      const Both r = convert_and_loop("addmm", d, [&] { return xd::addmm(make(bias, {n}, d), make(av, {m, 1}, d), make(bv, {1, n}, d), 1.0, 0.5); });
      EXPECT_EQ(r.convert.size(), static_cast<size_t>(m * n));
      EXPECT_TRUE(same(r));
    }
    {  // b [4096, 4097] (transposed): more than half the bound, blocked by columns
      const int64_t m = 3, k = 4096, n = 4097;
      const auto av = small_ints(static_cast<size_t>(m * k), 34, -2, 2), bv = small_ints(static_cast<size_t>(n * k), 35, -2, 2);
      const Both r = convert_and_loop("mm", d, [&] { return xd::mm(make(av, {m, k}, d), make(bv, {n, k}, d).t()); });
      EXPECT_EQ(r.convert.size(), static_cast<size_t>(m * n));
      EXPECT_TRUE(same(r));
    }
    {  // 6001 batches of 32^3: blocks of whole batches
      const int64_t bsz = 6001, s = 32;
      const auto av = small_ints(static_cast<size_t>(bsz * s * s), 36), bv = small_ints(static_cast<size_t>(bsz * s * s), 37);
      const auto iv = small_ints(static_cast<size_t>(s * s), 38);
      const Both r = convert_and_loop("baddbmm", d, [&] {
        return xd::baddbmm(make(iv, {1, s, s}, d), make(av, {bsz, s, s}, d), make(bv, {bsz, s, s}, d).transpose(1, 2), 2.0, -0.5);
      });
      EXPECT_EQ(r.convert.size(), static_cast<size_t>(bsz * s * s));
      EXPECT_TRUE(same(r));
    }
  }
}

}  // namespace
