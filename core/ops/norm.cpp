// rms_norm, layer_norm and their backward ops (the contracts: XD_OP_RMS_NORM, XD_OP_LAYER_NORM and
// their _BACKWARD in include/xd/plugin_abi.h, and include/xd/ops.hpp; the backward formulas as the
// CPU reference computes them: plugins/cpu/kernels/rms_norm_backward.cpp and
// layer_norm_backward.cpp). Each runs its schema's meta function (below), allocates the outputs it
// describes and launches. The two norms share their checks: the normalized_shape against x, the
// weight (and bias), grad_out and the per-row statistics.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

#include <cfloat>
#include <cmath>
#include <iterator>
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

// The weight, or the bias (`name`): x's device, normalized_shape's shape, and x's dtype — or,
// with any_floating, any floating dtype: rms_norm's weight may be f32 beside a bf16 x, as
// mixed-precision models keep it, and its kernels read it into the f32 (f64) compute type.
void check_weight(const char* op, const TensorImpl& x, const TensorImpl& w, IntList normalized_shape,
                  const char* name = "weight", bool any_floating = false) {
  check_same_device(op, "input", x, name, w);
  if (any_floating)
    check_dtype(op, name, w.dtype, kFloat);
  else
    check_same_dtype(op, "input", x, name, w);
  if (w.ndim != static_cast<int>(normalized_shape.size()) ||
      !std::equal(w.sizes, w.sizes + w.ndim, normalized_shape.begin()))
    throw ShapeError(std::string(op) + ": " + name + " " + shape_str(w.sizes, w.ndim) + " must have normalized_shape " +
                     shape_str(normalized_shape.vec()));
}

Dtype acc_dtype(Dtype x) { return x == Dtype::f64 ? Dtype::f64 : Dtype::f32; }

// A backward's grad_out: x's device, dtype and shape.
void check_grad_out(const char* op, const TensorImpl& g, const TensorImpl& x) {
  check_same_device(op, "grad_out", g, "input", x);
  check_same_dtype(op, "grad_out", g, "input", x);
  if (g.ndim != x.ndim || !std::equal(g.sizes, g.sizes + g.ndim, x.sizes))
    throw ShapeError(std::string(op) + ": grad_out " + shape_str(g.sizes, g.ndim) + " must have input's shape " +
                     shape_str(x.sizes, x.ndim));
}

// A backward's per-row statistic (`name`: rstd or mean) as the forward `fwd` returns it.
void check_statistic(const char* op, const char* name, const TensorImpl& s, const TensorImpl& x,
                     const int64_t* stat_shape, const char* fwd) {
  check_same_device(op, name, s, "input", x);
  if (s.dtype != acc_dtype(x.dtype))
    throw DtypeError(std::string(op) + ": " + name + " must be " + dtype_name(acc_dtype(x.dtype)) + " for " +
                     dtype_name(x.dtype) + " input, got " + dtype_name(s.dtype));
  if (s.ndim != x.ndim || !std::equal(s.sizes, s.sizes + s.ndim, stat_shape))
    throw ShapeError(std::string(op) + ": " + name + " " + shape_str(s.sizes, s.ndim) + " must have shape " +
                     shape_str(stat_shape, x.ndim) + " (as " + fwd + " returns it)");
}

void check_eps(const char* op, double e) {
  if (!(e >= 0) || !std::isfinite(e))
    throw ValueError(std::string(op) + ": eps must be finite and >= 0, got " + std::to_string(e));
}

// xd_attrs_rms_norm, which both forward norms take.
void set_norm_attrs(MetaResult& r, int k, double eps) {
  xd_attrs_rms_norm& a = r.kernel_attrs.rms_norm;
  a = xd_attrs_rms_norm{};
  a.struct_size = sizeof a;
  a.normalized_ndim = k;
  a.eps = eps;
  r.has_kernel_attrs = true;
}

// A backward's grad_out (input 0) and input (input 1), checked; fills the statistics' shape.
const TensorImpl& check_backward(const char* op, const MetaArgs& m, IntList normalized_shape, int64_t* stat_shape) {
  const TensorImpl& ig = checked_impl(*m.inputs[0], op, "grad_out");
  const TensorImpl& ix = checked_impl(*m.inputs[1], op, "input");
  check_dtype(op, "input", ix.dtype, kFloat);
  check_grad_out(op, ig, ix);
  check_normalized(op, ix, normalized_shape, stat_shape);
  return ix;
}

