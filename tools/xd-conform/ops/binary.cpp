// The broadcasting ops of two operands: arithmetic (add, sub, mul, div, maximum, minimum),
// comparisons (eq, lt, gt) and where (a bool condition first). They share one case set: equal shapes, broadcasting
// both ways, a 0-d operand, empty and odd sizes, transposed, sliced and expanded operands, and
// for floating dtypes a case of special values (NaN, +-Inf, +-0) in both operands. An op is one
// entry of `broadcast_ops`: its call through the public API and how its operands are drawn.
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

// How an op's operands are drawn (integers always stay where no result overflows).
enum class Operands {
  full,         // the dtype's range (floating: [-2, 2))
  small,        // narrower integers, so that products stay in range
  denominator,  // `other` has |x| in [0.5, 2), either sign: no division by (almost) zero
  narrow,       // integers in 0..4, floats in [-2, 2): comparisons see ties, so eq is meaningful
};

struct BroadcastOp {
  const char* name;
  Tensor (*call)(const OpCall& c);
  Operands operands = Operands::full;
  bool alpha = false;      // scales `other` (add, sub): the cases set it, a golden manifest may give it
  bool condition = false;  // where: a bool `condition` comes before self and other
};

const BroadcastOp broadcast_ops[] = {
    {"add", [](const OpCall& c) { return add(c.input(0), c.input(1), c.attrs.alpha); }, Operands::full, true},
    {"sub", [](const OpCall& c) { return sub(c.input(0), c.input(1), c.attrs.alpha); }, Operands::full, true},
    {"mul", [](const OpCall& c) { return mul(c.input(0), c.input(1)); }, Operands::small},
    {"div", [](const OpCall& c) { return div(c.input(0), c.input(1)); }, Operands::denominator},
    {"maximum", [](const OpCall& c) { return maximum(c.input(0), c.input(1)); }},
    {"minimum", [](const OpCall& c) { return minimum(c.input(0), c.input(1)); }},
    {"where", [](const OpCall& c) { return where(c.input(0), c.input(1), c.input(2)); }, Operands::full, false, true},
    {"eq", [](const OpCall& c) { return eq(c.input(0), c.input(1)); }, Operands::narrow},
    {"ne", [](const OpCall& c) { return ne(c.input(0), c.input(1)); }, Operands::narrow},
    {"lt", [](const OpCall& c) { return lt(c.input(0), c.input(1)); }, Operands::narrow},
    {"gt", [](const OpCall& c) { return gt(c.input(0), c.input(1)); }, Operands::narrow},
    {"ge", [](const OpCall& c) { return ge(c.input(0), c.input(1)); }, Operands::narrow},
    {"le", [](const OpCall& c) { return le(c.input(0), c.input(1)); }, Operands::narrow},
};

void draw_operand(const BroadcastOp& op, InputSpec& in, bool other) {
  if (is_integral(in.dtype)) {
    const Range r = int_range(in.dtype, op.operands == Operands::small);
    in.lo = r.lo;
    in.hi = r.hi;
  } else if (other && op.operands == Operands::denominator) {
    in.values = Values::magnitude;
    in.lo = 0.5;
    in.hi = 2.0;
  }
  if (op.operands == Operands::narrow && is_integral(in.dtype)) in.lo = 0, in.hi = 4;
  if (op.operands == Operands::narrow && is_floating(in.dtype)) in.lo = -2, in.hi = 2;
}

// Draws self and other and appends them, after the condition where the op takes one (of shape
// `condition_shape`). `special`: floating operands of special values instead.
void add_operands(const BroadcastOp& op, Case& c, InputSpec self, InputSpec other, const Shape& condition_shape,
                  bool special = false) {
  draw_operand(op, self, false);
  draw_operand(op, other, true);
  if (special && is_floating(self.dtype)) self.values = other.values = Values::special;
  if (op.condition) c.inputs.push_back(input("condition", Dtype::boolean, condition_shape));
  c.inputs.push_back(std::move(self));
  c.inputs.push_back(std::move(other));
}

struct Pair {
  Shape a, b;
  Layout la = Layout::contiguous, lb = Layout::contiguous;
};

std::vector<Pair> pairs(bool quick) {
  std::vector<Pair> p = {{{}, {}},
                         {{0, 3}, {3}},
                         {{1}, {1}},
                         {{13, 17}, {13, 17}},
                         {{7, 13}, {13}},
                         {{7, 1}, {1, 13}},
                         {{}, {5, 3}},
                         {{13, 17}, {13, 17}, Layout::transposed, Layout::contiguous},
                         {{9, 5}, {9, 5}, Layout::sliced, Layout::transposed},
                         {{4099}, {4099}},
                         // Past the size under which vectorised kernels leave small tensors to a
                         // plain loop (the CPU's fast kernels): equal, row- and column-broadcast,
                         // and a transposed operand they decline.
                         {{129, 131}, {129, 131}},
                         {{129, 131}, {131}},
                         {{129, 131}, {129, 1}},
                         {{129, 131}, {129, 131}, Layout::contiguous, Layout::transposed}};
  if (!quick) {
    p.push_back({{2, 1, 7, 5}, {3, 1, 5}});
    p.push_back({{513, 1031}, {1031}});
    p.push_back({{(1 << 20) + 3}, {(1 << 20) + 3}});
  }
  // The quick set keeps every pair above: size 1 (1+1), a 0-d operand broadcast to a matrix
  // (scalar+5x3), empty, odd, transposed, sliced and both broadcast directions.
  return p;
}

void broadcast_cases(const BroadcastOp& op, CaseList& l) {
  const Dtype d = l.dtype;
  auto add_pair = [&](const std::string& variant, const Shape& sa, Layout la, const Shape& sb, Layout lb,
                      bool special) {
    Case& c = l.add(variant);
    add_operands(op, c, input("self", d, sa, usable(la, sa)), input("other", d, sb, usable(lb, sb)),
                 sa.size() >= sb.size() ? sa : sb, special);
    if (op.alpha) c.attrs.alpha = is_integral(d) ? 2.0 : -0.5;
    if (d == Dtype::boolean) c.attrs.alpha = 1.0;
  };
  for (const Pair& p : pairs(l.quick)) {
    const std::string v =
        shape_text(p.a) + layout_suffix(usable(p.la, p.a)) + "+" + shape_text(p.b) + layout_suffix(usable(p.lb, p.b));
    add_pair(v, p.a, p.la, p.b, p.lb, false);
  }
  // A stride-0 self; the only case that keeps the default alpha of 1.
  add_operands(op, l.add("1x9.ex5x9+5x9"), expanded_input("self", d, {1, 9}, {5, 9}), input("other", d, {5, 9}),
               {5, 9});
  if (is_floating(d)) {
    add_pair("special.257+257", {257}, Layout::contiguous, {257}, Layout::contiguous, true);
    add_pair("special.129x131+129x131", {129, 131}, Layout::contiguous, {129, 131}, Layout::contiguous, true);
  }
}

class BroadcastFamily final : public TableFamily<BroadcastOp> {
 public:
  BroadcastFamily() : TableFamily(broadcast_ops, broadcast_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override { return {entry(call.schema.name).call(call)}; }

  Tolerance tolerance(const Case&, size_t, Dtype out) const override { return dtype_tolerance(out); }

  bool read_golden_attr(const std::string& op, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    return entry(op).alpha && read_attr(key, "alpha", value, attrs.alpha);
  }
};

}  // namespace

const OpFamily& binary_family() {
  static const BroadcastFamily family;
  return family;
}

}  // namespace xd::conform
