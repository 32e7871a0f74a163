// The sparse CSR ops (docs/sparse.md): csr_addmm (mm, addmm, bmm and baddbmm with a CSR left
// operand) and csr_to_dense. The CSR operand is described as a dense input with Values::sparse (a
// seeded zero pattern, equal in every batch) and converted with to_sparse_csr on the side that
// runs, in the case's index dtype, so both sides multiply the same CSR matrix. Cases: random
// sparsity with empty rows, nnz = 0, sizes 1 and primes, i32 and i64 indices, batches,
// beta = 0 over NaN, transposed and sliced dense operands.
#include <xd/ops.hpp>
#include <xd/sparse.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

struct Csr {
  int64_t batch, m, k, n;  // batch 0: unbatched
  double density;
  bool empty_rows = false;
  Layout b_layout = Layout::contiguous;
};

std::string csr_text(const Csr& s) {
  std::string t = (s.batch > 0 ? std::to_string(s.batch) + "x" : "") + std::to_string(s.m) + "x" + std::to_string(s.k) +
                  "x" + std::to_string(s.n) + ".d" + std::to_string(static_cast<int>(s.density * 100));
  if (s.empty_rows) t += ".er";
  return t + operand_layouts_text(Layout::contiguous, s.b_layout);
}

Shape dims(const Csr& s, int64_t rows, int64_t cols) {
  return s.batch > 0 ? Shape{s.batch, rows, cols} : Shape{rows, cols};
}

InputSpec sparse_input(const std::string& name, Dtype d, const Csr& s) {
  InputSpec a = ranged_input(name, d, dims(s, s.m, s.k), -1, 1);
  a.values = Values::sparse;
  a.density = s.density;
  a.empty_rows = s.empty_rows;
  return a;
}

std::vector<Csr> shapes(bool quick) {
  // Size 1, empty M and K, nnz = 0, primes, empty rows, transposed and sliced b, rows longer than a
  // work-group's staging chunk (4099 columns at 50%), N wider than one column block (1031), batches.
  std::vector<Csr> s = {{0, 1, 1, 1, 1.0},
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

void csr_to_dense_cases(CaseList& l, const Csr& s, Dtype index, const std::string& base) {
  Case& c = l.add(base);
  c.inputs = {sparse_input("self", l.dtype, s)};
  c.attrs.index_dtype = index;
}

void csr_addmm_cases(CaseList& l, const Csr& s, Dtype index, const std::string& base) {
  // mm/bmm (no input), a full input, a broadcast row, and beta = 0 over NaN and Inf.
  for (const std::string mode : {"", ".in_full", ".in_row", ".beta0_nan"}) {
    if (l.quick && index == Dtype::i32 && !mode.empty() && mode != ".beta0_nan") continue;
    Case& c = l.add(base + mode);
    InputSpec in = ranged_input("self", l.dtype, mode == ".in_row" ? Shape{s.n} : dims(s, s.m, s.n), -1, 1);
    in.absent = mode.empty();
    if (in.absent) in.name = "input";  // mm and bmm take none (the sparse operand is 'self')
    if (mode == ".beta0_nan") in.values = Values::special;
    c.inputs = {
        in, sparse_input(mode.empty() ? "self" : (s.batch > 0 ? "batch1" : "mat1"), l.dtype, s),
        ranged_input(s.batch > 0 && !mode.empty() ? "batch2" : "mat2", l.dtype, dims(s, s.k, s.n), -1, 1, s.b_layout)};
    c.attrs.beta = mode == ".beta0_nan" ? 0.0 : 0.5;
    c.attrs.alpha = -1.5;
    c.attrs.index_dtype = index;
    c.attrs.reduction_length = std::max<int64_t>(1, s.k);
  }
}

struct CsrOp {
  const char* name;
  void (*cases)(CaseList&, const Csr& s, Dtype index, const std::string& base);
  Tensor (*call)(const OpCall& c);
  bool sums;  // csr_addmm sums K products; csr_to_dense only scatters, exactly
  bool blas;  // takes alpha and beta
};

const CsrOp csr_ops[] = {
    {"csr_addmm", csr_addmm_cases,
     [](const OpCall& c) {
       const SparseCsr a = to_sparse_csr(c.input(1), c.attrs.index_dtype);
       const bool batched = a.is_batched();
       if (!c.optional_input(0)) return batched ? bmm(a, c.input(2)) : mm(a, c.input(2));
       return batched ? baddbmm(c.input(0), a, c.input(2), c.attrs.beta, c.attrs.alpha)
                      : addmm(c.input(0), a, c.input(2), c.attrs.beta, c.attrs.alpha);
     },
     true, true},
    {"csr_to_dense", csr_to_dense_cases,
     [](const OpCall& c) { return to_sparse_csr(c.input(0), c.attrs.index_dtype).to_dense(); }, false, false},
};

// Every shape with i64 and with i32 indices.
void csr_cases(const CsrOp& op, CaseList& l) {
  for (const Csr& s : shapes(l.quick))
    for (Dtype index : {Dtype::i64, Dtype::i32}) op.cases(l, s, index, csr_text(s) + "." + dtype_name(index));
}

class SparseFamily final : public TableFamily<CsrOp> {
 public:
  SparseFamily() : TableFamily(csr_ops, csr_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override { return {entry(call.schema.name).call(call)}; }

  Tolerance tolerance(const Case& c, size_t, Dtype out) const override {
    return entry(c.schema.name).sums ? summed_tolerance(c, out) : exact_tolerance();
  }

  bool read_golden_attr(const std::string& op, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    return entry(op).blas && read_alpha_beta(key, value, attrs);
  }
};

}  // namespace

const OpFamily& sparse_family() {
  static const SparseFamily family;
  return family;
}

}  // namespace xd::conform
