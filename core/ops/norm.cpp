// rms_norm and rms_norm_backward (semantics in DESIGN.md and ops.hpp).
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"

#include <cfloat>
#include <cmath>

namespace xd {

using namespace detail;

namespace {

// Validates x against normalized_shape; returns k and fills the rstd shape.
int check_normalized(const char* op, const TensorImpl& x, IntList normalized_shape, int64_t* rstd_shape) {
  const int k = static_cast<int>(normalized_shape.size());
  if (k == 0) throw ValueError(std::string(op) + ": normalized_shape must name at least one trailing dim");
  if (k > x.ndim)
    throw ShapeError(std::string(op) + ": normalized_shape " + shape_str(normalized_shape.vec()) + " has more dims than input " +
                     shape_str(x.sizes, x.ndim));
  for (int i = 0; i < k; ++i) {
    if (x.sizes[x.ndim - k + i] != normalized_shape[static_cast<size_t>(i)])
      throw ShapeError(std::string(op) + ": input " + shape_str(x.sizes, x.ndim) + " does not end in normalized_shape " +
                       shape_str(normalized_shape.vec()));
  }
  for (int d = 0; d < x.ndim; ++d) rstd_shape[d] = d < x.ndim - k ? x.sizes[d] : 1;
  return k;
}

void check_weight(const char* op, const TensorImpl& x, const TensorImpl& w, IntList normalized_shape) {
  check_same_device(op, "input", x, "weight", w);
  check_same_dtype(op, "input", x, "weight", w);
  if (w.ndim != static_cast<int>(normalized_shape.size()) ||
      !std::equal(w.sizes, w.sizes + w.ndim, normalized_shape.begin()))
    throw ShapeError(std::string(op) + ": weight " + shape_str(w.sizes, w.ndim) + " must have normalized_shape " +
                     shape_str(normalized_shape.vec()));
}

Dtype acc_dtype(Dtype x) { return x == Dtype::f64 ? Dtype::f64 : Dtype::f32; }

}  // namespace

std::tuple<Tensor, Tensor> rms_norm(const Tensor& x, IntList normalized_shape, const std::optional<Tensor>& weight,
                                    std::optional<double> eps) {
  const char* op = "rms_norm";
  const TensorImpl& ix = checked_impl(x, op, "input");
  check_dtype(op, "input", ix.dtype, kFloat);
  int64_t rstd_shape[kMaxDims];
  const int k = check_normalized(op, ix, normalized_shape, rstd_shape);
  const TensorImpl* iw = nullptr;
  if (weight && weight->defined()) {
    iw = &weight->impl();
    check_weight(op, ix, *iw, normalized_shape);
  }
  const double e = eps.value_or(ix.dtype == Dtype::f64 ? DBL_EPSILON : static_cast<double>(FLT_EPSILON));
  if (!(e >= 0) || !std::isfinite(e)) throw ValueError("rms_norm: eps must be finite and >= 0, got " + std::to_string(e));
  DeviceRecord& dev = ix.device_record();
  auto y = allocate_tensor(dev, IntList(ix.sizes, static_cast<size_t>(ix.ndim)), ix.dtype);
  auto rstd = allocate_tensor(dev, IntList(rstd_shape, static_cast<size_t>(ix.ndim)), acc_dtype(ix.dtype));
  if (ix.numel > 0) {
    xd_attrs_rms_norm a{};
    a.struct_size = sizeof a;
    a.normalized_ndim = k;
    a.eps = e;
    launch(XD_OP_RMS_NORM, ix.dtype, dev, {arg(ix), iw ? arg(*iw) : arg_absent()}, {arg(*y), arg(*rstd)}, &a);
  }
  return {Tensor(std::move(y)), Tensor(std::move(rstd))};
}

std::tuple<Tensor, Tensor> rms_norm_backward(const Tensor& grad_out, const Tensor& x, IntList normalized_shape,
                                             const Tensor& rstd, const std::optional<Tensor>& weight,
                                             std::array<bool, 2> output_mask) {
  const char* op = "rms_norm_backward";
  const TensorImpl& ig = checked_impl(grad_out, op, "grad_out");
  const TensorImpl& ix = checked_impl(x, op, "input");
  const TensorImpl& ir = checked_impl(rstd, op, "rstd");
  check_dtype(op, "input", ix.dtype, kFloat);
  check_same_device(op, "grad_out", ig, "input", ix);
  check_same_device(op, "rstd", ir, "input", ix);
  check_same_dtype(op, "grad_out", ig, "input", ix);
  if (ig.ndim != ix.ndim || !std::equal(ig.sizes, ig.sizes + ig.ndim, ix.sizes))
    throw ShapeError(std::string(op) + ": grad_out " + shape_str(ig.sizes, ig.ndim) + " must have input's shape " +
                     shape_str(ix.sizes, ix.ndim));
  int64_t rstd_shape[kMaxDims];
  check_normalized(op, ix, normalized_shape, rstd_shape);
  if (ir.dtype != acc_dtype(ix.dtype))
    throw DtypeError(std::string(op) + ": rstd must be " + dtype_name(acc_dtype(ix.dtype)) + " for " +
                     dtype_name(ix.dtype) + " input, got " + dtype_name(ir.dtype));
  if (ir.ndim != ix.ndim || !std::equal(ir.sizes, ir.sizes + ir.ndim, rstd_shape))
    throw ShapeError(std::string(op) + ": rstd " + shape_str(ir.sizes, ir.ndim) + " must have shape " +
                     shape_str(rstd_shape, ix.ndim) + " (as rms_norm returns it)");
  const TensorImpl* iw = nullptr;
  if (weight && weight->defined()) {
    iw = &weight->impl();
    check_weight(op, ix, *iw, normalized_shape);
  }
  DeviceRecord& dev = ix.device_record();
  std::shared_ptr<TensorImpl> dx, dw;
  if (output_mask[0]) dx = allocate_tensor(dev, IntList(ix.sizes, static_cast<size_t>(ix.ndim)), ix.dtype);
  if (output_mask[1] && iw != nullptr) dw = allocate_tensor(dev, IntList(iw->sizes, static_cast<size_t>(iw->ndim)), iw->dtype);
  if ((dx || dw) && (ix.numel > 0 || dw)) {
    xd_attrs_rms_norm_backward a{};
    a.struct_size = sizeof a;
    a.normalized_ndim = static_cast<int32_t>(normalized_shape.size());
    a.output_mask[0] = dx ? 1 : 0;
    a.output_mask[1] = dw ? 1 : 0;
    launch(XD_OP_RMS_NORM_BACKWARD, ix.dtype, dev, {arg(ig), arg(ix), arg(ir), iw ? arg(*iw) : arg_absent()},
           {dx ? arg(*dx) : arg_absent(), dw ? arg(*dw) : arg_absent()}, &a);
  }
  return {dx ? Tensor(std::move(dx)) : Tensor(), dw ? Tensor(std::move(dw)) : Tensor()};
}

}  // namespace xd
