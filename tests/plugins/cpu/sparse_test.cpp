// Sparse CSR on the CPU backend: hand-worked products, an independent dense fp64 recomputation
// over random patterns (empty rows, nnz = 0, sizes 1 and primes, i32 and i64 indices, batches,
// transposed b), beta = 0 over NaN, to_dense / to_sparse_csr round trips.
#include <xd/sparse.hpp>

#include "test_util.hpp"

#include <random>

namespace {

using namespace xdt;
using xd::Dtype;

xd::Tensor idx(const std::vector<int64_t>& v, xd::IntList sizes, Dtype d) { return make_i64(v, sizes).to(d); }

// A = [[1, 0, 2],
//      [0, 0, 0],
//      [0, 3, 0]]   (row 1 empty)
xd::SparseCsr small(Dtype d, Dtype index = Dtype::i64) {
  return xd::SparseCsr(idx({0, 2, 2, 3}, {4}, index), idx({0, 2, 1}, {3}, index), make({1, 2, 3}, {3}, d), {3, 3});
}

TEST(SparseCsr, HandWorkedMmAddmmAndToDense) {
  for (Dtype d : float_dtypes()) {
    for (Dtype index : {Dtype::i32, Dtype::i64}) {
      SCOPED_TRACE(trace(d) + " indices " + xd::dtype_name(index));
      const xd::SparseCsr a = small(d, index);
      EXPECT_EQ(a.nnz(), 3);
      EXPECT_EQ(a.index_dtype(), index);
      EXPECT_TRUE(all_equal(read(a.to_dense()), {1, 0, 2, 0, 0, 0, 0, 3, 0}));
      // B = [[1, 2], [3, 4], [5, 6]]: A@B = [[1+10, 2+12], [0, 0], [9, 12]]
      const xd::Tensor b = make({1, 2, 3, 4, 5, 6}, {3, 2}, d);
      EXPECT_TRUE(all_equal(read(xd::mm(a, b)), {11, 14, 0, 0, 9, 12}));
      // 0.5 * input + 2 * A@B, input a broadcast row [10, 20]
      EXPECT_TRUE(all_equal(read(xd::addmm(make({10, 20}, {2}, d), a, b, 0.5, 2.0)), {27, 38, 5, 10, 23, 34}));
    }
  }
}

TEST(SparseCsr, BetaZeroIgnoresNaNInput) {
  for (Dtype d : float_dtypes()) {
    SCOPED_TRACE(trace(d));
    const xd::Tensor nan = make(std::vector<double>(6, kNaN), {3, 2}, d);
    const xd::Tensor b = make({1, 2, 3, 4, 5, 6}, {3, 2}, d);
    EXPECT_TRUE(all_equal(read(xd::addmm(nan, small(d), b, 0.0, 1.0)), {11, 14, 0, 0, 9, 12}));
    // beta != 0 does read it.
    const auto with = read(xd::addmm(nan, small(d), b, 1.0, 1.0));
    EXPECT_TRUE(std::isnan(with[0]));
  }
}

TEST(SparseCsr, BatchedHandWorked) {
  // Batch 0: [[1, 0], [0, 2]]; batch 1: [[0, 3], [4, 0]]; two entries each.
  const xd::SparseCsr a(idx({0, 1, 2, 0, 1, 2}, {2, 3}, Dtype::i32), idx({0, 1, 1, 0}, {2, 2}, Dtype::i32),
                        make({1, 2, 3, 4}, {2, 2}, Dtype::f32), {2, 2, 2});
  const xd::Tensor b = make({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}, Dtype::f32);
  EXPECT_TRUE(all_equal(read(a.to_dense()), {1, 0, 0, 2, 0, 3, 4, 0}));
  EXPECT_TRUE(all_equal(read(xd::bmm(a, b)), {1, 2, 6, 8, 21, 24, 20, 24}));
  const xd::Tensor in = make({1, 1, 1, 1, 1, 1, 1, 1}, {2, 2, 2}, Dtype::f32);
  EXPECT_TRUE(all_equal(read(xd::baddbmm(in, a, b, -1.0, 1.0)), {0, 1, 5, 7, 20, 23, 19, 23}));
}

// A dense [B?, M, K] with about `density` nonzeros (the pattern equal in every batch), as doubles.
std::vector<double> sparse_dense(int64_t batch, int64_t m, int64_t k, double density, uint32_t seed, Dtype d) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), v(-2, 2);
  std::vector<bool> keep(static_cast<size_t>(m * k));
  for (size_t e = 0; e < keep.size(); ++e)
    keep[e] = u(rng) < density && (e / static_cast<size_t>(std::max<int64_t>(k, 1))) % 4 != 2;
  std::vector<double> out(static_cast<size_t>(batch * m * k));
  for (size_t i = 0; i < out.size(); ++i) {
    const double x = quantize(v(rng), d);
    out[i] = keep[i % keep.size()] ? (x == 0 ? 1.0 : x) : 0.0;
  }
  return out;
}

