// scaled_dot_product_attention: L != S, E != Ev, lengths that are not multiples of the XPU
// kernel's 32-query and 32-key (16 in f64) tiles, several tiles each way, causal (L < S, L > S),
// bool and float masks, masks and leading dims broadcast, rows with every key masked (a bool mask
// over 3 keys leaves some rows empty: NaN on every backend), transposed and sliced operands,
// empty L, S and batch, E = 0, an explicit scale. The outputs are weighted means of value rows, so
// the tolerance is the dtype's widened by the number of keys summed.
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

struct AttentionOp {
  const char* name;
};

const AttentionOp attention_ops[] = {{"scaled_dot_product_attention"}};

enum class Mask { none, boolean, additive };

void attention_cases(const AttentionOp&, CaseList& l) {
  struct S {
    Shape q, k, v;
    Mask mask = Mask::none;
    Shape mask_shape = {};
    bool causal = false;
    std::optional<double> scale = std::nullopt;
    Layout layout = Layout::contiguous;  // of q and k
  };
  std::vector<S> ss = {
      {{5, 8}, {7, 8}, {7, 3}},                                                       // 2-d, L != S, E != Ev
      {{2, 3, 33, 16}, {2, 3, 45, 16}, {2, 3, 45, 24}},                               // past one tile each way
      {{2, 70, 32}, {2, 70, 32}, {2, 70, 32}, Mask::none, {}, true},                  // causal, several blocks
      {{1, 50, 8}, {1, 19, 8}, {1, 19, 8}, Mask::none, {}, true},                     // causal, L > S
      {{1, 19, 8}, {1, 50, 8}, {1, 19 + 31, 4}, Mask::none, {}, true},                // causal, L < S
      {{2, 9, 8}, {2, 3, 8}, {2, 3, 5}, Mask::boolean, {2, 9, 3}},                    // bool mask, empty rows
      {{2, 2, 37, 8}, {2, 2, 40, 8}, {2, 2, 40, 8}, Mask::boolean, {37, 40}},         // mask broadcast
      {{2, 2, 37, 8}, {2, 2, 40, 8}, {2, 2, 40, 8}, Mask::additive, {2, 1, 37, 40}},  // float mask
      {{2, 1, 6, 8}, {1, 3, 9, 8}, {1, 3, 9, 8}},                                     // leading dims broadcast
      {{3, 12, 16}, {3, 20, 16}, {3, 20, 16}, Mask::none, {}, false, 0.3},            // explicit scale
      {{3, 12, 16}, {3, 20, 16}, {3, 20, 16}, Mask::none, {}, false, std::nullopt, Layout::transposed},
      {{3, 12, 16}, {3, 20, 16}, {3, 20, 16}, Mask::none, {}, false, std::nullopt, Layout::sliced},
      {{2, 0, 8}, {2, 5, 8}, {2, 5, 4}},           // L = 0
      {{2, 4, 8}, {2, 0, 8}, {2, 0, 4}},           // S = 0: zeros
      {{0, 4, 8}, {0, 5, 8}, {0, 5, 4}},           // no batch
      {{2, 4, 0}, {2, 5, 0}, {2, 5, 3}},           // E = 0: every score 0, the mean of value's rows
      {{1, 40, 128}, {1, 40, 128}, {1, 40, 128}},  // the largest head dim the fused kernel holds
      // Head dims of NVIDIA's tensor-core kernel (64, 128; no mask): causal past one 64-query
      // block, and L > S not a multiple of its 64-key tiles.
      {{2, 3, 70, 64}, {2, 3, 70, 64}, {2, 3, 70, 64}, Mask::none, {}, true},
      {{1, 2, 100, 128}, {1, 2, 77, 128}, {1, 2, 77, 128}},
  };
  if (!l.quick) {
    ss.push_back({{2, 4, 129, 64}, {2, 4, 257, 64}, {2, 4, 257, 64}, Mask::none, {}, true});
    ss.push_back({{1, 300, 32}, {1, 300, 32}, {1, 300, 32}, Mask::boolean, {300, 300}});
  }
  for (const S& s : ss) {
    std::string v =
        shape_text(s.q) + "+" + shape_text(s.k) + "+" + shape_text(s.v) + layout_suffix(usable(s.layout, s.q));
    if (s.mask != Mask::none) v += (s.mask == Mask::boolean ? ".bmask" : ".fmask") + shape_text(s.mask_shape);
    if (s.causal) v += ".causal";
    if (s.scale) v += ".scale";
    Case& c = l.add(v);
    InputSpec mask = s.mask == Mask::boolean ? input("attn_mask", Dtype::boolean, s.mask_shape)
                                             : input("attn_mask", l.dtype, s.mask_shape);
    mask.absent = s.mask == Mask::none;
    c.inputs = {input("query", l.dtype, s.q, usable(s.layout, s.q)), input("key", l.dtype, s.k, usable(s.layout, s.k)),
                input("value", l.dtype, s.v), mask};
    c.attrs.is_causal = s.causal;
    c.attrs.scale = s.scale;
    c.attrs.reduction_length = std::max<int64_t>(1, dim_size(s.k, -2));
  }
}

class AttentionFamily final : public TableFamily<AttentionOp> {
 public:
  AttentionFamily() : TableFamily(attention_ops, attention_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override {
    return {scaled_dot_product_attention(call.input(0), call.input(1), call.input(2), call.optional_input(3),
                                         call.attrs.is_causal, call.attrs.scale)};
  }

  // Each output is a weighted sum over the keys: the dtype's tolerance widened by sqrt(S). It is
  // also a convex combination of value rows drawn from [-2, 2), and a kernel that rounds the
  // softmax weights to the dtype before the weighted sum (NVIDIA's tensor-core path, as
  // FlashAttention) errs by up to the dtype's rounding of |v| there: outputs near zero by
  // cancellation are judged against that scale, max |v| = 2 times the dtype's relative tolerance.
  Tolerance tolerance(const Case& c, size_t, Dtype out) const override {
    Tolerance t = summed_tolerance(c, out);
    t.atol = std::max(t.atol, 2.0 * dtype_tolerance(out).rtol);
    return t;
  }

  bool read_golden_attr(const std::string&, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    if (key == "is_causal") {
      attrs.is_causal = strict_get<bool>(value);
      return true;
    }
    if (key == "scale") {
      if (!value.is_null()) attrs.scale = strict_get<double>(value);  // null: 1/sqrt(E)
      return true;
    }
    return false;
  }
};

}  // namespace

const OpFamily& attention_family() {
  static const AttentionFamily family;
  return family;
}

}  // namespace xd::conform
