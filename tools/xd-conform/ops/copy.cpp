// copy: a cast from the slot's dtype to each of the 11 dtypes (Attrs::to_dtype), through
// Tensor::copy_ into a fresh tensor. Casts are exactly specified, so every output is exact.
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

const Dtype all_dtypes[] = {Dtype::f64, Dtype::f32, Dtype::f16,     Dtype::bf16,     Dtype::i8,    Dtype::u8,
                            Dtype::i32, Dtype::i64, Dtype::boolean, Dtype::f8e4m3fn, Dtype::f8e5m2};

// Floating sources stay inside the destination's range: converting an out-of-range float to an
// integer is undefined in C and differs between devices.
void source_range(InputSpec& in, Dtype to) {
  if (!is_floating(in.dtype)) return;
  if (to == Dtype::u8)
    in.lo = 0, in.hi = 200;
  else if (to == Dtype::i8)
    in.lo = -100, in.hi = 100;
  else if (is_integral(to))
    in.lo = -1000, in.hi = 1000;
  else
    in.lo = -100, in.hi = 100;
}

void copy_cases(CaseList& l) {
  std::vector<std::pair<Shape, Layout>> shapes = {{{}, Layout::contiguous},
                                                  {{0, 3}, Layout::contiguous},
                                                  {{13, 17}, Layout::contiguous},
                                                  {{13, 17}, Layout::transposed},
                                                  {{9, 5}, Layout::sliced}};
  if (!l.quick) shapes.push_back({{257, 1031}, Layout::contiguous});
  // A stride-0 source (a [1, 9] row expanded to [6, 9]): its last entry, with the stored shape.
  shapes.push_back({{1, 9}, Layout::expanded});
  const std::string to_prefix = "to_";
  for (Dtype to : all_dtypes) {
    for (const auto& [s, layout] : shapes) {
      if (l.quick && layout == Layout::sliced && to != Dtype::f32) continue;
      const bool ex = layout == Layout::expanded;
      Case& c = l.add(to_prefix + dtype_name(to) + "." +
                      (ex ? expanded_text(s, {6, 9}) : shape_text(s) + layout_suffix(layout)));
      InputSpec in = ex ? expanded_input("self", l.dtype, s, {6, 9}) : input("self", l.dtype, s, usable(layout, s));
      source_range(in, to);
      c.inputs = {in};
      c.attrs.to_dtype = to;
    }
    // A copy large enough for kernels that take only large ones (the CPU's vector casts among
    // f32, f16 and bf16), in every set: same dtype, and those casts with special values too.
    auto f32_like = [](Dtype d) { return d == Dtype::f32 || d == Dtype::f16 || d == Dtype::bf16; };
    if (to == l.dtype || (f32_like(to) && f32_like(l.dtype))) {
      for (const bool special : {false, true}) {
        if (special && !f32_like(l.dtype)) continue;
        Case& c = l.add(to_prefix + dtype_name(to) + (special ? ".special.181x191" : ".181x191"));
        InputSpec in = input("self", l.dtype, {181, 191});
        if (special) {
          in.values = Values::special;
        } else {
          source_range(in, to);
        }
        c.inputs = {in};
        c.attrs.to_dtype = to;
      }
    }
    // NaN and infinities survive every floating-to-floating cast.
    const bool wide = to == Dtype::f64 || to == Dtype::f32 || to == Dtype::f16 || to == Dtype::bf16;
    if (l.floating() && l.dtype != Dtype::f8e4m3fn && l.dtype != Dtype::f8e5m2 && wide) {
      Case& c = l.add(to_prefix + dtype_name(to) + ".special.257");
      InputSpec in = input("self", l.dtype, {257});
      in.values = Values::special;
      c.inputs = {in};
      c.attrs.to_dtype = to;
    }
  }
}

class CopyFamily final : public OpFamily {
 public:
  std::vector<std::string> ops() const override { return {"copy"}; }

  std::vector<Case> cases(const OpSchema& schema, Dtype dtype, bool quick) const override {
    CaseList l{schema, dtype, quick, {}};
    copy_cases(l);
    return l.cases;
  }

  std::vector<Tensor> invoke(const OpCall& call) const override {
    const Tensor& self = call.input(0);
    Tensor out = empty(self.sizes(), call.attrs.to_dtype, self.device());
    out.copy_(self);
    return {out};
  }

  Tolerance tolerance(const Case&, size_t, Dtype) const override { return exact_tolerance(); }
};

}  // namespace

const OpFamily& copy_family() {
  static const CopyFamily family;
  return family;
}

}  // namespace xd::conform
