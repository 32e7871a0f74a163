// max_pool2d (values, and the indices where a case asks) and avg_pool2d: square and rectangular
// kernels, default and explicit strides, padding up to half the (effective) kernel, dilation,
// ceil_mode with a last window that hangs past the input, count_include_pad both ways,
// divisor_override (positive and negative), unbatched inputs, an empty batch, transposed, sliced
// and expanded inputs, special values (NaN, +-Inf, +-0: max's NaN windows and their indices) and
// a window with no tap inside the input (max: -inf). Max moves elements: exact. Avg sums each
// window in the same order everywhere; its tolerance is the dtype's widened by the window's size.
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

struct PoolOp {
  const char* name;
  bool max;
};

const PoolOp pool_ops[] = {{"max_pool2d", true}, {"avg_pool2d", false}};

struct P {
  Shape in;
  Shape k, s = {}, p = {0}, d = {1};
  bool ceil = false;
  bool include_pad = true;              // avg
  std::optional<int64_t> divisor = {};  // avg
  Layout layout = Layout::contiguous;
  Values values = Values::uniform;
  bool expanded = false;  // [1, C, H, W] expanded to in's N
};

std::string list_text(const Shape& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

void pool_cases(const PoolOp& op, CaseList& l) {
  std::vector<P> ps = {
      {{1, 1, 4, 4}, {2}},                         // stride defaults to the kernel
      {{2, 3, 7, 9}, {3}, {2}, {1}},               // padding on every side
      {{2, 3, 7, 9}, {3, 2}, {2, 1}, {1, 0}},      // rectangular
      {{2, 3, 8, 8}, {3}, {2}, {1}, {1}, true},    // ceil_mode
      {{1, 2, 5, 5}, {2}, {2}, {0}, {1}, true},    // ceil: last window past the input
      {{2, 3, 10, 11}, {3}, {3}, {1}, {1}, true},  // ceil with padding
      {{3, 6, 7}, {2}},                            // unbatched
      {{3, 9, 8}, {3}, {1}, {1}},                  // unbatched, stride 1
      {{0, 3, 5, 5}, {2}},                         // empty batch
      {{2, 3, 9, 7}, {3}, {1}, {1}, {1}, false, true, {}, Layout::transposed},
      {{2, 3, 10, 6}, {2}, {2}, {0}, {1}, false, true, {}, Layout::sliced},
      {{2, 3, 6, 6}, {3}, {1}, {1}, {1}, false, true, {}, Layout::contiguous, Values::uniform, true},
      {{2, 2, 9, 9}, {3}, {2}, {1}, {1}, false, true, {}, Layout::contiguous, Values::special},
      {{2, 2, 9, 9}, {2}, {1}, {0}, {1}, true, true, {}, Layout::contiguous, Values::extreme},
      {{1, 4, 33, 65}, {3}, {2}, {1}},  // several rows of work
      {{2, 2, 1, 1}, {1}},              // 1x1 planes, kernel 1
  };
  if (op.max) {
    ps.push_back({{2, 3, 9, 11}, {3}, {1}, {2}, {2}});                  // dilation, padding up to half of 5
    ps.push_back({{2, 3, 12, 10}, {2, 3}, {2}, {1, 2}, {3, 2}, true});  // dilation, ceil_mode
    // kernel 2, dilation 2, padding 1 on a 1x1 plane: the taps -1 and 1 lie outside, so the window
    // holds none of the input: -inf, index h*W + w of the first taps >= 0 (1*1 + 1 = 2).
    ps.push_back({{1, 2, 1, 1}, {2}, {1}, {1}, {2}});
  } else {
    ps.push_back({{2, 3, 7, 9}, {3}, {2}, {1}, {1}, false, false});              // count_include_pad false
    ps.push_back({{2, 3, 10, 11}, {3}, {3}, {1}, {1}, true, false});             // ... with ceil_mode
    ps.push_back({{2, 3, 10, 11}, {3}, {3}, {1}, {1}, true, true, int64_t{5}});  // divisor_override
    ps.push_back({{2, 3, 7, 9}, {2, 3}, {1, 2}, {1}, {1}, false, true, int64_t{-2}});
  }
  if (!l.quick) {
    ps.push_back({{4, 16, 64, 64}, {3}, {2}, {1}});
    ps.push_back({{2, 8, 129, 127}, {7}, {3}, {3}, {1}, true});
  }
  for (const P& p : ps) {
    const Layout layout = usable(p.layout, p.in);
    std::string v = shape_text(p.in) + layout_suffix(layout) + (p.expanded ? ".ex" : "") + ".k" + list_text(p.k);
    if (!p.s.empty()) v += ".s" + list_text(p.s);
    v += ".p" + list_text(p.p);
    if (op.max) v += ".d" + list_text(p.d);
    if (p.ceil) v += ".ceil";
    if (!op.max && !p.include_pad) v += ".nopad";
    if (p.divisor) v += ".div" + std::to_string(*p.divisor);
    if (p.values == Values::special) v = "special." + v;
    if (p.values == Values::extreme) v = "extreme." + v;
    // max_pool2d's values alone, and with the indices (the with-indices call).
    for (bool indices : op.max ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      Case& c = l.add(v + (indices ? ".indices" : ""));
      InputSpec x;
      if (p.expanded) {
        Shape stored = p.in;
        stored[0] = 1;
        x = expanded_input("self", l.dtype, stored, p.in);
      } else {
        x = input("self", l.dtype, p.in, layout);
      }
      x.values = p.values;
      c.inputs = {x};
      c.attrs.kernel_size = p.k;
      c.attrs.stride = p.s;
      c.attrs.padding = p.p;
      c.attrs.dilation = p.d;
      c.attrs.ceil_mode = p.ceil;
      c.attrs.count_include_pad = p.include_pad;
      c.attrs.divisor_override = p.divisor;
      c.attrs.return_indices = indices;
      c.attrs.reduction_length = std::max<int64_t>(1, p.k.size() == 1 ? p.k[0] * p.k[0] : p.k[0] * p.k[1]);
    }
  }
}

class PoolFamily final : public TableFamily<PoolOp> {
 public:
  PoolFamily() : TableFamily(pool_ops, pool_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override {
    const Attrs& a = call.attrs;
    if (!entry(call.schema.name).max)
      return {avg_pool2d(call.input(0), a.kernel_size, a.stride, a.padding, a.ceil_mode, a.count_include_pad,
                         a.divisor_override)};
    if (!a.return_indices)
      return {max_pool2d(call.input(0), a.kernel_size, a.stride, a.padding, a.dilation, a.ceil_mode), Tensor()};
    auto [out, indices] =
        max_pool2d_with_indices(call.input(0), a.kernel_size, a.stride, a.padding, a.dilation, a.ceil_mode);
    return {out, indices};
  }

  // max moves elements (and its indices are integers): exact. avg sums the window's elements.
  Tolerance tolerance(const Case& c, size_t, Dtype out) const override {
    return entry(c.schema.name).max ? exact_tolerance() : summed_tolerance(c, out);
  }

  bool read_golden_attr(const std::string&, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    if (key == "kernel_size" || key == "stride" || key == "padding" || key == "dilation") {
      std::vector<int64_t>& field = key == "kernel_size" ? attrs.kernel_size
                                    : key == "stride"    ? attrs.stride
                                    : key == "padding"   ? attrs.padding
                                                         : attrs.dilation;
      field = value.is_null() ? std::vector<int64_t>{} : int_list(value);  // null stride: the kernel size
      return true;
    }
    if (key == "divisor_override") {
      if (!value.is_null()) attrs.divisor_override = strict_get<int64_t>(value);
      return true;
    }
    return read_attr(key, "ceil_mode", value, attrs.ceil_mode) ||
           read_attr(key, "count_include_pad", value, attrs.count_include_pad) ||
           read_attr(key, "return_indices", value, attrs.return_indices);
  }
};

}  // namespace

const OpFamily& pool_family() {
  static const PoolFamily family;
  return family;
}

}  // namespace xd::conform
