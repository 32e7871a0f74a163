// Reductions over dims: sum, mean, amax, amin (any dims, keepdim) and argmax (one dim, an i64
// index). Cases reduce over every dim, several dims and all of them, empty reduced dims, and
// transposed, sliced and expanded inputs.
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

struct ReduceOp {
  const char* name;
  Tensor (*call)(const Tensor& self, const Attrs& a);
  bool arg = false;  // reduces one dim to the index of its extreme: cases over several dims use the last
};

const ReduceOp reduce_ops[] = {
    {"sum", [](const Tensor& x, const Attrs& a) { return sum(x, a.dims, a.keepdim); }},
    {"mean", [](const Tensor& x, const Attrs& a) { return mean(x, a.dims, a.keepdim); }},
    {"amax", [](const Tensor& x, const Attrs& a) { return amax(x, a.dims, a.keepdim); }},
    {"amin", [](const Tensor& x, const Attrs& a) { return amin(x, a.dims, a.keepdim); }},
    {"argmax", [](const Tensor& x, const Attrs& a) { return argmax(x, a.dim, a.keepdim); }, true},
};

struct Reduction {
  Shape s;
  std::vector<int64_t> dims;  // empty: all
  bool keepdim;
  Layout l = Layout::contiguous;
};

std::vector<Reduction> reductions(bool quick) {
  std::vector<Reduction> rs = {{{}, {}, false},           {{1}, {0}, false},
                               {{7}, {}, false},          {{13, 17}, {0}, false},
                               {{13, 17}, {1}, true},     {{13, 17}, {-1}, false, Layout::transposed},
                               {{3, 5, 7}, {0, 2}, true}, {{3, 5, 7}, {1}, false, Layout::sliced},
                               {{0, 5}, {1}, false},      {{5, 0}, {1}, false},
                               {{64, 4099}, {1}, false}};
  if (!quick) {
    rs.push_back({{2, 3, 4, 5}, {1, 3}, false, Layout::transposed});
    rs.push_back({{4099, 64}, {0}, true});
    rs.push_back({{1 << 20}, {}, false});
  } else {
    // 13x17 and 64x4099 keep odd and prime sizes; the sliced 3x5x7 stays.
    erase_named(rs, {"7"}, [](const Reduction& r) { return shape_text(r.s); });
  }
  return rs;
}

// How many terms each output sums: the product of the reduced sizes (empty ones count as 1).
int64_t reduced_length(const Shape& s, const std::vector<int64_t>& dims) {
  if (dims.empty()) return std::max<int64_t>(1, numel(s));
  int64_t len = 1;
  for (int64_t d : dims)
    if (!s.empty()) len *= std::max<int64_t>(1, dim_size(s, d));
  return len;
}

void set_dims(Case& c, const std::vector<int64_t>& dims, int64_t reduction_length) {
  c.attrs.dims = dims;
  c.attrs.dim = dims.empty() ? 0 : dims[0];
  c.attrs.reduction_length = reduction_length;
}

void reduce_cases(const ReduceOp& op, CaseList& l) {
  for (const Reduction& r : reductions(l.quick)) {
    std::vector<int64_t> dims = r.dims;
    if (op.arg && dims.size() != 1) dims = {r.s.empty() ? 0 : static_cast<int64_t>(r.s.size()) - 1};
    // amax/amin/argmax on an empty reduced dim raise ShapeError: both sides must agree on that,
    // which the runner checks, so such cases stay in.
    std::string v = shape_text(r.s) + layout_suffix(usable(r.l, r.s)) + ".d";
    for (size_t i = 0; i < dims.size(); ++i) v += (i ? "," : "") + std::to_string(dims[i]);
    if (dims.empty()) v += "all";
    if (r.keepdim) v += ".k";
    Case& c = l.add(v);
    c.inputs = {input("self", l.dtype, r.s, usable(r.l, r.s))};
    set_dims(c, dims, reduced_length(r.s, dims));
    c.attrs.keepdim = r.keepdim;
  }
  // Expanded (stride 0) inputs: reduced along the repeated dim (every term equal; argmax must
  // pick the first) and across it.
  for (const auto& [stored, dim] : {std::pair<Shape, int64_t>{{1, 9}, 0}, std::pair<Shape, int64_t>{{6, 1}, 1}}) {
    const Shape to = {6, 9};
    Case& c = l.add(expanded_text(stored, to) + ".d" + std::to_string(dim));
    c.inputs = {expanded_input("self", l.dtype, stored, to)};
    set_dims(c, {dim}, dim_size(to, dim));
  }
  if (l.floating()) {
    Case& c = l.add("special.9x31.d1");
    InputSpec in = input("self", l.dtype, {9, 31});
    in.values = Values::special;
    c.inputs = {in};
    set_dims(c, {1}, 31);
  }
}

class ReduceFamily final : public TableFamily<ReduceOp> {
 public:
  ReduceFamily() : TableFamily(reduce_ops, reduce_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override {
    return {entry(call.schema.name).call(call.input(0), call.attrs)};
  }

  // argmax's output is an exact i64 index.
  Tolerance tolerance(const Case& c, size_t, Dtype out) const override {
    return entry(c.schema.name).arg ? dtype_tolerance(out) : summed_tolerance(c, out);
  }

  bool read_golden_attr(const std::string&, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    return read_dim(key, value, attrs) || read_attr(key, "keepdim", value, attrs.keepdim);
  }
};

}  // namespace

const OpFamily& reduce_family() {
  static const ReduceFamily family;
  return family;
}

}  // namespace xd::conform
