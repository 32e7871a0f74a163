// The views of a SOFTMAX / LOG_SOFTMAX, RMS_NORM or RMS_NORM_BACKWARD call, fetched and checked
// against each other the same way in every XPU plugin (the reduction's and the matmul's are in
// xpu_plan.hpp: make_reduce_shape, make_gemm). What is left to a plugin is building its layouts
// and launching. Errors are XD_ERR_INVALID_ARGUMENT named after the caller's backend, in the
// order the checks run here, so both plugins report the same first problem of a bad call.
#pragma once

#include <xd/plugin.hpp>

#include <cstdint>

namespace xd::xpu {

// The structs hold references, so a launcher unpacks one with a structured binding:
//   const auto [x, w, y, rstd, attrs, lead, k] = xpu::make_rms_norm(c, kBackend);

// ---------------------------------------------------------------- softmax
// Input 0, output 0 of the input's shape and dtype, and the dim (attribute) within the rank.
struct softmax_call {
  const xd_view& in;
  const xd_view& out;
  int dim;
};
softmax_call make_softmax(const xd_kernel_call* c, const char* backend);

// ---------------------------------------------------------------- rms_norm
// x's leading dims (`lead`, the rows) and its `k` = normalized_ndim trailing ones (a row); the
// optional weight has the row's shape and a floating dtype; rstd has x.shape[:lead] + [1] * k.
struct rms_norm_call {
  const xd_view& x;
  const xd_view* w;  // optional
  const xd_view& y;
  const xd_view& rstd;
  const xd_attrs_rms_norm& attrs;
  int lead;
  int k;
};
rms_norm_call make_rms_norm(const xd_kernel_call* c, const char* backend);

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
rms_norm_backward_call make_rms_norm_backward(const xd_kernel_call* c, const char* backend);

// The layout skip mask of the row layout: every dim from `lead` on (a work-group walks a row).
inline uint64_t trailing_mask(int lead) { return ~((uint64_t{1} << lead) - 1); }

// kMaxDims zero strides: the operand of an absent view (no weight, no dx), which the kernels
// never read through but whose layout slot must hold valid strides.
const int64_t* zero_strides();

}  // namespace xd::xpu