// Optional input i (the weight, or the bias: `name`), checked against x; nullptr when absent.
const TensorImpl* parameter(const char* op, const MetaArgs& m, size_t i, const TensorImpl& x, IntList normalized_shape,
                            const char* name = "weight", bool any_floating = false) {
  if (m.inputs[i] == nullptr) return nullptr;
  const TensorImpl& p = m.inputs[i]->impl();
  check_weight(op, x, p, normalized_shape, name, any_floating);
  return &p;
}

// A forward's input (input 0): floating, ending in normalized_shape (stat_shape: its rows'
// shape); its weight (input 1), checked.
const TensorImpl& check_forward(const char* op, const MetaArgs& m, IntList normalized_shape, int64_t* stat_shape,
                                bool any_floating_weight = false) {
  const TensorImpl& ix = checked_impl(*m.inputs[0], op, "input");
  check_dtype(op, "input", ix.dtype, kFloat);
  check_normalized(op, ix, normalized_shape, stat_shape);
  parameter(op, m, 1, ix, normalized_shape, "weight", any_floating_weight);
  return ix;
}

// The result of a norm over x: its device, keyed on its dtype.
MetaResult norm_result(const TensorImpl& x) {
  MetaResult r;
  r.device = &x.device_record();
  r.key = x.dtype;
  return r;
}

// A forward's result: the output (x's shape and dtype), then `stats` statistics (rms_norm's rstd;
// layer_norm's mean and rstd), and the kernel's xd_attrs_rms_norm, after checking eps.
MetaResult forward_result(const char* op, const TensorImpl& x, const int64_t* stat_shape, int stats,
                          IntList normalized_shape, double eps) {
  check_eps(op, eps);
  MetaResult r = norm_result(x);
  add_output(r, x.sizes, x.ndim, x.dtype);
  for (int i = 0; i < stats; ++i) add_output(r, stat_shape, x.ndim, acc_dtype(x.dtype));
  set_norm_attrs(r, static_cast<int>(normalized_shape.size()), eps);
  return r;
}

// An optional output of a backward: present when asked for and (for the weight's and the bias's
// gradients) when its parameter `p` is given, with p's shape and dtype.
void add_masked_output(MetaResult& r, bool wanted, const TensorImpl* p) {
  if (wanted && p != nullptr)
    add_output(r, p->sizes, p->ndim, p->dtype);
  else
    add_absent_output(r);
}

// A backward's attribute struct A (xd_attrs_rms_norm_backward, xd_attrs_layer_norm_backward): the
// normalized dims and which outputs r has.
template <class A>
void set_backward_attrs(MetaResult& r, A& a, IntList normalized_shape) {
  a = A{};
  a.struct_size = sizeof a;
  a.normalized_ndim = static_cast<int32_t>(normalized_shape.size());
  for (size_t i = 0; i < std::size(a.output_mask); ++i) a.output_mask[i] = r.outputs[i].present ? 1 : 0;
  r.has_kernel_attrs = true;
}

// rms_norm_backward ([grad_out, input, rstd, weight?]) and layer_norm_backward ([grad_out, input,
// mean, rstd, weight?, bias?]): the checks and outputs (grad_input, grad_weight, and layer_norm's
// grad_bias, each as output_mask asks) and the kernel's attribute struct.
// Attrs: the backward's attribute struct; `a` the kernel's in KernelAttrs.
template <class Attrs, class A>
MetaResult meta_norm_backward(const MetaArgs& m, A KernelAttrs::*a, bool layer) {
  const Attrs& at = attrs_of<Attrs>(m);
  const IntList normalized_shape = at.normalized_shape;
  const char* op = layer ? "layer_norm_backward" : "rms_norm_backward";
  int64_t stat_shape[kMaxDims];
  const TensorImpl& ix = check_backward(op, m, normalized_shape, stat_shape);
  const size_t stats = layer ? 2 : 1;  // (mean and) rstd, from input 2 on
  for (size_t i = 0; i < stats; ++i) {
    const char* name = i + 1 == stats ? "rstd" : "mean";
    check_statistic(op, name, checked_impl(*m.inputs[2 + i], op, name), ix, stat_shape,
                    layer ? "layer_norm" : "rms_norm");
  }
  const TensorImpl* params[] = {&ix, parameter(op, m, 2 + stats, ix, normalized_shape, "weight", !layer),
                                layer ? parameter(op, m, 5, ix, normalized_shape, "bias") : nullptr};
  MetaResult r = norm_result(ix);
  for (size_t i = 0; i < stats + 1; ++i) add_masked_output(r, at.output_mask[i], params[i]);
  set_backward_attrs(r, r.kernel_attrs.*a, normalized_shape);
  return r;
}

}  // namespace

