#include "quant_cases.hpp"

#include <string>

namespace xd::conform {

namespace {

using Shape = std::vector<int64_t>;

struct Mm {
  int64_t m, k, n;
  Layout la = Layout::contiguous, lb = Layout::contiguous;
};

std::string mm_text(const Mm& s) {
  std::string v = std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
  if (s.la == Layout::transposed) v += ".T";
  if (s.la == Layout::sliced) v += ".sl";
  if (s.lb == Layout::transposed) v += "+b.T";
  if (s.lb == Layout::sliced) v += "+b.sl";
  return v;
}

InputSpec operand(const char* name, Dtype d, Shape sizes, Layout l, double lo, double hi) {
  InputSpec s;
  s.name = name;
  s.dtype = d;
  s.sizes = std::move(sizes);
  s.layout = l;
  s.lo = lo;
  s.hi = hi;
  return s;
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

void int_mm_cases(const OpSchema& schema, Dtype dtype, bool quick, std::vector<Case>& out) {
  for (const Mm& s : shapes(quick)) {
    Case c;
    c.schema = schema;
    c.dtype = dtype;
    c.variant = mm_text(s);
    // The whole i8 range: products and sums stay far inside i32, so every backend is exact.
    c.inputs = {operand("self", Dtype::i8, {s.m, s.k}, s.la, -128, 127),
                operand("mat2", Dtype::i8, {s.k, s.n}, s.lb, -128, 127)};
    c.attrs.reduction_length = std::max<int64_t>(1, s.k);
    out.push_back(std::move(c));
  }
}

// One scaled_mm configuration per shape, cycling through the scale modes, out dtypes and bias
// kinds so that every combination appears; one more case with mat2 in the other fp8 format.
void scaled_mm_cases(const OpSchema& schema, Dtype dtype, bool quick, std::vector<Case>& out) {
  static const Dtype outs[] = {Dtype::bf16, Dtype::f32, Dtype::f16};
  const std::vector<Mm> ss = shapes(quick);
  const Dtype other = dtype == Dtype::f8e4m3fn ? Dtype::f8e5m2 : Dtype::f8e4m3fn;
  for (size_t i = 0; i <= ss.size(); ++i) {
    const bool mixed = i == ss.size();
    const Mm s = mixed ? Mm{9, 33, 7} : ss[i];
    const bool rowwise = i % 2 == 1;
    const Dtype od = outs[i % 3];
    const int bias_kind = static_cast<int>(i % 4);  // 0: none, 1 and 3: out's dtype, 2: bf16
    Case c;
    c.schema = schema;
    c.dtype = dtype;
    c.variant = mm_text(s) + (rowwise ? ".rowwise" : ".tensorwise") + ".to_" + dtype_name(od) +
                (bias_kind == 0   ? ""
                 : bias_kind == 2 ? ".bias_bf16"
                                  : ".bias") +
                (mixed ? std::string(".mat2_") + dtype_name(other) : "");
    InputSpec sa = operand("scale_a", Dtype::f32, rowwise ? Shape{s.m, 1} : Shape{}, Layout::contiguous, 0.25, 2.0);
    InputSpec sb = operand("scale_b", Dtype::f32, rowwise ? Shape{1, s.n} : Shape{1}, Layout::contiguous, 0.25, 2.0);
    sa.values = sb.values = Values::positive;
    InputSpec bias = operand("bias", bias_kind == 2 ? Dtype::bf16 : od, {s.n}, Layout::contiguous, -1, 1);
    bias.absent = bias_kind == 0;
    c.inputs = {operand("self", dtype, {s.m, s.k}, s.la, -2, 2),
                operand("mat2", mixed ? other : dtype, {s.k, s.n}, s.lb, -2, 2), sa, sb, bias};
    c.attrs.out_dtype = od;
    c.attrs.reduction_length = std::max<int64_t>(1, s.k);
    out.push_back(std::move(c));
  }
}

}  // namespace

std::vector<Case> quant_mm_cases(const OpSchema& schema, Dtype dtype, bool quick) {
  std::vector<Case> out;
  if (schema.kind == OpKind::int_mm) int_mm_cases(schema, dtype, quick, out);
  if (schema.kind == OpKind::scaled_mm) scaled_mm_cases(schema, dtype, quick, out);
  return out;
}

}  // namespace xd::conform
