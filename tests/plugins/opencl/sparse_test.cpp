// Sparse CSR on the opencl device against the CPU reference: mm, addmm, bmm, baddbmm and to_dense
// over patterns with empty rows, nnz = 0, long rows (more entries than a work-group stages at
// once), N wider than one column block, i32 and i64 indices, transposed b and beta = 0 over NaN.
// Each output sums the same products in the same order as the CPU (sparse.cl), so f32 agrees to
// the last bit; the tolerance only allows for a device that rounds differently.
#include <xd/sparse.hpp>

#include "test_util.hpp"

namespace {

using namespace xdo;

// A dense [batch?, m, k] with every element outside a seeded ~density pattern zeroed; the
// pattern is the same in every batch (batched CSR needs equal nnz) and rows 2, 6, 10... are empty.
Tensor sparse_dense(const Shape& s, double density, Dtype d, uint32_t seed) {
  const int64_t m = s[s.size() - 2], k = s.back();
  std::vector<double> v = random_values(static_cast<size_t>(numel_of(s)), -1, 1, d, seed);
  std::vector<double> keep = random_values(static_cast<size_t>(m * k), 0, 1, Dtype::f64, seed + 1000);
  for (size_t i = 0; i < v.size(); ++i) {
    const size_t e = i % keep.size();
    const bool kept = keep[e] < density && (e / static_cast<size_t>(k)) % 4 != 2;
    v[i] = kept ? (v[i] == 0 ? 0.5 : v[i]) : 0.0;
  }
  return make(v, s, d);
}

struct Case {
  int64_t batch, m, k, n;  // batch 0: unbatched
  double density;
};

TEST(OpenclSparse, CsrMatmulsAndToDenseMatchTheCpu) {
  const Case cases[] = {{0, 1, 1, 1, 1.0},      {0, 7, 13, 11, 0.3}, {0, 6, 10, 4, 0.0},  {0, 3, 4099, 3, 0.5},
                        {0, 16, 32, 1031, 0.2}, {0, 5, 0, 3, 0.5},   {3, 7, 13, 11, 0.3}, {2, 9, 33, 7, 0.2}};
  uint32_t seed = 7;
  for (Dtype d : usable(float_dtypes())) {
    for (const Case& c : cases) {
      for (Dtype index : {Dtype::i32, Dtype::i64}) {
        SCOPED_TRACE(name_of(d) + " " + std::to_string(c.batch) + "x" + std::to_string(c.m) + "x" +
                     std::to_string(c.k) + "x" + std::to_string(c.n) + " " + name_of(index));
        const bool batched = c.batch > 0;
        const Shape as = batched ? Shape{c.batch, c.m, c.k} : Shape{c.m, c.k};
        const Shape bs = batched ? Shape{c.batch, c.n, c.k} : Shape{c.n, c.k};
        const Shape os = batched ? Shape{c.batch, c.m, c.n} : Shape{c.m, c.n};
        const xd::SparseCsr a_cpu = xd::to_sparse_csr(sparse_dense(as, c.density, d, seed++), index);
        const xd::SparseCsr a_ocl = a_cpu.to(ocl());
        ASSERT_EQ(a_ocl.device(), ocl());
        const Tensor b_cpu = random_tensor(bs, d, seed++, -1, 1).transpose(-1, -2);  // non-contiguous
        const Tensor b_ocl = b_cpu.to(ocl());
        const Tensor in_cpu = random_tensor(os, d, seed++, -1, 1);
        const Tensor in_ocl = in_cpu.to(ocl());
        Tensor nan_cpu = xd::full(os, std::numeric_limits<double>::quiet_NaN(), d, cpu());
        const Tensor nan_ocl = nan_cpu.to(ocl());

        EXPECT_TRUE(all_close(read(a_ocl.to_dense()), read(a_cpu.to_dense()), kExact));
        const Tensor plain_cpu = batched ? xd::bmm(a_cpu, b_cpu) : xd::mm(a_cpu, b_cpu);
        const Tensor plain_ocl = batched ? xd::bmm(a_ocl, b_ocl) : xd::mm(a_ocl, b_ocl);
        EXPECT_EQ(plain_ocl.device(), ocl());
        EXPECT_TRUE(all_close(read(plain_ocl), read(plain_cpu), sum_tol(d)));
        auto add = [&](const Tensor& in, const xd::SparseCsr& a, const Tensor& b, double beta) {
          return batched ? xd::baddbmm(in, a, b, beta, -1.5) : xd::addmm(in, a, b, beta, -1.5);
        };
        EXPECT_TRUE(all_close(read(add(in_ocl, a_ocl, b_ocl, 0.5)), read(add(in_cpu, a_cpu, b_cpu, 0.5)), sum_tol(d)));
        const std::vector<double> beta0 = read(add(nan_ocl, a_ocl, b_ocl, 0.0));
        EXPECT_TRUE(all_close(beta0, read(add(nan_cpu, a_cpu, b_cpu, 0.0)), sum_tol(d)));
        for (double x : beta0) ASSERT_FALSE(std::isnan(x)) << "beta = 0 read the NaN input";
      }
    }
  }
}

// The shape the benchmark uses, scaled down to keep the CPU reference quick: a work-group
// per row over many rows, N = 256 (one column block of 64 work-items x 4 columns).
TEST(OpenclSparse, ManyRowsWithTheBenchmarksN) {
  const xd::SparseCsr a = xd::to_sparse_csr(sparse_dense({1024, 1024}, 0.05, Dtype::f32, 3), Dtype::i32);
  const Tensor b = random_tensor({1024, 256}, Dtype::f32, 4, -1, 1);
  EXPECT_TRUE(all_close(read(xd::mm(a.to(ocl()), b.to(ocl()))), read(xd::mm(a, b)), sum_tol(Dtype::f32)));
}

}  // namespace