MetaResult meta_rms_norm(const MetaArgs& m) {
  const RmsNormAttrs& at = attrs_of<RmsNormAttrs>(m);
  int64_t rstd_shape[kMaxDims];
  const TensorImpl& ix = check_forward("rms_norm", m, at.normalized_shape, rstd_shape, true);
  const double e = at.eps.value_or(ix.dtype == Dtype::f64 ? DBL_EPSILON : static_cast<double>(FLT_EPSILON));
  return forward_result("rms_norm", ix, rstd_shape, 1, at.normalized_shape, e);
}

MetaResult meta_rms_norm_backward(const MetaArgs& m) {
  return meta_norm_backward<RmsNormBackwardAttrs>(m, &KernelAttrs::rms_norm_backward, false);
}

MetaResult meta_layer_norm(const MetaArgs& m) {
  const LayerNormAttrs& at = attrs_of<LayerNormAttrs>(m);
  int64_t stat_shape[kMaxDims];
  const TensorImpl& ix = check_forward("layer_norm", m, at.normalized_shape, stat_shape);
  parameter("layer_norm", m, 2, ix, at.normalized_shape, "bias");
  return forward_result("layer_norm", ix, stat_shape, 2, at.normalized_shape, at.eps);
}

MetaResult meta_layer_norm_backward(const MetaArgs& m) {
  return meta_norm_backward<LayerNormBackwardAttrs>(m, &KernelAttrs::layer_norm_backward, true);
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

std::tuple<Tensor, Tensor, Tensor> layer_norm(const Tensor& x, IntList normalized_shape,
                                              const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                                              double eps) {
  const Tensor* w = present(weight);
  const Tensor* b = present(bias);
  const MetaResult m = run_meta(XD_OP_LAYER_NORM, "layer_norm", {&x, w, b}, LayerNormAttrs{normalized_shape, eps});
  auto y = allocate_output(m, 0);
  auto mean = allocate_output(m, 1);
  auto rstd = allocate_output(m, 2);
  if (y->numel > 0) {
    launch(XD_OP_LAYER_NORM, m.key, *m.device,
           {arg(checked(x)), w ? arg(checked(*w)) : arg_absent(), b ? arg(checked(*b)) : arg_absent()},
           {arg(*y), arg(*mean), arg(*rstd)}, m.kernel_attrs_ptr());
  } else if (rstd->numel > 0) {
    // Rows of no elements (x [3, 0] over [0]): as PyTorch's kernel gives them, mean 0 and rstd
    // NaN (a variance of nothing); no kernel runs on an empty x.
    Tensor mt(std::move(mean)), rt(std::move(rstd));
    return {Tensor(std::move(y)), full(mt.sizes(), 0.0, mt.dtype(), mt.device()),
            full(rt.sizes(), std::numeric_limits<double>::quiet_NaN(), rt.dtype(), rt.device())};
  }
  return {Tensor(std::move(y)), Tensor(std::move(mean)), Tensor(std::move(rstd))};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& x,
                                                       IntList normalized_shape, const Tensor& mean, const Tensor& rstd,
                                                       const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& bias,
                                                       std::array<bool, 3> output_mask) {
  const Tensor* w = present(weight);
  const Tensor* b = present(bias);
  const MetaResult m = run_meta(XD_OP_LAYER_NORM_BACKWARD, "layer_norm_backward", {&grad_out, &x, &mean, &rstd, w, b},
                                LayerNormBackwardAttrs{normalized_shape, output_mask});
  auto dx = allocate_output(m, 0);
  auto dw = allocate_output(m, 1);
  auto db = allocate_output(m, 2);
  // dw and db of an empty input are sums over no rows: the kernel still writes their zeros.
  if ((dx || dw || db) && (checked(x).numel > 0 || dw || db))
    launch(XD_OP_LAYER_NORM_BACKWARD, m.key, *m.device,
           {arg(checked(grad_out)), arg(checked(x)), arg(checked(mean)), arg(checked(rstd)),
            w ? arg(checked(*w)) : arg_absent(), b ? arg(checked(*b)) : arg_absent()},
           {dx ? arg(*dx) : arg_absent(), dw ? arg(*dw) : arg_absent(), db ? arg(*db) : arg_absent()},
           m.kernel_attrs_ptr());
  const auto out = [](auto& t) { return t ? Tensor(std::move(t)) : Tensor(); };
  return {out(dx), out(dw), out(db)};
}

}  // namespace xd
