// RMS_NORM and RMS_NORM_BACKWARD (kernels/rms_norm.cl) as both XPU variants launch them. Programs
// are keyed on x's dtype and the weight's, so a weight of another floating dtype builds one more
// program rather than a switch in the inner loop. Forward: a work-group per row. Backward: a
// persistent grid of rms_backward_groups work-groups walking rows with a stride, each with an
// n-long dw partial in the workspace, then xd_rms_norm_dw sums the partials per column.
// The launchers are in launchers.hpp; the checks and grid sizes are here for their tests.
#pragma once

#include <xd/plugin_abi.h>

#include <cstdint>

namespace xd::xpu {

// x's leading dims (`lead`, the rows) and its `k` = normalized_ndim trailing ones (a row); the
// optional weight has the row's shape and a floating dtype; rstd has x.shape[:lead] + [1] * k.
// The structs hold references, so a launcher unpacks one with a structured binding.
struct rms_norm_call {
  const xd_view& x;
  const xd_view* w;  // optional
  const xd_view& y;
  const xd_view& rstd;
  const xd_attrs_rms_norm& attrs;
  int lead;
  int k;
};
rms_norm_call make_rms_norm(const xd_kernel_call* c);

struct rms_norm_backward_call {
  const xd_view& g;  // grad_out
  const xd_view& x;
  const xd_view& rstd;
  const xd_view* w;   // optional
  const xd_view* dx;  // optional output (grad_input)
  const xd_view* dw;  // optional output (grad_weight; needs w)
  int lead;
  int k;
};
rms_norm_backward_call make_rms_norm_backward(const xd_kernel_call* c);

// Shared with LAYER_NORM (layer_norm.cpp): the leading (row) dims of x for normalized_ndim (`op`
// names the op in the message), and a
// per-row statistic (rstd, mean) `what`: x.shape[:lead] + [1]*k, f32 (f64 for f64 x). Both throw
// XD_ERR_INVALID_ARGUMENT.
int norm_leading_dims(const xd_view& x, int32_t normalized_ndim, const char* op);
void check_norm_statistic(const xd_view& s, const xd_view& x, int lead, const char* what);

// Work-groups per compute unit of the backward pass when dw is wanted (device_info overrides it):
// each keeps an n-long partial of dw, so their number trades filling the device against the
// partials' traffic, and should stay within one wave (two 256-wide groups fit on every GPU we know
// of).
inline constexpr int64_t kRmsBackwardGroupsPerCu = 2;
// The persistent grid of xd_rms_norm_backward: its work-groups walk rows with a stride.
int64_t rms_backward_groups(int64_t rows, int64_t compute_units, bool want_dw,
                            int64_t groups_per_cu_with_dw = kRmsBackwardGroupsPerCu);
// Work-groups of xd_rms_norm_dw: it sums the partials of min(32, wg) columns per group.
inline int64_t rms_dw_groups(int64_t n, int64_t wg) {
  const int64_t cols = wg < 32 ? wg : 32;
  return (n + cols - 1) / cols;
}
// Bytes of one dw partial element (the compute type: double for f64 x, float otherwise).
inline uint64_t rms_partial_size(int32_t x_dtype) { return x_dtype == XD_DTYPE_F64 ? 8 : 4; }

}  // namespace xd::xpu
