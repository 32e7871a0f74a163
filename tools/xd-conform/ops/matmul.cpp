// The dense matmul family: mm, bmm, and addmm, baddbmm (beta * self + alpha * a @ b). Cases span
// (B,) M, K, N with degenerate, odd, prime and large sizes and transposed, sliced and stride-0
// operands. A golden case whose left operand is sparse CSR runs through the SparseCsr overloads
// of the same ops, on the csr_addmm kernel.
#include <xd/ops.hpp>
#include <xd/sparse.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

struct MatmulOp {
  const char* name;
  bool batched;
  bool addend;  // addmm, baddbmm: `self` is added, scaled by beta, and the product by alpha
  const char* a_name;
  const char* b_name;
  Tensor (*call)(const OpCall& c);
  Tensor (*call_csr)(const CsrCall& c);
};

const MatmulOp matmul_ops[] = {
    {"mm", false, false, "self", "mat2", [](const OpCall& c) { return mm(c.input(0), c.input(1)); },
     [](const CsrCall& c) { return mm(c.csr, c.input("mat2")); }},
    {"addmm", false, true, "mat1", "mat2",
     [](const OpCall& c) { return addmm(c.input(0), c.input(1), c.input(2), c.attrs.beta, c.attrs.alpha); },
     [](const CsrCall& c) { return addmm(c.input("self"), c.csr, c.input("mat2"), c.attrs.beta, c.attrs.alpha); }},
    {"bmm", true, false, "self", "mat2", [](const OpCall& c) { return bmm(c.input(0), c.input(1)); },
     [](const CsrCall& c) { return bmm(c.csr, c.input("mat2")); }},
    {"baddbmm", true, true, "batch1", "batch2",
     [](const OpCall& c) { return baddbmm(c.input(0), c.input(1), c.input(2), c.attrs.beta, c.attrs.alpha); },
     [](const CsrCall& c) { return baddbmm(c.input("self"), c.csr, c.input("batch2"), c.attrs.beta, c.attrs.alpha); }},
};

struct Dims {
  int64_t B, m, k, n;
  Layout la = Layout::contiguous, lb = Layout::contiguous;
};

std::vector<Dims> matmul_dims(bool quick) {
  std::vector<Dims> ms = {{1, 1, 1, 1},
                          {2, 0, 5, 3},
                          {2, 5, 0, 3},
                          {3, 7, 13, 11},
                          {1, 64, 64, 64},
                          {2, 13, 17, 11, Layout::transposed, Layout::contiguous},
                          {2, 13, 17, 11, Layout::contiguous, Layout::transposed},
                          {2, 9, 33, 7, Layout::sliced, Layout::sliced},
                          // stride 0: bmm shares one matrix across the batch; mm repeats a column
                          // of self ([m, 1] -> [m, k]) or a row of mat2 ([1, n] -> [k, n])
                          {3, 7, 13, 11, Layout::expanded, Layout::contiguous},
                          {3, 7, 13, 11, Layout::contiguous, Layout::expanded},
                          {1, 1, 4099, 3},
                          // register-tiled, dense operands: rows and columns past a tile, k past a step
                          {1, 130, 36, 132},
                          // decode shapes (the skinny kernels): columns past a work-group's 32, k
                          // past a chunk of 4, B dense along n or along k, sliced operands
                          {1, 3, 1030, 130},
                          {2, 16, 515, 260, Layout::contiguous, Layout::transposed},
                          {1, 1, 2048, 40},
                          {1, 9, 520, 160, Layout::sliced, Layout::sliced},
                          // their vector loads (aligned B and A): whole chunks then a partial one,
                          // columns past N read the last ones and are not stored
                          {1, 1, 1030, 132},
                          {2, 4, 1030, 132},
                          {1, 1, 1028, 100, Layout::contiguous, Layout::transposed},
                          {1, 16, 1028, 100, Layout::contiguous, Layout::transposed},
                          // the tensor-core gemv where a device has it (f16, bf16; 2 <= M <= 16): k
                          // past a step of 16, fewer steps than warps, columns past a group's 32
                          {1, 16, 1032, 136},
                          {2, 5, 1040, 100, Layout::contiguous, Layout::transposed},
                          {1, 3, 24, 40},
                          // k split over work-groups (NVIDIA's gemvs, where few work-groups cover n):
                          // eight splits, the last one shorter; batches of the nt layout
                          {1, 16, 4104, 72},
                          {3, 8, 2056, 200, Layout::contiguous, Layout::transposed},
                          // the tensor-core gemv's work-groups of 256 columns, 64 a warp: a third
                          // work-group with one warp at work on a part of its columns, both layouts
                          {1, 16, 1040, 520},
                          {2, 7, 528, 600, Layout::contiguous, Layout::transposed},
                          // the f32 gemv for wide B (n >= 2048, 128 columns a warp, 512 a work-group):
                          // a fifth work-group with two lanes at work (nn), k split in two; nt with a
                          // last half block of k and columns past n in a lane's four
                          {1, 16, 264, 2056},
                          {2, 5, 132, 2052, Layout::contiguous, Layout::transposed},
                          // tensor-core tiles where a device has them (f16, bf16): B dense along n
                          // (nn) or along k (nt), rows and columns past a 128 tile, k past a step of 32
                          {1, 136, 264, 200},
                          {2, 72, 40, 136, Layout::contiguous, Layout::transposed},
                          // their packed form (m, n >= 1024, where a device has it): rows and
                          // columns past a tile, k past a step of 16, batches, both B layouts
                          {1, 1032, 48, 1040},
                          {2, 1030, 40, 1025, Layout::contiguous, Layout::transposed}};
  if (!quick) {
    ms.push_back({2, 129, 257, 65});
    ms.push_back({1, 512, 512, 512});
    ms.push_back({2, 200, 100, 260});
    ms.push_back({4, 65, 96, 130, Layout::transposed, Layout::transposed});
    // the packed form with k over several packing work-groups' worth of steps (17 k16 steps)
    ms.push_back({1, 1040, 264, 1032});
  }
  return ms;
}

