// Shared by the LAYER_NORM forward and backward kernels: their operands, validated as
// kernels/rms_norm.hpp validates RMS_NORM's (the same row split, statistic shapes and checks), and
// their registration. weight and bias have x's dtype (the host checks it; checked again here
// because the kernels read them as x's type).
#pragma once

#include "kernels/rms_norm.hpp"

namespace xd::cpu {

// The operands of a LAYER_NORM call ([x, weight?, bias?] -> [y, mean, rstd]) or of a
// LAYER_NORM_BACKWARD call ([grad_out, x, mean, rstd, weight?, bias?] -> [grad_input?,
// grad_weight?, grad_bias?]), validated.
struct layer_norm_operands {
  const xd_view& x;
  const xd_view& like_x;  // y (forward) or grad_out (backward): x's shape and dtype
  const xd_view& mean;
  const xd_view& rstd;
  const xd_view* w;
  const xd_view* b;
  const xd_view* dx;  // backward: grad_input, grad_weight (needs w), grad_bias (needs b); each optional
  const xd_view* dw;
  const xd_view* db;
  int32_t normalized_ndim;
  double eps;  // forward only
  int lead;    // leading (row) dims of x
};

inline layer_norm_operands layer_norm_operands_of(const xd_kernel_call* c, bool backward) {
  const int s = backward ? 2 : 1;  // the first statistic's slot: among the inputs (backward) or outputs
  const int p = backward ? 4 : 1;  // the weight's input slot
  const xd_view& x = input(c, backward ? 1 : 0);
  layer_norm_operands o{x,
                        backward ? input(c, 0) : output(c, 0),
                        backward ? input(c, s) : output(c, s),
                        backward ? input(c, s + 1) : output(c, s + 1),
                        optional_input(c, p),
                        optional_input(c, p + 1),
                        nullptr,
                        nullptr,
                        nullptr,
                        0,
                        0,
                        0};
  if (backward) {
    const auto& a = need_attrs<xd_attrs_layer_norm_backward>(c);
    o.normalized_ndim = a.normalized_ndim;
    o.dx = optional_output(c, 0);
    o.dw = optional_output(c, 1);
    o.db = optional_output(c, 2);
  } else {
    const auto& a = need_attrs<xd_attrs_rms_norm>(c);
    o.normalized_ndim = a.normalized_ndim;
    o.eps = a.eps;
  }
  const std::string op = backward ? "layer_norm_backward " : "layer_norm ";
  o.lead = rms_leading_dims(x, o.normalized_ndim);
  // Everything of x's shape (y or grad_out, dx) or of the row's (w, b, dw, db) has x's dtype; the
  // statistics are f32 (f64).
  struct part {
    const xd_view* v;
    const char* name;
    bool row;
  };
  const part parts[] = {{&o.like_x, backward ? "grad_out" : "output", false},
                        {o.dx, "grad_input", false},
                        {o.w, "weight", true},
                        {o.b, "bias", true},
                        {o.dw, "grad_weight", true},
                        {o.db, "grad_bias", true}};
  for (const part& q : parts) {
    if (q.v == nullptr) continue;
    const std::string what = op + q.name;
    if (q.row)
      check_sizes(*q.v, o.normalized_ndim, x.sizes + o.lead, what.c_str());
    else
      check_sizes(*q.v, x.ndim, x.sizes, what.c_str());
    check_dtype(*q.v, x.dtype, what.c_str());
  }
  for (const xd_view* stat : {&o.mean, &o.rstd}) {
    const std::string name = op + (stat == &o.mean ? "mean" : "rstd");
    check_rstd_sizes(*stat, x, o.lead, name.c_str());
    check_dtype(*stat, x.dtype == XD_DTYPE_F64 ? XD_DTYPE_F64 : XD_DTYPE_F32, name.c_str());
  }
  if (o.dw != nullptr && o.w == nullptr) invalid(op + "grad_weight requested without a weight");
  if (o.db != nullptr && o.b == nullptr) invalid(op + "grad_bias requested without a bias");
  return o;
}

// K::template body<T>(call) under kernel_guard, for every floating dtype: a LAYER_NORM kernel's
// registration entry (kernel_list.cpp).
template <class K>
struct layer_norm_guarded {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] { K::template body<T>(c); });
  }
};
template <class K>
constexpr plugin::kernel_def layer_norm_kernel_def(xd_op op, const char* name) {
  return typed_kernel<layer_norm_guarded<K>, dtypes::compute_floating>(op, name);
}

}  // namespace xd::cpu
