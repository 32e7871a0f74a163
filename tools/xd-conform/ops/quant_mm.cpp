// The quantised matmuls: int_mm (i8 x i8 -> i32, exact) and scaled_mm (fp8 operands scaled
// tensor-wise or row-wise, out in bf16, f32 or f16, optional bias). They share one shape set:
// degenerate, odd and prime sizes, transposed and sliced operands, K = 4099.
#include <xd/ops.hpp>

#include "helpers.hpp"

#include <algorithm>
#include <utility>

namespace xd::conform {

namespace {

struct Mm {
  int64_t m, k, n;
  Layout la = Layout::contiguous, lb = Layout::contiguous;
};

std::string mm_text(const Mm& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) + operand_layouts_text(s.la, s.lb);
}

std::vector<Mm> shapes(bool quick) {
  std::vector<Mm> s = {{1, 1, 1},
                       {0, 5, 3},
                       {5, 0, 3},
                       {7, 13, 11},
                       {17, 31, 19},
                       {64, 64, 64},
                       {13, 17, 11, Layout::transposed, Layout::contiguous},
                       {13, 17, 11, Layout::contiguous, Layout::transposed},
                       {9, 33, 7, Layout::sliced, Layout::sliced},
                       {1, 4099, 3}};
  if (!quick) {
    s.push_back({129, 257, 65});
    s.push_back({256, 512, 128, Layout::transposed, Layout::contiguous});
  }
  return s;
}

// shapes() and those the tensor-core kernels take where a device has them (mat2 stored n x k,
// everything a multiple of 16): rows and columns past a 128 tile, k past a step of 64, one step.
std::vector<Mm> shapes_with_tensor_cores(bool quick) {
  std::vector<Mm> ss = shapes(quick);
  ss.push_back({136, 208, 200, Layout::contiguous, Layout::transposed});
  ss.push_back({40, 64, 72, Layout::contiguous, Layout::transposed});
  if (!quick) {
    ss.push_back({300, 1040, 260, Layout::contiguous, Layout::transposed});
    // m, n >= 1024: scaled_mm's packed wgmma kernel where a device has it (k past a step of 32)
    ss.push_back({1040, 80, 1100, Layout::contiguous, Layout::transposed});
  }
  return ss;
}

void int_mm_cases(CaseList& l) {
  for (const Mm& s : shapes_with_tensor_cores(l.quick)) {
    Case& c = l.add(mm_text(s));
    // The whole i8 range: products and sums stay far inside i32, so every backend is exact.
    c.inputs = {ranged_input("self", Dtype::i8, {s.m, s.k}, -128, 127, s.la),
                ranged_input("mat2", Dtype::i8, {s.k, s.n}, -128, 127, s.lb)};
    c.attrs.reduction_length = std::max<int64_t>(1, s.k);
  }
}

// One scaled_mm configuration per shape, cycling through the scale modes, out dtypes and bias
// kinds so that every combination appears; two more cases with mat2 in the other fp8 format.
void scaled_mm_cases(CaseList& l) {
  static const Dtype outs[] = {Dtype::bf16, Dtype::f32, Dtype::f16};
  const std::vector<Mm> ss = shapes_with_tensor_cores(l.quick);
  const Dtype other = l.dtype == Dtype::f8e4m3fn ? Dtype::f8e5m2 : Dtype::f8e4m3fn;
  // Then two cases with mat2 in the other format: a plain shape, and one the tensor cores take.
  for (size_t i = 0; i < ss.size() + 2; ++i) {
    const bool mixed = i >= ss.size();
    const Mm s = i < ss.size()    ? ss[i]
                 : i == ss.size() ? Mm{9, 33, 7}
                                  : Mm{40, 64, 72, Layout::contiguous, Layout::transposed};
    const bool rowwise = i % 2 == 1;
    const Dtype od = outs[i % 3];
    const int bias_kind = static_cast<int>(i % 4);  // 0: none, 1 and 3: out's dtype, 2: bf16
    Case& c = l.add(mm_text(s) + (rowwise ? ".rowwise" : ".tensorwise") + ".to_" + dtype_name(od) +
                    (bias_kind == 0   ? ""
                     : bias_kind == 2 ? ".bias_bf16"
                                      : ".bias") +
                    (mixed ? std::string(".mat2_") + dtype_name(other) : ""));
    InputSpec sa = ranged_input("scale_a", Dtype::f32, rowwise ? Shape{s.m, 1} : Shape{}, 0.25, 2.0);
    InputSpec sb = ranged_input("scale_b", Dtype::f32, rowwise ? Shape{1, s.n} : Shape{1}, 0.25, 2.0);
    sa.values = sb.values = Values::positive;
    InputSpec bias = ranged_input("bias", bias_kind == 2 ? Dtype::bf16 : od, {s.n}, -1, 1);
    bias.absent = bias_kind == 0;
    c.inputs = {ranged_input("self", l.dtype, {s.m, s.k}, -2, 2, s.la),
                ranged_input("mat2", mixed ? other : l.dtype, {s.k, s.n}, -2, 2, s.lb), sa, sb, bias};
    c.attrs.out_dtype = od;
    c.attrs.reduction_length = std::max<int64_t>(1, s.k);
  }
  // use_fast_accum: a shape every device sums in f32 (below the packed kernels' 1024 rows), and in
  // the full set the shapes Hopper's wgmma kernel takes (m, n >= 1024), one with mat2 in the other
  // format, one with k past a thousand (its error grows with k).
  std::vector<std::pair<Mm, bool>> fast = {{Mm{40, 64, 72, Layout::contiguous, Layout::transposed}, false}};
  if (!l.quick) {
    fast.push_back({Mm{1040, 80, 1100, Layout::contiguous, Layout::transposed}, false});
    fast.push_back({Mm{1040, 80, 1100, Layout::contiguous, Layout::transposed}, true});
    fast.push_back({Mm{1030, 1104, 1050, Layout::contiguous, Layout::transposed}, false});
  }
  for (size_t i = 0; i < fast.size(); ++i) {
    const auto& [s, mixed] = fast[i];
    const Dtype od = outs[i % 3];
    Case& c = l.add(mm_text(s) + ".tensorwise.to_" + dtype_name(od) + ".bias" +
                    (mixed ? std::string(".mat2_") + dtype_name(other) : "") + ".fast_accum");
    InputSpec sa = ranged_input("scale_a", Dtype::f32, Shape{}, 0.25, 2.0);
    InputSpec sb = ranged_input("scale_b", Dtype::f32, Shape{1}, 0.25, 2.0);
    sa.values = sb.values = Values::positive;
    c.inputs = {ranged_input("self", l.dtype, {s.m, s.k}, -2, 2, s.la),
                ranged_input("mat2", mixed ? other : l.dtype, {s.k, s.n}, -2, 2, s.lb), sa, sb,
                ranged_input("bias", od, {s.n}, -1, 1)};
    c.attrs.out_dtype = od;
    c.attrs.use_fast_accum = true;
    c.attrs.reduction_length = std::max<int64_t>(1, s.k);
  }
}

// Compared like a matmul (rounding growing with sqrt K). use_fast_accum lets a matrix unit sum
// fp8 products below f32's precision: Hopper's keeps about 14 significant bits (as DeepSeek-V3's
// technical report measured on H800s) against f32's 24, so such a case is allowed f32's summed
// tolerance widened 2^10-fold (or its out dtype's, where that is wider).
Tolerance scaled_mm_tolerance(const Case& c, Dtype out) {
  Tolerance t = summed_tolerance(c, out);
  if (!c.attrs.use_fast_accum) return t;
  Tolerance f = sum_tolerance(Dtype::f32, c.attrs.reduction_length);
  t.rtol = std::max(t.rtol, f.rtol * 1024);
  t.atol = std::max(t.atol, f.atol * 1024);
  return t;
}

bool no_attr(const std::string&, const nlohmann::json&, Attrs&, std::string&) { return false; }

struct QuantMmOp {
  const char* name;
  void (*cases)(CaseList&);
  Tensor (*call)(const OpCall& c);
  Tolerance (*tolerance)(const Case& c, Dtype out);
  bool (*golden_attr)(const std::string& key, const nlohmann::json& v, Attrs& a, std::string& unsupported);
};

const QuantMmOp quant_mm_ops[] = {
    // int_mm's i32 sums are exact: its dtype's tolerance (none) however long they are.
    {"int_mm", int_mm_cases, [](const OpCall& c) { return int_mm(c.input(0), c.input(1)); },
     [](const Case&, Dtype out) { return dtype_tolerance(out); }, no_attr},
    {"scaled_mm", scaled_mm_cases,
     [](const OpCall& c) {
       return scaled_mm(c.input(0), c.input(1), c.input(2), c.input(3), c.optional_input(4), c.attrs.out_dtype,
                        c.attrs.use_fast_accum);
     },
     scaled_mm_tolerance,
     [](const std::string& key, const nlohmann::json& v, Attrs& a, std::string& unsupported) {
       if (key == "use_fast_accum") {
         a.use_fast_accum = strict_get<bool>(v);
         return true;
       }
       if (key != "out_dtype") return false;
       const std::string name = strict_get<std::string>(v);
       if (const auto d = dtype_or_none(name))
         a.out_dtype = *d;
       else if (unsupported.empty())
         unsupported = "out_dtype " + name;
       return true;
     }},
};

class QuantMmFamily final : public TableFamily<QuantMmOp> {
 public:
  QuantMmFamily() : TableFamily(quant_mm_ops, [](const QuantMmOp& op, CaseList& l) { op.cases(l); }) {}

  std::vector<Tensor> invoke(const OpCall& call) const override { return {entry(call.schema.name).call(call)}; }

  Tolerance tolerance(const Case& c, size_t, Dtype out) const override {
    return entry(c.schema.name).tolerance(c, out);
  }

  bool read_golden_attr(const std::string& op, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string& unsupported) const override {
    return entry(op).golden_attr(key, value, attrs, unsupported);
  }
};

}  // namespace

const OpFamily& quant_mm_family() {
  static const QuantMmFamily family;
  return family;
}

}  // namespace xd::conform
