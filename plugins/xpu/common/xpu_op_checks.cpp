#include "xpu_op_checks.hpp"

#include "xpu_call.hpp"
#include "xpu_dtype.hpp"
#include "xpu_layout.hpp"

#include <string>

namespace xd::xpu {

namespace {

int leading_dims(const xd_view& x, int32_t normalized_ndim, const char* backend) {
  if (normalized_ndim < 1 || normalized_ndim > x.ndim)
    invalid(backend, "rms_norm normalized_ndim " + std::to_string(normalized_ndim) + " for an input of rank " +
                         std::to_string(x.ndim));
  return x.ndim - normalized_ndim;
}

void check_rstd(const xd_view& rstd, const xd_view& x, int lead, const char* backend) {
  bool ok = rstd.ndim == x.ndim;
  for (int d = 0; ok && d < x.ndim; ++d) ok = rstd.sizes[d] == (d < lead ? x.sizes[d] : 1);
  if (!ok) invalid(backend, "rms_norm rstd must have shape x.shape[:axis] + [1]*normalized_ndim");
  check_dtype(rstd, x.dtype == XD_DTYPE_F64 ? XD_DTYPE_F64 : XD_DTYPE_F32, "rms_norm rstd", backend);
}

void check_weight(const xd_view* w, const xd_view& x, int lead, const char* op, const char* backend) {
  if (w != nullptr && (!same_sizes(*w, x.ndim - lead, x.sizes + lead) || !is_floating(w->dtype)))
    invalid(backend, std::string(op) + " weight must be floating with the normalized shape");
}

}  // namespace

softmax_call make_softmax(const xd_kernel_call* c, const char* backend) {
  const xd_view& in = input(c, 0, backend);
  const xd_view& out = output(c, 0, backend);
  if (!same_sizes(out, in.ndim, in.sizes)) invalid(backend, "softmax output must have the input's shape");
  check_dtype(out, in.dtype, "softmax output", backend);
  const int dim = need_attrs<xd_attrs_dim>(c, backend).dim;
  if (dim < 0 || dim >= in.ndim) invalid(backend, "softmax dim " + std::to_string(dim) + " out of range");
  return {in, out, dim};
}

rms_norm_call make_rms_norm(const xd_kernel_call* c, const char* backend) {
  const xd_view& x = input(c, 0, backend);
  const xd_view* w = optional_input(c, 1);
  const xd_view& y = output(c, 0, backend);
  const xd_view& rstd = output(c, 1, backend);
  const auto& attrs = need_attrs<xd_attrs_rms_norm>(c, backend);
  const int lead = leading_dims(x, attrs.normalized_ndim, backend);
  if (!same_sizes(y, x.ndim, x.sizes)) invalid(backend, "rms_norm output must have x's shape");
  check_dtype(y, x.dtype, "rms_norm output", backend);
  check_rstd(rstd, x, lead, backend);
  check_weight(w, x, lead, "rms_norm", backend);
  return {x, w, y, rstd, attrs, lead, attrs.normalized_ndim};
}

rms_norm_backward_call make_rms_norm_backward(const xd_kernel_call* c, const char* backend) {
  const xd_view& g = input(c, 0, backend);
  const xd_view& x = input(c, 1, backend);
  const xd_view& rstd = input(c, 2, backend);
  const xd_view* w = optional_input(c, 3);
  const xd_view* dx = optional_output(c, 0);
  const xd_view* dw = optional_output(c, 1);
  const auto& attrs = need_attrs<xd_attrs_rms_norm_backward>(c, backend);
  const int lead = leading_dims(x, attrs.normalized_ndim, backend);
  const int k = attrs.normalized_ndim;
  if (!same_sizes(g, x.ndim, x.sizes)) invalid(backend, "rms_norm_backward grad_out must have x's shape");
  check_dtype(g, x.dtype, "rms_norm_backward grad_out", backend);
  check_rstd(rstd, x, lead, backend);
  if (dx != nullptr && !same_sizes(*dx, x.ndim, x.sizes))
    invalid(backend, "rms_norm_backward grad_input must have x's shape");
  check_weight(w, x, lead, "rms_norm_backward", backend);
  if (dw != nullptr) {
    if (w == nullptr) invalid(backend, "rms_norm_backward: grad_weight requested without a weight");
    if (!same_sizes(*dw, k, x.sizes + lead))
      invalid(backend, "rms_norm_backward grad_weight must have the weight's shape");
    check_dtype(*dw, w->dtype, "rms_norm_backward grad_weight", backend);
  }
  return {g, x, rstd, w, dx, dw, lead, k};
}

const int64_t* zero_strides() {
  static const int64_t zeros[kMaxDims] = {};
  return zeros;
}

}  // namespace xd::xpu
