// Shared by the RMS_NORM forward and backward kernels (and LAYER_NORM's, kernels/layer_norm.hpp):
// the split of x into rows (leading dims) and row elements (the normalized trailing dims), and
// the rstd type.
#pragma once

#include "kernels/common.hpp"

namespace xd::cpu {

// rstd is f32, or f64 for f64 inputs.
template <class T>
using rstd_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Sum-of-products accumulations run in double for every dtype: the oracle should be the most
// accurate party (the ABI asks for at least f32).
using rms_acc = double;

// Checks normalized_ndim against x and returns the number of leading (row) dims.
inline int rms_leading_dims(const xd_view& x, int32_t normalized_ndim) {
  if (normalized_ndim < 1 || normalized_ndim > x.ndim)
    invalid("rms_norm normalized_ndim " + std::to_string(normalized_ndim) + " for an input of rank " +
            std::to_string(x.ndim));
  if (x.ndim > kMaxDims) invalid("rms_norm input has more than 64 dims");
  return x.ndim - normalized_ndim;
}

// Bits of the trailing dims [lead, 64): skipped when walking rows.
inline uint64_t trailing_mask(int lead) { return ~((uint64_t{1} << lead) - 1); }

// Shapes were validated by the host; they are checked again (cheaply) because every operand is
// walked with x's sizes, and a mismatch must be an error rather than a read past a buffer.
inline void check_sizes(const xd_view& v, int ndim, const int64_t* sizes, const char* what) {
  bool ok = v.ndim == ndim;
  for (int d = 0; ok && d < ndim; ++d) ok = v.sizes[d] == sizes[d];
  if (!ok) invalid(std::string(what) + " does not have the expected shape");
}

// A per-row statistic (rstd; layer_norm's mean too): x.shape[:lead] + [1]*k.
inline void check_rstd_sizes(const xd_view& rstd, const xd_view& x, int lead, const char* what = "rms_norm rstd") {
  bool ok = rstd.ndim == x.ndim;
  for (int d = 0; ok && d < x.ndim; ++d) ok = rstd.sizes[d] == (d < lead ? x.sizes[d] : 1);
  if (!ok) invalid(std::string(what) + " must have shape x.shape[:axis] + [1]*normalized_ndim");
}

// The operands of an RMS_NORM call, validated as every CPU kernel of it (the reference loop and
// the fast kernel) needs them: shapes against x, dtypes, the rstd shape.
struct rms_norm_operands {
  const xd_view& x;
  const xd_view* w;
  const xd_view& y;
  const xd_view& rstd;
  const xd_attrs_rms_norm& attrs;
  int lead;  // leading (row) dims of x
};
inline rms_norm_operands rms_norm_operands_of(const xd_kernel_call* c) {
  rms_norm_operands o{input(c, 0), optional_input(c, 1), output(c, 0), output(c, 1), need_attrs<xd_attrs_rms_norm>(c), 0};
  o.lead = rms_leading_dims(o.x, o.attrs.normalized_ndim);
  check_sizes(o.y, o.x.ndim, o.x.sizes, "rms_norm output");
  check_rstd_sizes(o.rstd, o.x, o.lead);
  check_dtype(o.y, static_cast<xd_dtype>(o.x.dtype), "rms_norm output");
  check_dtype(o.rstd, o.x.dtype == XD_DTYPE_F64 ? XD_DTYPE_F64 : XD_DTYPE_F32, "rms_norm rstd");
  if (o.w != nullptr) check_sizes(*o.w, o.attrs.normalized_ndim, o.x.sizes + o.lead, "rms_norm weight");
  return o;
}

// The operands of an RMS_NORM_BACKWARD call, validated likewise; dx and dw may be absent.
struct rms_norm_backward_operands {
  const xd_view& g;
  const xd_view& x;
  const xd_view& rstd;
  const xd_view* w;
  const xd_view* dx;
  const xd_view* dw;
  const xd_attrs_rms_norm_backward& attrs;
  int lead;
};
inline rms_norm_backward_operands rms_norm_backward_operands_of(const xd_kernel_call* c) {
  rms_norm_backward_operands o{input(c, 0),           input(c, 1),           input(c, 2),
                               optional_input(c, 3),  optional_output(c, 0), optional_output(c, 1),
                               need_attrs<xd_attrs_rms_norm_backward>(c), 0};
  o.lead = rms_leading_dims(o.x, o.attrs.normalized_ndim);
  const int k = o.attrs.normalized_ndim;
  check_sizes(o.g, o.x.ndim, o.x.sizes, "rms_norm_backward grad_out");
  check_rstd_sizes(o.rstd, o.x, o.lead);
  check_dtype(o.rstd, o.x.dtype == XD_DTYPE_F64 ? XD_DTYPE_F64 : XD_DTYPE_F32, "rms_norm_backward rstd");
  if (o.dx != nullptr) check_sizes(*o.dx, o.x.ndim, o.x.sizes, "rms_norm_backward grad_input");
  if (o.w != nullptr) check_sizes(*o.w, k, o.x.sizes + o.lead, "rms_norm_backward weight");
  if (o.dw != nullptr) {
    if (o.w == nullptr) invalid("rms_norm_backward: grad_weight requested without a weight");
    check_sizes(*o.dw, k, o.x.sizes + o.lead, "rms_norm_backward grad_weight");
    check_dtype(*o.dw, static_cast<xd_dtype>(o.w->dtype), "rms_norm_backward grad_weight");
  }
  return o;
}

}  // namespace xd::cpu
