// Bad inputs to the sparse CSR API: every invariant the creation checks and every mismatch the
// matmuls check throws exactly its documented xd::Error subclass with a message naming it.
#include <xd/xd.hpp>

#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace {

using xd::Dtype;

xd::Device cpu() { return xd::cpu(); }
xd::Tensor ix(const std::vector<int64_t>& v, Dtype d = Dtype::i64) {
  return xd::tensor(v, {static_cast<int64_t>(v.size())}, cpu()).to(d);
}
xd::Tensor vals(int64_t n, Dtype d = Dtype::f32) { return xd::ones({n}, d, cpu()); }

// A valid 3x4 matrix: rows {0, 2}, {}, {3}.
xd::SparseCsr good(Dtype d = Dtype::f32) { return xd::SparseCsr(ix({0, 2, 2, 3}), ix({0, 2, 3}), vals(3, d), {3, 4}); }

TEST(SparseBadInputs, CrowInvariants) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::SparseCsr(ix({1, 2, 2, 3}), ix({0, 2, 3}), vals(3), {3, 4}),
                        "sparse_csr_tensor", "must start at 0, got 1");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::SparseCsr(ix({0, 2, 1, 3}), ix({0, 2, 3}), vals(3), {3, 4}),
                        "non-decreasing", "entry 2 (1) is less than entry 1 (2)");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::SparseCsr(ix({0, 2, 2, 2}), ix({0, 2, 3}), vals(3), {3, 4}),
                        "last crow_indices entry must equal nnz = 3", "got 2");
}

TEST(SparseBadInputs, ColumnInvariants) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::SparseCsr(ix({0, 2, 2, 3}), ix({0, 2, 4}), vals(3), {3, 4}),
                        "col_indices entry 2 (row 2) is 4", "outside [0, K) = [0, 4)");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::SparseCsr(ix({0, 2, 2, 3}), ix({-1, 2, 3}), vals(3), {3, 4}), "is -1",
                        "outside [0, K)");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::SparseCsr(ix({0, 2, 2, 3}), ix({2, 2, 3}), vals(3), {3, 4}),
                        "columns of row 0 must be sorted and distinct");
  // Batched: the batch is named.
  const xd::Tensor crow = xd::tensor(std::vector<int64_t>{0, 1, 1, 0, 1, 1}, {2, 3}, cpu());
  const xd::Tensor col = xd::tensor(std::vector<int64_t>{0, 9}, {2, 1}, cpu());
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::SparseCsr(crow, col, xd::ones({2, 1}, Dtype::f32, cpu()), {2, 2, 3}),
                        "of batch 1", "is 9");
}

TEST(SparseBadInputs, IndexAndValueDtypes) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::SparseCsr(ix({0, 2, 2, 3}, Dtype::i32), ix({0, 2, 3}), vals(3), {3, 4}),
                        "'crow_indices' is i32 but 'col_indices' is i64", "same dtype");
  EXPECT_THROWS_EXACTLY(xd::DtypeError,
                        xd::SparseCsr(ix({0, 2, 2, 3}, Dtype::f32), ix({0, 2, 3}, Dtype::f32), vals(3), {3, 4}),
                        "'crow_indices' has dtype f32", "i32 or i64");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::SparseCsr(ix({0, 2, 2, 3}), ix({0, 2, 3}), vals(3, Dtype::i32), {3, 4}),
                        "argument 'values' has dtype i32");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::to_sparse_csr(xd::ones({2, 2}, Dtype::i64, cpu())), "to_sparse_csr",
                        "'self' has dtype i64");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::to_sparse_csr(xd::ones({2, 2}, Dtype::f32, cpu()), Dtype::i8),
                        "index dtype must be i32 or i64, got i8");
}

TEST(SparseBadInputs, ComponentShapes) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::SparseCsr(ix({0, 2, 3}), ix({0, 2, 3}), vals(3), {3, 4}),
                        "M + 1 = 4 entries", "got [3]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::SparseCsr(ix({0, 2, 2, 3}), ix({0, 2, 3}), vals(2), {3, 4}),
                        "the same number of entries (nnz)");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::SparseCsr(ix({0, 2, 2, 3}), ix({0, 2, 3}), vals(3), {12}),
                        "size must be [M, K] or [B, M, K], got [12]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::SparseCsr(ix({0, 2, 2, 3}), ix({0, 2, 3}), vals(3), {2, 3, 4}),
                        "'crow_indices' must be 2-d");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::to_sparse_csr(xd::ones({4}, Dtype::f32, cpu())), "must be 2-d [M, K]");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::to_sparse_csr(xd::tensor(std::vector<float>{1, 0, 1, 1}, {2, 1, 2}, cpu())),
                        "same number of nonzeros in every batch");
}

TEST(SparseBadInputs, MatmulShapes) {
  const xd::SparseCsr a = good();  // [3, 4]
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::mm(a, xd::ones({5, 2}, Dtype::f32, cpu())), "mm: sparse 'self' [3, 4]",
                        "cannot be multiplied (4 columns vs 5 rows)");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::mm(a, xd::ones({4}, Dtype::f32, cpu())), "'mat2' must be 2-d");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::bmm(a, xd::ones({1, 4, 2}, Dtype::f32, cpu())), "batched [B, M, K]",
                        "use mm for 2-d CSR");
  EXPECT_THROWS_EXACTLY(xd::ShapeError,
                        xd::addmm(xd::ones({2, 2}, Dtype::f32, cpu()), a, xd::ones({4, 2}, Dtype::f32, cpu())), "addmm",
                        "[2, 2]");
  const xd::SparseCsr batched = xd::to_sparse_csr(xd::ones({2, 3, 4}, Dtype::f32, cpu()));
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::bmm(batched, xd::ones({3, 4, 2}, Dtype::f32, cpu())), "batch sizes differ",
                        "[2, 3, 4] vs 'mat2' [3, 4, 2]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::mm(batched, xd::ones({4, 2}, Dtype::f32, cpu())), "use bmm");
}

TEST(SparseBadInputs, MatmulDtypesAndValues) {
  const xd::SparseCsr a = good();
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::mm(a, xd::ones({4, 2}, Dtype::f64, cpu())),
                        "'self' is f32 but 'mat2' is f64");
  EXPECT_THROWS_EXACTLY(xd::DtypeError,
                        xd::addmm(xd::ones({3, 2}, Dtype::f16, cpu()), a, xd::ones({4, 2}, Dtype::f32, cpu())),
                        "'self' is f16 but 'mat1' is f32");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::mm(xd::SparseCsr(), xd::ones({4, 2}, Dtype::f32, cpu())), "undefined");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::mm(a, xd::Tensor()), "mat2");
  EXPECT_THROWS_EXACTLY(xd::ValueError,
                        xd::addmm(xd::ones({3, 2}, Dtype::f32, cpu()), a, xd::ones({4, 2}, Dtype::f32, cpu()), 1.0,
                                  std::numeric_limits<double>::infinity()),
                        "beta and alpha must be finite");
}

TEST(SparseBadInputs, DifferentDevices) {
  xd::Device other;
  try {
    other = xd::Device::parse("opencl");
  } catch (const xd::Error&) {
    GTEST_SKIP() << "needs a second backend (opencl)";
  }
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::SparseCsr(ix({0, 2, 2, 3}), ix({0, 2, 3}), vals(3).to(other), {3, 4}),
                        "'crow_indices' is on cpu:0 but 'values' is on opencl:0");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::mm(good(), xd::ones({4, 2}, Dtype::f32, other)),
                        "mm: 'self' is on cpu:0 but 'mat2' is on opencl:0");
}

}  // namespace
