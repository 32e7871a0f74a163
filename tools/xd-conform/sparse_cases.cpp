// Cases of the sparse CSR ops. The CSR operand is described as a dense tensor with Values::sparse
// (a seeded zero pattern, equal in every batch); op_invoker converts it with to_sparse_csr on the
// side it runs on, in the case's index dtype, so both sides multiply the same CSR matrix.
#include "sparse_cases.hpp"

#include <string>

namespace xd::conform {

namespace {

struct Shape {
  int64_t batch, m, k, n;  // batch 0: unbatched
  double density;
  bool empty_rows = false;
  Layout b_layout = Layout::contiguous;
};

std::string text(const Shape& s) {
  std::string t = (s.batch > 0 ? std::to_string(s.batch) + "x" : "") + std::to_string(s.m) + "x" + std::to_string(s.k) +
                  "x" + std::to_string(s.n) + ".d" + std::to_string(static_cast<int>(s.density * 100));
  if (s.empty_rows) t += ".er";
  if (s.b_layout == Layout::transposed) t += "+b.T";
  if (s.b_layout == Layout::sliced) t += "+b.sl";
  return t;
}

std::vector<int64_t> dims(const Shape& s, int64_t rows, int64_t cols) {
  return s.batch > 0 ? std::vector<int64_t>{s.batch, rows, cols} : std::vector<int64_t>{rows, cols};
}

InputSpec sparse_input(const std::string& name, Dtype d, const Shape& s) {
  InputSpec a;
  a.name = name;
  a.dtype = d;
  a.sizes = dims(s, s.m, s.k);
  a.values = Values::sparse;
  a.lo = -1;
  a.hi = 1;
  a.density = s.density;
  a.empty_rows = s.empty_rows;
  return a;
}

InputSpec dense_input(const std::string& name, Dtype d, std::vector<int64_t> sizes, Layout l = Layout::contiguous) {
  InputSpec b;
  b.name = name;
  b.dtype = d;
  b.sizes = std::move(sizes);
  b.layout = l;
  b.lo = -1;
  b.hi = 1;
  return b;
}

std::vector<Shape> shapes(bool quick) {
  // Size 1, empty M and K, nnz = 0, primes, empty rows, transposed and sliced b, rows longer than a
  // work-group's staging chunk (4099 columns at 50%), N wider than one column block (1031), batches.
  std::vector<Shape> s = {{0, 1, 1, 1, 1.0},
                          {0, 7, 13, 11, 0.3, true},
                          {0, 0, 5, 3, 0.5},
                          {0, 5, 0, 3, 0.5},
                          {0, 6, 10, 4, 0.0},
                          {0, 13, 17, 11, 0.2, false, Layout::transposed},
                          {0, 9, 33, 7, 0.3, true, Layout::sliced},
                          {0, 3, 4099, 3, 0.5},
                          {0, 16, 32, 1031, 0.2},
                          {3, 7, 13, 11, 0.3, true},
                          {2, 5, 7, 3, 0.4, false, Layout::transposed},
                          {2, 4, 6, 5, 0.0}};
  if (!quick) {
    s.push_back({0, 257, 129, 65, 0.05, true});
    s.push_back({4, 65, 96, 130, 0.1, false, Layout::transposed});
  }
  return s;
}

}  // namespace

std::vector<Case> csr_cases(const OpSchema& schema, Dtype dtype, bool quick) {
  std::vector<Case> out;
  const bool to_dense = schema.kind == OpKind::csr_to_dense;
  for (const Shape& s : shapes(quick)) {
    for (Dtype index : {Dtype::i64, Dtype::i32}) {
      const std::string base = text(s) + "." + dtype_name(index);
      if (to_dense) {
        Case c;
        c.schema = schema;
        c.dtype = dtype;
        c.variant = base;
        c.inputs = {sparse_input("self", dtype, s)};
        c.attrs.index_dtype = index;
        out.push_back(std::move(c));
        continue;
      }
      // mm/bmm (no input), a full input, a broadcast row, and beta = 0 over NaN and Inf.
      const std::vector<std::string> modes = {"", ".in_full", ".in_row", ".beta0_nan"};
      for (const std::string& mode : modes) {
        if (quick && index == Dtype::i32 && !mode.empty() && mode != ".beta0_nan") continue;
        Case c;
        c.schema = schema;
        c.dtype = dtype;
        c.variant = base + mode;
        InputSpec in = dense_input("self", dtype, mode == ".in_row" ? std::vector<int64_t>{s.n} : dims(s, s.m, s.n));
        in.absent = mode.empty();
        if (in.absent) in.name = "input";  // mm and bmm take none (the sparse operand is 'self')
        if (mode == ".beta0_nan") in.values = Values::special;
        c.inputs = {
            in, sparse_input(mode.empty() ? "self" : (s.batch > 0 ? "batch1" : "mat1"), dtype, s),
            dense_input(s.batch > 0 && !mode.empty() ? "batch2" : "mat2", dtype, dims(s, s.k, s.n), s.b_layout)};
        c.attrs.beta = mode == ".beta0_nan" ? 0.0 : 0.5;
        c.attrs.alpha = -1.5;
        c.attrs.index_dtype = index;
        c.attrs.reduction_length = std::max<int64_t>(1, s.k);
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

}  // namespace xd::conform
