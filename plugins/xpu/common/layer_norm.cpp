// LAYER_NORM and LAYER_NORM_BACKWARD (kernels/layer_norm.cl) as both XPU variants launch them:
// the forward and dx a work-group per row; dw and db a work-item per row element walking every
// row. The operand checks are rms_norm's (rms_norm.hpp) plus the bias and the mean. weight and
// bias have x's dtype, so the program is keyed on x's dtype alone.
#include "launchers.hpp"
#include "layout.hpp"
#include "rms_norm.hpp"

#include <iterator>
#include <string>
#include <utility>

namespace xd::xpu {

namespace {

using plugin::check_dtype;
using plugin::invalid;
using plugin::same_sizes;

// The views of a LAYER_NORM call ([x, weight?, bias?] -> [y, mean, rstd]) or of a
// LAYER_NORM_BACKWARD call ([grad_out, x, mean, rstd, weight?, bias?] -> [dx?, dw?, db?]),
// checked.
struct layer_norm_call {
  const xd_view& x;
  const xd_view& like_x;  // y or grad_out
  const xd_view& mean;
  const xd_view& rstd;
  const xd_view* w;
  const xd_view* b;
  const xd_view* dx;  // backward: grad_input, grad_weight, grad_bias (each optional)
  const xd_view* dw;
  const xd_view* db;
  int32_t k;                            // normalized_ndim
  double eps;                           // forward only
  int lead;
};

layer_norm_call make_layer_norm(const xd_kernel_call* c, bool backward) {
  const int s = backward ? 2 : 1;  // the first statistic's slot among the inputs (backward) or outputs
  const int p = backward ? 4 : 1;  // the weight's input slot
  const xd_view& x = plugin::input(c, backward ? 1 : 0);
  layer_norm_call o{x,
                    backward ? plugin::input(c, 0) : plugin::output(c, 0),
                    backward ? plugin::input(c, s) : plugin::output(c, s),
                    backward ? plugin::input(c, s + 1) : plugin::output(c, s + 1),
                    plugin::optional_input(c, p),
                    plugin::optional_input(c, p + 1),
                    nullptr,
                    nullptr,
                    nullptr,
                    0,
                    0,
                    0};
  if (backward) {
    o.k = plugin::need_attrs<xd_attrs_layer_norm_backward>(c).normalized_ndim;
    o.dx = plugin::optional_output(c, 0);
    o.dw = plugin::optional_output(c, 1);
    o.db = plugin::optional_output(c, 2);
  } else {
    const auto& a = plugin::need_attrs<xd_attrs_rms_norm>(c);
    o.k = a.normalized_ndim;
    o.eps = a.eps;
  }
  const std::string op = backward ? "layer_norm_backward " : "layer_norm ";
  o.lead = norm_leading_dims(x, o.k, op.c_str());
  check_norm_statistic(o.mean, x, o.lead, (op + "mean").c_str());
  check_norm_statistic(o.rstd, x, o.lead, (op + "rstd").c_str());
  // Each of x's shape (y or grad_out, dx) or of the row's (w, b, dw, db), in x's dtype.
  const std::pair<const xd_view*, const char*> parts[] = {{&o.like_x, backward ? "grad_out" : "output"},
                                                          {o.dx, "grad_input"},
                                                          {o.w, "weight"},
                                                          {o.b, "bias"},
                                                          {o.dw, "grad_weight"},
                                                          {o.db, "grad_bias"}};
  for (size_t i = 0; i < std::size(parts); ++i) {
    const auto& [v, name] = parts[i];
    if (v == nullptr) continue;
    const bool row = i >= 2;
    if (!(row ? same_sizes(*v, o.k, x.sizes + o.lead) : same_sizes(*v, x.ndim, x.sizes)))
      invalid(op + name + (row ? " must have the normalized shape" : " must have x's shape"));
    check_dtype(*v, x.dtype, (op + name).c_str());
  }
  if (o.dw != nullptr && o.w == nullptr) invalid(op + "grad_weight requested without a weight");
  if (o.db != nullptr && o.b == nullptr) invalid(op + "grad_bias requested without a bias");
  return o;
}

program layer_norm_program(const xd_view& x) { return {"layer_norm", x.dtype}; }

}  // namespace

xd_status run_layer_norm(const xd_kernel_call* c) {
  return guard(c, [&] {
    const layer_norm_call o = make_layer_norm(c, false);
    const xd_view& x = o.x;
    const xd_view& y = o.like_x;
    const layout L = layout_of(x.ndim, x.sizes, {operand_of(x), operand_of(y), operand_of(o.mean), operand_of(o.rstd)},
                               trailing_mask(o.lead));
    const layout RL = layout_of(o.k, x.sizes + o.lead,
                                {{x.strides + o.lead, 0},
                                 {y.strides + o.lead, 0},
                                 o.w != nullptr ? operand_of(*o.w) : absent_operand(),
                                 o.b != nullptr ? operand_of(*o.b) : absent_operand()});
    // An empty x launches nothing: the core writes the statistics of empty rows itself.
    if (L.numel == 0 || RL.numel == 0) return;
    const int64_t flags = (o.w != nullptr ? 1 : 0) | (o.b != nullptr ? 2 : 0);
    launch kl(c, layer_norm_program(x), "xd_layer_norm");
    kl.buffer(y).buffer(o.mean).buffer(o.rstd).buffer(x);
    kl.buffer(o.w != nullptr ? *o.w : x).buffer(o.b != nullptr ? *o.b : x);
    kl.value(flags).value(L).value(RL).value(RL.numel).value(make_scalars(o.eps));
    kl.run_groups(static_cast<uint64_t>(L.numel));
  });
}

xd_status run_layer_norm_backward(const xd_kernel_call* c) {
  return guard(c, [&] {
    const layer_norm_call o = make_layer_norm(c, true);
    const xd_view& x = o.x;
    const xd_view& g = o.like_x;
    const int64_t* zero = zero_strides();
    const layout L = layout_of(x.ndim, x.sizes,
                               {operand_of(g), operand_of(x), o.dx != nullptr ? operand_of(*o.dx) : absent_operand()},
                               trailing_mask(o.lead));
    const layout SL = layout_of(x.ndim, x.sizes, {operand_of(o.mean), operand_of(o.rstd)}, trailing_mask(o.lead));
    const int64_t n = layout_of(o.k, x.sizes + o.lead, {{zero, 0}}).numel;
    const program prog = layer_norm_program(x);
    if (n == 0) return;  // every output is empty
    if (o.dx != nullptr && L.numel > 0) {
      const layout RL = layout_of(o.k, x.sizes + o.lead,
                                  {{g.strides + o.lead, 0},
                                   {x.strides + o.lead, 0},
                                   o.w != nullptr ? operand_of(*o.w) : absent_operand(),
                                   {o.dx->strides + o.lead, 0}});
      launch kb(c, prog, "xd_layer_norm_backward");
      kb.buffer(*o.dx).buffer(g).buffer(x).buffer(o.mean).buffer(o.rstd).buffer(o.w != nullptr ? *o.w : x);
      kb.value(int64_t{o.w != nullptr ? 1 : 0}).value(L).value(SL).value(RL).value(n);
      kb.run_groups(static_cast<uint64_t>(L.numel));
    }
    if (o.dw != nullptr || o.db != nullptr) {
      // With no rows the sums are empty: the kernel writes zeros.
      const layout RL = layout_of(o.k, x.sizes + o.lead,
                                  {{g.strides + o.lead, 0},
                                   {x.strides + o.lead, 0},
                                   o.dw != nullptr ? operand_of(*o.dw) : absent_operand(),
                                   o.db != nullptr ? operand_of(*o.db) : absent_operand()});
      const int64_t flags = (o.dw != nullptr ? 1 : 0) | (o.db != nullptr ? 2 : 0);
      const uint64_t wg = static_cast<uint64_t>(device_of(c).work_group);
      launch kf(c, prog, "xd_layer_norm_dwdb");
      kf.buffer(o.dw != nullptr ? *o.dw : x).buffer(o.db != nullptr ? *o.db : x).buffer(g).buffer(x);
      kf.buffer(o.mean).buffer(o.rstd).value(flags).value(L).value(SL).value(RL).value(n);
      kf.run_groups((static_cast<uint64_t>(n) + wg - 1) / wg);
    }
  });
}

}  // namespace xd::xpu
