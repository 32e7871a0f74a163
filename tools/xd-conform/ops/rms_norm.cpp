// rms_norm (output and rstd) and rms_norm_backward (grad_input and grad_weight, each optional by
// output_mask), and layer_norm (output, mean, rstd) and layer_norm_backward (grad_input,
// grad_weight, grad_bias) on the same shapes: with and without weight (and bias) and eps, one and
// two normalized dims, size 1, empty, long rows, transposed, sliced and expanded inputs. The
// backward's statistics (rstd; layer_norm's mean too) are the ones the reference's forward
// computes for the case's input (Values::derived), as in training.
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

struct Norm {
  Shape s;
  Shape norm;
  bool weight;
  bool eps;
  Layout l = Layout::contiguous;
};

std::vector<Norm> norms(bool quick) {
  std::vector<Norm> ns = {{{3, 64}, {64}, true, true},
                          {{3, 64}, {64}, false, false},
                          {{2, 3, 8}, {3, 8}, true, false},
                          {{1}, {1}, true, true},
                          {{0, 16}, {16}, true, true},
                          {{17, 33}, {33}, true, true, Layout::transposed},
                          {{9, 31}, {31}, true, false, Layout::sliced},
                          {{4, 4099}, {4099}, true, true},
                          // stride 0: one [1, 64] row expanded to five equal rows
                          {{5, 64}, {64}, true, true, Layout::expanded}};
  if (!quick) ns.push_back({{257, 1024}, {1024}, true, false});
  return ns;
}

