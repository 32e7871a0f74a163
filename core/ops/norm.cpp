// rms_norm and rms_norm_backward (the contract: XD_OP_RMS_NORM and XD_OP_RMS_NORM_BACKWARD in
// include/xd/plugin_abi.h, and include/xd/ops.hpp; the backward formula as the CPU reference
// computes it: plugins/cpu/kernels/rms_norm_backward.cpp). Each runs its schema's meta function
// (below), allocates the outputs it describes and launches.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

#include <cfloat>
#include <cmath>
#include <limits>

namespace xd {

using namespace detail;

namespace detail {

namespace {

// Validates x against normalized_shape; returns k and fills the rstd shape.
int check_normalized(const char* op, const TensorImpl& x, IntList normalized_shape, int64_t* rstd_shape) {
  const int k = static_cast<int>(normalized_shape.size());
  if (k == 0) throw ValueError(std::string(op) + ": normalized_shape must name at least one trailing dim");
  if (k > x.ndim)
    throw ShapeError(std::string(op) + ": normalized_shape " + shape_str(normalized_shape.vec()) +
                     " has more dims than input " + shape_str(x.sizes, x.ndim));
  for (int i = 0; i < k; ++i) {
    if (x.sizes[x.ndim - k + i] != normalized_shape[static_cast<size_t>(i)])
      throw ShapeError(std::string(op) + ": input " + shape_str(x.sizes, x.ndim) +
                       " does not end in normalized_shape " + shape_str(normalized_shape.vec()));
  }
  for (int d = 0; d < x.ndim; ++d) rstd_shape[d] = d < x.ndim - k ? x.sizes[d] : 1;
  return k;
}

// rms_norm's weight may have any floating dtype (a bf16 x with an f32 weight, as mixed-precision
// models keep it): the kernels read it into the f32 (f64) compute type. same_dtype asks for x's.
void check_weight(const char* op, const TensorImpl& x, const TensorImpl& w, IntList normalized_shape,
                  bool same_dtype = true) {
  check_same_device(op, "input", x, "weight", w);
  if (same_dtype)
    check_same_dtype(op, "input", x, "weight", w);
  else
    check_dtype(op, "weight", w.dtype, kFloat);
  if (w.ndim != static_cast<int>(normalized_shape.size()) ||
      !std::equal(w.sizes, w.sizes + w.ndim, normalized_shape.begin()))
    throw ShapeError(std::string(op) + ": weight " + shape_str(w.sizes, w.ndim) + " must have normalized_shape " +
                     shape_str(normalized_shape.vec()));
}

Dtype acc_dtype(Dtype x) { return x == Dtype::f64 ? Dtype::f64 : Dtype::f32; }

}  // namespace

MetaResult meta_rms_norm(const MetaArgs& m) {
  const char* op = "rms_norm";
  const RmsNormAttrs& at = attrs_of<RmsNormAttrs>(m);
  const TensorImpl& ix = checked_impl(*m.inputs[0], op, "input");
  check_dtype(op, "input", ix.dtype, kFloat);
  int64_t rstd_shape[kMaxDims];
  const int k = check_normalized(op, ix, at.normalized_shape, rstd_shape);
  if (const Tensor* w = m.inputs[1]) check_weight(op, ix, w->impl(), at.normalized_shape, false);
  const double e = at.eps.value_or(ix.dtype == Dtype::f64 ? DBL_EPSILON : static_cast<double>(FLT_EPSILON));
  if (!(e >= 0) || !std::isfinite(e))
    throw ValueError("rms_norm: eps must be finite and >= 0, got " + std::to_string(e));
  MetaResult r;
  r.device = &ix.device_record();
  r.key = ix.dtype;
  add_output(r, ix.sizes, ix.ndim, ix.dtype);
  add_output(r, rstd_shape, ix.ndim, acc_dtype(ix.dtype));
  xd_attrs_rms_norm& a = r.kernel_attrs.rms_norm;
  a = xd_attrs_rms_norm{};
  a.struct_size = sizeof a;
  a.normalized_ndim = k;
  a.eps = e;
  r.has_kernel_attrs = true;
  return r;
}

MetaResult meta_rms_norm_backward(const MetaArgs& m) {
  const char* op = "rms_norm_backward";
  const RmsNormBackwardAttrs& at = attrs_of<RmsNormBackwardAttrs>(m);
  const TensorImpl& ig = checked_impl(*m.inputs[0], op, "grad_out");
  const TensorImpl& ix = checked_impl(*m.inputs[1], op, "input");
  const TensorImpl& ir = checked_impl(*m.inputs[2], op, "rstd");
  check_dtype(op, "input", ix.dtype, kFloat);
  check_same_device(op, "grad_out", ig, "input", ix);
  check_same_device(op, "rstd", ir, "input", ix);
  check_same_dtype(op, "grad_out", ig, "input", ix);
  if (ig.ndim != ix.ndim || !std::equal(ig.sizes, ig.sizes + ig.ndim, ix.sizes))
    throw ShapeError(std::string(op) + ": grad_out " + shape_str(ig.sizes, ig.ndim) + " must have input's shape " +
                     shape_str(ix.sizes, ix.ndim));
  int64_t rstd_shape[kMaxDims];
  check_normalized(op, ix, at.normalized_shape, rstd_shape);
  if (ir.dtype != acc_dtype(ix.dtype))
    throw DtypeError(std::string(op) + ": rstd must be " + dtype_name(acc_dtype(ix.dtype)) + " for " +
                     dtype_name(ix.dtype) + " input, got " + dtype_name(ir.dtype));
  if (ir.ndim != ix.ndim || !std::equal(ir.sizes, ir.sizes + ir.ndim, rstd_shape))
    throw ShapeError(std::string(op) + ": rstd " + shape_str(ir.sizes, ir.ndim) + " must have shape " +
                     shape_str(rstd_shape, ix.ndim) + " (as rms_norm returns it)");
  const TensorImpl* iw = m.inputs[3] != nullptr ? &m.inputs[3]->impl() : nullptr;
  if (iw != nullptr) check_weight(op, ix, *iw, at.normalized_shape, false);
  MetaResult r;
  r.device = &ix.device_record();
  r.key = ix.dtype;
  if (at.output_mask[0])
    add_output(r, ix.sizes, ix.ndim, ix.dtype);
  else
    add_absent_output(r);
  if (at.output_mask[1] && iw != nullptr)
    add_output(r, iw->sizes, iw->ndim, iw->dtype);
  else
    add_absent_output(r);
  xd_attrs_rms_norm_backward& a = r.kernel_attrs.rms_norm_backward;
  a = xd_attrs_rms_norm_backward{};
  a.struct_size = sizeof a;
  a.normalized_ndim = static_cast<int32_t>(at.normalized_shape.size());
  a.output_mask[0] = r.outputs[0].present ? 1 : 0;
  a.output_mask[1] = r.outputs[1].present ? 1 : 0;
  r.has_kernel_attrs = true;
  return r;
}

}  // namespace detail

namespace {
const Tensor* present(const std::optional<Tensor>& t) { return t && t->defined() ? &*t : nullptr; }
}  // namespace

std::tuple<Tensor, Tensor> rms_norm(const Tensor& x, IntList normalized_shape, const std::optional<Tensor>& weight,
                                    std::optional<double> eps) {
  const Tensor* w = present(weight);
  const MetaResult m = run_meta(XD_OP_RMS_NORM, "rms_norm", {&x, w}, RmsNormAttrs{normalized_shape, eps});
  auto y = allocate_output(m, 0);
  auto rstd = allocate_output(m, 1);
  if (y->numel > 0) {
    launch(XD_OP_RMS_NORM, m.key, *m.device, {arg(checked(x)), w ? arg(checked(*w)) : arg_absent()},
           {arg(*y), arg(*rstd)}, m.kernel_attrs_ptr());
  } else if (rstd->numel > 0) {
    // Rows of no elements (x [3, 0] over [0]): the mean of nothing is NaN, so rstd is NaN, as the
    // kernels give for such a row; no kernel runs on an empty x.
    Tensor r(std::move(rstd));
    return {Tensor(std::move(y)), full(r.sizes(), std::numeric_limits<double>::quiet_NaN(), r.dtype(), r.device())};
  }
  return {Tensor(std::move(y)), Tensor(std::move(rstd))};
}

std::tuple<Tensor, Tensor> rms_norm_backward(const Tensor& grad_out, const Tensor& x, IntList normalized_shape,
                                             const Tensor& rstd, const std::optional<Tensor>& weight,
                                             std::array<bool, 2> output_mask) {
  const Tensor* w = present(weight);
  const MetaResult m = run_meta(XD_OP_RMS_NORM_BACKWARD, "rms_norm_backward", {&grad_out, &x, &rstd, w},
                                RmsNormBackwardAttrs{normalized_shape, output_mask});
  auto dx = allocate_output(m, 0);
  auto dw = allocate_output(m, 1);
  // dw of an empty input is a sum over no rows: the kernel still writes its zeros.
  if ((dx || dw) && (checked(x).numel > 0 || dw))
    launch(XD_OP_RMS_NORM_BACKWARD, m.key, *m.device,
           {arg(checked(grad_out)), arg(checked(x)), arg(checked(rstd)), w ? arg(checked(*w)) : arg_absent()},
           {dx ? arg(*dx) : arg_absent(), dw ? arg(*dw) : arg_absent()}, m.kernel_attrs_ptr());
  return {dx ? Tensor(std::move(dx)) : Tensor(), dw ? Tensor(std::move(dw)) : Tensor()};
}

}  // namespace xd
