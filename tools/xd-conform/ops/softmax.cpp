// softmax and log_softmax over one dim: each dim of a matrix, empty and size-1 inputs, long rows
// (a row of 4099 in the quick set), transposed, sliced and expanded inputs, special values.
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

struct SoftmaxOp {
  const char* name;
  Tensor (*call)(const Tensor& self, int64_t dim);
};

const SoftmaxOp softmax_ops[] = {
    {"softmax", [](const Tensor& x, int64_t dim) { return softmax(x, dim); }},
    {"log_softmax", [](const Tensor& x, int64_t dim) { return log_softmax(x, dim); }},
};

// Inputs in [-8, 8): exponentials of a wide spread without overflow.
InputSpec logits(InputSpec in) {
  in.lo = -8;
  in.hi = 8;
  return in;
}

void softmax_cases(const SoftmaxOp&, CaseList& l) {
  struct S {
    Shape s;
    int64_t dim;
    Layout l = Layout::contiguous;
  };
  std::vector<S> ss = {{{}, 0},
                       {{1}, 0},
                       {{0, 7}, 1},
                       {{13, 17}, 1},
                       {{13, 17}, 0},
                       {{13, 17}, -1, Layout::transposed},
                       {{3, 5, 7}, 1, Layout::sliced},
                       {{16, 4099}, 1}};
  if (!l.quick) ss.push_back({{4099, 33}, 0});
  for (const S& s : ss) {
    Case& c = l.add(shape_text(s.s) + layout_suffix(usable(s.l, s.s)) + ".d" + std::to_string(s.dim));
    c.inputs = {logits(input("self", l.dtype, s.s, usable(s.l, s.s)))};
    c.attrs.dim = s.dim;
    c.attrs.reduction_length = std::max<int64_t>(1, s.s.empty() ? 1 : dim_size(s.s, s.dim));
  }
  // Expanded (stride 0) inputs: softmax along the repeated dim (a uniform distribution) and
  // across it (equal rows).
  for (const auto& [stored, dim] : {std::pair<Shape, int64_t>{{1, 9}, 0}, std::pair<Shape, int64_t>{{6, 1}, 1}}) {
    const Shape to = {6, 9};
    Case& c = l.add(expanded_text(stored, to) + ".d" + std::to_string(dim));
    c.inputs = {logits(expanded_input("self", l.dtype, stored, to))};
    c.attrs.dim = dim;
    c.attrs.reduction_length = dim_size(to, dim);
  }
  Case& c = l.add("special.9x31.d1");
  InputSpec in = input("self", l.dtype, {9, 31});
  in.values = Values::special;
  c.inputs = {in};
  c.attrs.dim = 1;
  c.attrs.reduction_length = 31;
}

class SoftmaxFamily final : public TableFamily<SoftmaxOp> {
 public:
  SoftmaxFamily() : TableFamily(softmax_ops, softmax_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override {
    return {entry(call.schema.name).call(call.input(0), call.attrs.dim)};
  }

  // Each output divides by a sum over its dim.
  Tolerance tolerance(const Case& c, size_t, Dtype out) const override { return summed_tolerance(c, out); }

  bool read_golden_attr(const std::string&, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    return read_dim(key, value, attrs);
  }
};

}  // namespace

const OpFamily& softmax_family() {
  static const SoftmaxFamily family;
  return family;
}

}  // namespace xd::conform