// layer: layer_norm's cases (a bias beside the weight where the case has eps too, and the mean
// beside rstd), else rms_norm's.
void norm_cases(CaseList& l, bool backward, bool layer) {
  using Mask = std::array<bool, 3>;
  std::vector<Mask> masks = {{true, true, true}};
  if (backward) masks = {{true, true, true}, {true, false, false}, {false, true, true}};
  for (const Norm& n : norms(l.quick)) {
    for (const auto& mask : masks) {
      if (backward && !n.weight && !mask[0]) continue;
      const bool bias = layer && n.weight && n.eps;
      const bool ex = n.l == Layout::expanded;
      Shape stored = n.s;
      if (ex) stored[0] = 1;
      std::string v = (ex ? expanded_text(stored, n.s) : shape_text(n.s) + layout_suffix(usable(n.l, n.s))) + ".n" +
                      shape_text(n.norm) + (n.weight ? ".w" : "") + (bias ? ".b" : "") + (n.eps ? ".eps" : "");
      if (backward)
        v += std::string(".m") + (mask[0] ? "1" : "0") + (mask[1] ? "1" : "0") + (layer ? (mask[2] ? "1" : "0") : "");
      Case& c = l.add(v);
      int64_t len = numel(n.norm);
      InputSpec x = ex ? expanded_input("input", l.dtype, stored, n.s) : input("input", l.dtype, n.s, usable(n.l, n.s));
      InputSpec w = ranged_input("weight", l.dtype, n.norm, 0.5, 1.5);
      w.values = Values::positive;
      w.absent = !n.weight;
      InputSpec b = ranged_input("bias", l.dtype, n.norm, -1, 1);
      b.absent = !bias;
      if (backward) {
        InputSpec g = ranged_input("grad_out", l.dtype, n.s, -1, 1);
        Shape rs = n.s;
        for (size_t i = n.s.size() - n.norm.size(); i < n.s.size(); ++i) rs[i] = 1;
        InputSpec r = input("rstd", l.dtype == Dtype::f64 ? Dtype::f64 : Dtype::f32, rs);
        r.values = Values::derived;
        InputSpec m = r;
        m.name = "mean";
        if (layer)
          c.inputs = {g, x, m, r, w, b};
        else
          c.inputs = {g, x, r, w};
        c.attrs.output_mask = mask;
        // grad_weight sums over every row as well.
        len = std::max<int64_t>(len, numel(n.s) / std::max<int64_t>(1, numel(n.norm)));
      } else if (layer) {
        c.inputs = {x, w, b};
      } else {
        c.inputs = {x, w};
      }
      c.attrs.normalized_shape = n.norm;
      if (n.eps) c.attrs.eps = 1e-5;
      c.attrs.reduction_length = std::max<int64_t>(1, len);
    }
  }
  // A weight of another floating dtype (f32 beside f16/bf16 rows, as mixed-precision models keep
  // it): the kernels read it into the compute type; grad_weight comes back in the weight's dtype.
  if (l.dtype == Dtype::f16 || l.dtype == Dtype::bf16) {
    const Shape s = {5, 96};
    Case& c = l.add(shape_text(s) + ".n" + shape_text({96}) + ".wf32" + (backward ? ".m11" : ""));
    InputSpec x = input("input", l.dtype, s);
    InputSpec w = ranged_input("weight", Dtype::f32, {96}, 0.5, 1.5);
    w.values = Values::positive;
    if (backward) {
      InputSpec r = input("rstd", Dtype::f32, {5, 1});
      r.values = Values::derived;
      c.inputs = {ranged_input("grad_out", l.dtype, s, -1, 1), x, r, w};
      c.attrs.output_mask = {true, true};
    } else {
      c.inputs = {x, w};
    }
    c.attrs.normalized_shape = {96};
    c.attrs.eps = 1e-5;
    c.attrs.reduction_length = 96;
  }
  if (backward) return;
  if (layer) {
    // NaN, +-Inf, +-0 in a row make it NaN throughout; the other rows stay finite.
    Case& c = l.add("special." + shape_text({6, 64}) + ".w.b.eps");
    InputSpec x = input("input", l.dtype, {6, 64});
    x.values = Values::special;
    InputSpec w = ranged_input("weight", l.dtype, {64}, 0.5, 1.5);
    w.values = Values::positive;
    c.inputs = {x, w, ranged_input("bias", l.dtype, {64}, -1, 1)};
    c.attrs.normalized_shape = {64};
    c.attrs.eps = 1e-5;
    c.attrs.reduction_length = 64;
    return;
  }
  // NaN, +-Inf, +-0, values near the dtype's largest (whose squares pass f32's range: rstd 0, as
  // PyTorch's f32 statistics give) and tiny ones, in short and long rows; and (f32, bf16) "huge"
  // rows whose squares fit f32 but whose sum of squares does not: rstd 0 again.
  std::vector<std::pair<Shape, Values>> specials = {{{6, 64}, Values::special},
                                                    {{3, 4099}, Values::special},
                                                    {{6, 64}, Values::extreme},
                                                    {{6, 4099}, Values::extreme}};
  if (l.dtype == Dtype::f32 || l.dtype == Dtype::bf16) specials.push_back({{6, 64}, Values::magnitude});
  for (const auto& [s, values] : specials) {
    const char* kind = values == Values::extreme ? "extreme." : values == Values::special ? "special." : "huge.";
    Case& c = l.add(kind + shape_text(s) + ".w.eps");
    InputSpec x = input("input", l.dtype, s);
    x.values = values;
    if (values == Values::magnitude) {  // squares in f32's range, their sum of 64 past it
      x.lo = 2.4e18;
      x.hi = 3.0e18;
    }
    InputSpec w = ranged_input("weight", l.dtype, {s.back()}, 0.5, 1.5);
    w.values = Values::positive;
    c.inputs = {x, w};
    c.attrs.normalized_shape = {s.back()};
    c.attrs.eps = 1e-5;
    c.attrs.reduction_length = s.back();
  }
}

// A backward's output_mask of `count` booleans (the rest stay true).
bool read_output_mask(const std::string& key, const nlohmann::json& v, Attrs& a, size_t count) {
  if (key != "output_mask") return false;
  bool ok = v.is_array() && v.size() == count;
  for (size_t i = 0; ok && i < count; ++i) ok = v[i].is_boolean();
  if (!ok) throw std::invalid_argument("expected " + std::to_string(count) + " booleans, got " + json_value_text(v));
  for (size_t i = 0; i < count; ++i) a.output_mask[i] = v[i].get<bool>();
  return true;
}

bool read_normalized_shape(const std::string& key, const nlohmann::json& v, Attrs& a) {
  if (key != "normalized_shape") return false;
  a.normalized_shape = int_list(v);
  return true;
}