// An operand of `shape`; expanded, it is stored with the size-1 dim `stored` shows.
InputSpec operand(const char* name, Dtype d, const Shape& shape, Layout l, const Shape& stored) {
  InputSpec in = l == Layout::expanded ? expanded_input(name, d, stored, shape) : input(name, d, shape, l);
  in.lo = -1;
  in.hi = 1;
  return in;
}

void matmul_cases(const MatmulOp& op, CaseList& l) {
  const bool narrow = l.dtype == Dtype::f16 || l.dtype == Dtype::bf16;
  for (const Dims& m : matmul_dims(l.quick)) {
    if (narrow && m.k > 1024 && l.quick) continue;
    const Shape sa = op.batched ? Shape{m.B, m.m, m.k} : Shape{m.m, m.k};
    const Shape sb = op.batched ? Shape{m.B, m.k, m.n} : Shape{m.k, m.n};
    const Shape so = op.batched ? Shape{m.B, m.m, m.n} : Shape{m.m, m.n};
    const std::string v = (op.batched ? std::to_string(m.B) + "x" : "") + std::to_string(m.m) + "x" +
                          std::to_string(m.k) + "x" + std::to_string(m.n) + operand_layouts_text(m.la, m.lb);
    // For addmm/baddbmm: a full input, a broadcast row, and beta = 0 over a NaN-filled input.
    std::vector<std::pair<std::string, Shape>> addends = {{"", {}}};
    if (op.addend) {
      addends = {{".in_full", so}, {".in_row", Shape{m.n}}};
      if (m.m == 13 || m.m == 1) addends.push_back({".beta0_nan", so});
    }
    for (const auto& [tag, si] : addends) {
      Case& c = l.add(v + tag);
      if (op.addend) {
        InputSpec in = ranged_input("self", l.dtype, si, -1, 1);
        if (tag == ".beta0_nan") in.values = Values::special;
        c.inputs.push_back(in);
        c.attrs.beta = tag == ".beta0_nan" ? 0.0 : 0.5;
        c.attrs.alpha = -1.5;
      }
      c.inputs.push_back(operand(op.a_name, l.dtype, sa, m.la, op.batched ? Shape{1, m.m, m.k} : Shape{m.m, 1}));
      c.inputs.push_back(operand(op.b_name, l.dtype, sb, m.lb, op.batched ? Shape{1, m.k, m.n} : Shape{1, m.n}));
      c.attrs.reduction_length = std::max<int64_t>(1, m.k);
    }
  }
}

class MatmulFamily final : public TableFamily<MatmulOp> {
 public:
  MatmulFamily() : TableFamily(matmul_ops, matmul_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override { return {entry(call.schema.name).call(call)}; }

  // Each output sums K products.
  Tolerance tolerance(const Case& c, size_t, Dtype out) const override { return summed_tolerance(c, out); }

  bool read_golden_attr(const std::string& op, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    return entry(op).addend && read_alpha_beta(key, value, attrs);
  }

  std::string csr_kernel_op(const std::string&) const override { return "csr_addmm"; }

  std::vector<Tensor> invoke_csr(const CsrCall& call) const override { return {entry(call.op).call_csr(call)}; }
};

}  // namespace

const OpFamily& matmul_family() {
  static const MatmulFamily family;
  return family;
}

}  // namespace xd::conform
