// conv2d: 1x1 and 3x3 kernels, even and non-square kernels, strides that do not divide the
// input, padding, dilation, grouped and depthwise convolutions, padding "same" with an even
// kernel (the odd padding row on the bottom/right), "valid", a kernel as large as the input,
// unbatched input, empty batch, a weight with no input channels (the output is the bias), with
// and without bias, transposed and sliced inputs, and shapes past the XPU kernel's 64 x 64 tiles
// and 16-deep k steps. Each output sums C/groups * kH * kW products: the tolerance is the dtype's
// widened by that count.
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

struct ConvOp {
  const char* name;
};

const ConvOp conv_ops[] = {{"conv2d"}};

struct S {
  Shape input, weight;
  bool bias = true;
  Shape stride = {1}, padding = {0}, dilation = {1};
  int64_t groups = 1;
  int same = 0;  // 1: padding "same"; 2: padding "valid"
  Layout layout = Layout::contiguous;
};

std::string list_text(const Shape& s) {
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t;
}

void conv_cases(const ConvOp&, CaseList& l) {
  std::vector<S> ss = {
      {{1, 3, 8, 8}, {4, 3, 3, 3}, true, {1}, {1}},                // 3x3, padding 1
      {{2, 4, 9, 7}, {6, 2, 3, 2}, true, {2, 1}, {1, 0}, {1}, 2},  // groups, non-square stride
      {{2, 3, 10, 10}, {5, 3, 3, 3}, false, {1}, {2}, {2}},        // dilation, no bias
      {{1, 4, 6, 6}, {4, 1, 3, 3}, true, {1}, {1}, {1}, 4},        // depthwise
      {{3, 5, 5}, {2, 3, 1, 1}, true},                             // unbatched 1x1
      {{1, 2, 7, 6}, {3, 2, 4, 3}, true, {1}, {0}, {1, 2}, 1, 1},  // "same", even kernel
      {{1, 3, 7, 7}, {2, 3, 7, 7}, true, {1}, {0}, {1}, 1, 2},     // "valid", kernel = input
      {{2, 3, 12, 12}, {8, 3, 5, 5}, true, {3}, {2}},              // stride not dividing
      {{0, 3, 5, 5}, {2, 3, 3, 3}},                                // empty batch
      {{2, 0, 5, 5}, {3, 0, 3, 3}},                                // no input channels: the bias
      {{2, 3, 9, 11}, {4, 3, 3, 3}, true, {1}, {1}, {1}, 1, 0, Layout::transposed},
      {{2, 3, 9, 11}, {4, 3, 3, 3}, true, {1}, {1}, {1}, 1, 0, Layout::sliced},
      {{2, 20, 17, 19}, {70, 20, 3, 3}, true, {1}, {1}},  // past one 64 x 64 tile, K = 180
  };
  if (!l.quick) {
    ss.push_back({{4, 64, 28, 28}, {96, 64, 3, 3}, true, {1}, {1}});  // ResNet-like stage
    ss.push_back({{2, 32, 30, 30}, {32, 1, 3, 3}, true, {2}, {1}, {1}, 32});
    ss.push_back({{1, 8, 40, 40}, {16, 8, 7, 7}, true, {2}, {3}});  // a stem-like 7x7 stride 2
  }
  for (const S& s : ss) {
    const Shape x = s.input;
    std::string v = shape_text(x) + "*" + shape_text(s.weight) + layout_suffix(usable(s.layout, x));
    v += ".s" + list_text(s.stride) + ".d" + list_text(s.dilation);
    v += s.same == 1 ? std::string(".same") : s.same == 2 ? std::string(".valid") : ".p" + list_text(s.padding);
    if (s.groups != 1) v += ".g" + std::to_string(s.groups);
    if (!s.bias) v += ".nobias";
    Case& c = l.add(v);
    InputSpec bias = input("bias", l.dtype, {s.weight[0]});
    bias.absent = !s.bias;
    c.inputs = {ranged_input("input", l.dtype, x, -1.0, 1.0, usable(s.layout, x)),
                ranged_input("weight", l.dtype, s.weight, -1.0, 1.0), bias};
    c.attrs.conv_stride = s.stride;
    c.attrs.conv_padding = s.padding;
    c.attrs.conv_dilation = s.dilation;
    c.attrs.conv_groups = s.groups;
    c.attrs.conv_same = s.same;
    c.attrs.reduction_length = std::max<int64_t>(1, s.weight[1] * s.weight[2] * s.weight[3]);
  }
}

class ConvFamily final : public TableFamily<ConvOp> {
 public:
  ConvFamily() : TableFamily(conv_ops, conv_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override {
    const Attrs& a = call.attrs;
    if (a.conv_same != 0)
      return {conv2d(call.input(0), call.input(1), call.optional_input(2), a.conv_stride,
                     a.conv_same == 1 ? ConvPadding::same : ConvPadding::valid, a.conv_dilation, a.conv_groups)};
    return {conv2d(call.input(0), call.input(1), call.optional_input(2), a.conv_stride, a.conv_padding, a.conv_dilation,
                   a.conv_groups)};
  }

  Tolerance tolerance(const Case& c, size_t, Dtype out) const override { return summed_tolerance(c, out); }

  bool read_golden_attr(const std::string&, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    if (key == "stride") {
      attrs.conv_stride = int_list(value);
      return true;
    }
    if (key == "padding") {
      if (value.is_string()) {
        const std::string p = strict_get<std::string>(value);
        if (p != "same" && p != "valid")
          throw std::invalid_argument("expected \"same\", \"valid\" or integers, got " + json_value_text(value));
        attrs.conv_same = p == "same" ? 1 : 2;
      } else {
        attrs.conv_padding = int_list(value);
      }
      return true;
    }
    if (key == "dilation") {
      attrs.conv_dilation = int_list(value);
      return true;
    }
    if (key == "groups") {
      attrs.conv_groups = strict_get<int64_t>(value);
      return true;
    }
    return false;
  }
};

}  // namespace

const OpFamily& conv_family() {
  static const ConvFamily family;
  return family;
}

}  // namespace xd::conform