TEST(SparseCsr, RandomPatternsMatchADenseFp64Recomputation) {
  struct P {
    int64_t batch, m, k, n;
    double density;
  };
  const P ps[] = {{1, 1, 1, 1, 1.0},    {1, 7, 13, 11, 0.3}, {1, 6, 10, 4, 0.0}, {1, 31, 37, 2, 0.1},
                  {1, 3, 4099, 3, 0.5}, {3, 7, 13, 11, 0.3}, {2, 5, 0, 3, 0.5},  {1, 16, 32, 1031, 0.2}};
  uint32_t seed = 1;
  for (Dtype d : float_dtypes()) {
    for (const P& p : ps) {
      for (Dtype index : {Dtype::i32, Dtype::i64}) {
        SCOPED_TRACE(trace(d) + " " + std::to_string(p.batch) + "x" + std::to_string(p.m) + "x" + std::to_string(p.k) +
                     "x" + std::to_string(p.n) + " " + xd::dtype_name(index));
        const bool batched = p.batch > 1;
        const auto av = sparse_dense(p.batch, p.m, p.k, p.density, seed++, d);
        const auto bv = random_values(static_cast<size_t>(p.batch * p.k * p.n), -2, 2, d, seed++);
        const Shape as = batched ? Shape{p.batch, p.m, p.k} : Shape{p.m, p.k};
        // b stored transposed: a non-contiguous right operand.
        const Shape bts = batched ? Shape{p.batch, p.n, p.k} : Shape{p.n, p.k};
        std::vector<double> bt(bv.size());
        for (int64_t b = 0; b < p.batch; ++b)
          for (int64_t kk = 0; kk < p.k; ++kk)
            for (int64_t j = 0; j < p.n; ++j)
              bt[static_cast<size_t>((b * p.n + j) * p.k + kk)] = bv[static_cast<size_t>((b * p.k + kk) * p.n + j)];
        const xd::Tensor bdev = make(bt, bts, d).transpose(-1, -2);
        const xd::SparseCsr a = xd::to_sparse_csr(make(av, as, d), index);
        EXPECT_TRUE(all_equal(read(a.to_dense()), av));
        const xd::Tensor got = batched ? xd::bmm(a, bdev) : xd::mm(a, bdev);
        std::vector<double> want, scale;
        for (int64_t b = 0; b < p.batch; ++b)
          for (int64_t i = 0; i < p.m; ++i)
            for (int64_t j = 0; j < p.n; ++j) {
              double s = 0, m = 0;
              for (int64_t kk = 0; kk < p.k; ++kk) {
                const double t = av[static_cast<size_t>((b * p.m + i) * p.k + kk)] *
                                 bv[static_cast<size_t>((b * p.k + kk) * p.n + j)];
                s += t;
                m += std::fabs(t);
              }
              want.push_back(s);
              scale.push_back(m);
            }
        EXPECT_TRUE(all_close(read(got), want, d, scale));
      }
    }
  }
}

TEST(SparseCsr, ToSparseCsrKeepsNaNAndDropsSignedZero) {
  const xd::SparseCsr a = xd::to_sparse_csr(make({0.0, -0.0, kNaN, 2.0}, {2, 2}, Dtype::f32), Dtype::i32);
  EXPECT_EQ(a.nnz(), 2);
  EXPECT_EQ(a.crow_indices().to_vector<int32_t>(), (std::vector<int32_t>{0, 0, 2}));
  EXPECT_EQ(a.col_indices().to_vector<int32_t>(), (std::vector<int32_t>{0, 1}));
}

TEST(SparseCsr, EmptyShapesGiveEmptyOrZeroResults) {
  const xd::SparseCsr a = xd::to_sparse_csr(xd::zeros({4, 0}, Dtype::f32, dev()));
  EXPECT_EQ(a.nnz(), 0);
  EXPECT_TRUE(all_equal(read(xd::mm(a, xd::zeros({0, 3}, Dtype::f32, dev()))), std::vector<double>(12, 0.0)));
  const xd::SparseCsr z = xd::to_sparse_csr(xd::zeros({0, 5}, Dtype::f32, dev()));
  EXPECT_EQ(shape_of(xd::mm(z, xd::ones({5, 2}, Dtype::f32, dev()))), (Shape{0, 2}));
}

}  // namespace