struct NormOp {
  const char* name;
  bool backward;
  bool layer;  // layer_norm's, else rms_norm's
  std::vector<Tensor> (*call)(const OpCall& c);
  // The attribute besides normalized_shape: rms_norm's eps, the backward's output_mask.
  bool (*golden_attr)(const std::string& key, const nlohmann::json& v, Attrs& a);
};

const NormOp norm_ops[] = {
    {"rms_norm", false, false,
     [](const OpCall& c) -> std::vector<Tensor> {
       auto [y, rstd] = rms_norm(c.input(0), c.attrs.normalized_shape, c.optional_input(1), c.attrs.eps);
       return {y, rstd};
     },
     [](const std::string& key, const nlohmann::json& v, Attrs& a) {
       if (key != "eps") return false;
       if (!v.is_null()) a.eps = strict_get<double>(v);  // null: the accumulation type's machine epsilon
       return true;
     }},
    {"rms_norm_backward", true, false,
     [](const OpCall& c) -> std::vector<Tensor> {
       const auto& m = c.attrs.output_mask;
       auto [grad_input, grad_weight] = rms_norm_backward(c.input(0), c.input(1), c.attrs.normalized_shape, c.input(2),
                                                          c.optional_input(3), {m[0], m[1]});
       return {grad_input, grad_weight};
     },
     [](const std::string& key, const nlohmann::json& v, Attrs& a) { return read_output_mask(key, v, a, 2); }},
    {"layer_norm", false, true,
     [](const OpCall& c) -> std::vector<Tensor> {
       auto [y, mean, rstd] = layer_norm(c.input(0), c.attrs.normalized_shape, c.optional_input(1), c.optional_input(2),
                                         c.attrs.eps.value_or(1e-5));
       return {y, mean, rstd};
     },
     [](const std::string& key, const nlohmann::json& v, Attrs& a) {
       if (key != "eps") return false;
       a.eps = strict_get<double>(v);
       return true;
     }},
    {"layer_norm_backward", true, true,
     [](const OpCall& c) -> std::vector<Tensor> {
       auto [grad_input, grad_weight, grad_bias] =
           layer_norm_backward(c.input(0), c.input(1), c.attrs.normalized_shape, c.input(2), c.input(3),
                               c.optional_input(4), c.optional_input(5), c.attrs.output_mask);
       return {grad_input, grad_weight, grad_bias};
     },
     [](const std::string& key, const nlohmann::json& v, Attrs& a) { return read_output_mask(key, v, a, 3); }},
};

class RmsNormFamily final : public TableFamily<NormOp> {
 public:
  RmsNormFamily()
      : TableFamily(norm_ops, [](const NormOp& op, CaseList& l) { norm_cases(l, op.backward, op.layer); }) {}

  std::vector<Tensor> invoke(const OpCall& call) const override { return entry(call.schema.name).call(call); }

  // Outputs sum over the normalized size (grad_weight and grad_bias over every row).
  Tolerance tolerance(const Case& c, size_t, Dtype out) const override { return summed_tolerance(c, out); }

  // The backward's statistics: what the reference's forward computes for `input` (input 1); they
  // do not depend on the weight. rms_norm_backward's rstd is input 2; layer_norm_backward's mean
  // and rstd are inputs 2 and 3.
  Tensor derived_input(const Case& c, size_t i, const std::vector<std::optional<Tensor>>& made) const override {
    const Tensor& x = *made.at(1);
    if (!entry(c.schema.name).layer)
      return std::get<1>(rms_norm(x, c.attrs.normalized_shape, std::nullopt, c.attrs.eps)).contiguous();
    auto [y, mean, rstd] =
        layer_norm(x, c.attrs.normalized_shape, std::nullopt, std::nullopt, c.attrs.eps.value_or(1e-5));
    return (i == 2 ? mean : rstd).contiguous();
  }

  bool read_golden_attr(const std::string& op, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    return read_normalized_shape(key, value, attrs) || entry(op).golden_attr(key, value, attrs);
  }
};

}  // namespace

const OpFamily& rms_norm_family() {
  static const RmsNormFamily family;
  return family;
}

}  // namespace xd::conform
