// conv2d (XD_OP_CONV2D): meta_conv2d validates the call as PyTorch's conv2d does (ranks, groups,
// channels, bias, stride/padding/dilation values, a kernel larger than the padded input) and
// computes the output's shape; the public functions turn an unbatched [C, H, W] input into a
// batch of one and padding "same" into explicit top/left padding with the output size kept.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

#include <string>

namespace xd {

using namespace detail;

namespace detail {

namespace {

constexpr const char* kOp = "conv2d";

std::string list_str(IntList l) {
  std::string s = "[";
  for (size_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + std::to_string(l[i]);
  return s + "]";
}

// `l` (1 or 2 values) as the two spatial values, PyTorch's expand_param_if_needed.
void expand2(IntList l, const char* what, int64_t out[2]) {
  if (l.size() != 1 && l.size() != 2)
    throw ValueError(std::string(kOp) + ": expected " + what +
                     " to be a single integer value or a list of 2 values to match the convolution dimensions, but "
                     "got " +
                     what + "=" + list_str(l));
  out[0] = l[0];
  out[1] = l.size() == 2 ? l[1] : l[0];
}

}  // namespace

MetaResult meta_conv2d(const MetaArgs& m) {
  const TensorImpl& in = checked_impl(*m.inputs[0], kOp, "input");
  const TensorImpl& w = checked_impl(*m.inputs[1], kOp, "weight");
  const TensorImpl* bias = m.inputs[2] != nullptr ? &checked_impl(*m.inputs[2], kOp, "bias") : nullptr;
  const Conv2dAttrs& a = attrs_of<Conv2dAttrs>(m);
  check_dtype(kOp, "input", in.dtype, kFloat);
  check_same_dtype(kOp, "input", in, "weight", w);
  check_same_device(kOp, "input", in, "weight", w);
  if (bias != nullptr) {
    check_same_dtype(kOp, "input", in, "bias", *bias);
    check_same_device(kOp, "input", in, "bias", *bias);
  }
  if (in.ndim != 4)
    throw ShapeError(std::string(kOp) +
                     ": expected a 4-d (batched) input [N, C, H, W] (the public function takes an "
                     "unbatched [C, H, W] too), but got input of size: " +
                     shape_str(in.sizes, in.ndim));
  if (w.ndim != 4)
    throw ShapeError(std::string(kOp) +
                     ": expected a 4-d weight [out_channels, in_channels / groups, kH, kW], but got "
                     "weight of size: " +
                     shape_str(w.sizes, w.ndim));
  int64_t stride[2], dilation[2], pad[2];
  expand2(a.stride, "stride", stride);
  expand2(a.dilation, "dilation", dilation);
  expand2(a.padding, "padding", pad);
  for (int d = 0; d < 2; ++d) {
    if (stride[d] <= 0)
      throw ValueError(std::string(kOp) + ": non-positive stride is not supported (stride=" + list_str(a.stride) + ")");
    if (dilation[d] <= 0)
      throw ValueError(std::string(kOp) + ": dilation should be greater than zero (dilation=" + list_str(a.dilation) +
                       ")");
    if (pad[d] < 0)
      throw ValueError(std::string(kOp) + ": negative padding is not supported (padding=" + list_str(a.padding) + ")");
  }
  if (a.groups <= 0)
    throw ValueError(std::string(kOp) + ": non-positive groups is not supported (groups=" + std::to_string(a.groups) +
                     ")");
  const int64_t N = in.sizes[0], C = in.sizes[1], H = in.sizes[2], W = in.sizes[3];
  const int64_t O = w.sizes[0], KH = w.sizes[2], KW = w.sizes[3];
  const std::string groups = std::to_string(a.groups);
  if (O % a.groups != 0)
    throw ShapeError(std::string(kOp) + ": given groups=" + groups + ", expected weight to be divisible by " + groups +
                     " at dimension 0, but got weight of size " + shape_str(w.sizes, w.ndim) + " instead");
  if (C != w.sizes[1] * a.groups)
    throw ShapeError(std::string(kOp) + ": given groups=" + groups + ", weight of size " + shape_str(w.sizes, w.ndim) +
                     ", expected input" + shape_str(in.sizes, in.ndim) + " to have " +
                     std::to_string(w.sizes[1] * a.groups) + " channels, but got " + std::to_string(C) +
                     " channels instead");
  if (bias != nullptr && (bias->ndim != 1 || bias->sizes[0] != O))
    throw ShapeError(std::string(kOp) + ": given weight of size " + shape_str(w.sizes, w.ndim) +
                     ", expected bias to be 1-dimensional with " + std::to_string(O) +
                     " elements, but got bias of size " + shape_str(bias->sizes, bias->ndim) + " instead");
  // Padding "same": the total d*(k-1), the smaller half on the top/left (PyTorch puts the odd one
  // at the bottom/right); the output keeps the input's size.
  if (a.same) {
    for (int d = 0; d < 2; ++d)
      if (stride[d] != 1)
        throw ValueError(std::string(kOp) + ": padding='same' is not supported for strided convolutions (stride=" +
                         list_str(a.stride) + ")");
    pad[0] = dilation[0] * (KH - 1) / 2;
    pad[1] = dilation[1] * (KW - 1) / 2;
  }
  const int64_t ek[2] = {dilation[0] * (KH - 1) + 1, dilation[1] * (KW - 1) + 1};
  const int64_t padded[2] = {a.same ? H + dilation[0] * (KH - 1) : H + 2 * pad[0],
                             a.same ? W + dilation[1] * (KW - 1) : W + 2 * pad[1]};
  if (padded[0] < ek[0] || padded[1] < ek[1])
    throw ShapeError(std::string(kOp) + ": calculated padded input size per channel: (" + std::to_string(padded[0]) +
                     " x " + std::to_string(padded[1]) + "). Kernel size: (" + std::to_string(ek[0]) + " x " +
                     std::to_string(ek[1]) + "). Kernel size can't be greater than actual input size");
  const int64_t sizes[4] = {N, O, (padded[0] - ek[0]) / stride[0] + 1, (padded[1] - ek[1]) / stride[1] + 1};
  MetaResult r;
  r.device = &in.device_record();
  r.key = in.dtype;
  add_output(r, sizes, 4, in.dtype);
  xd_attrs_conv2d& k = r.kernel_attrs.conv2d;
  k = xd_attrs_conv2d{};
  k.struct_size = sizeof k;
  for (int d = 0; d < 2; ++d) {
    k.stride[d] = stride[d];
    k.padding[d] = pad[d];
    k.dilation[d] = dilation[d];
  }
  k.groups = a.groups;
  r.has_kernel_attrs = true;
  return r;
}

}  // namespace detail

namespace {

Tensor conv2d_impl(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   const Conv2dAttrs& attrs) {
  // An unbatched [C, H, W] input is a batch of one, and the result drops it again (PyTorch).
  const bool unbatched = input.defined() && input.dim() == 3;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  const Tensor* bias_ptr = bias ? &*bias : nullptr;
  const MetaResult m = run_meta(XD_OP_CONV2D, kOp, {&x, &weight, bias_ptr}, attrs);
  const Tensor out(allocate_output(m, 0));
  if (out.numel() != 0)
    launch(XD_OP_CONV2D, m.key, *m.device,
           {arg(checked(x)), arg(checked(weight)), bias ? arg(checked(*bias)) : arg_absent()}, {arg(checked(out))},
           m.kernel_attrs_ptr());
  return unbatched ? out.squeeze(0) : out;
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntList stride,
              IntList padding, IntList dilation, int64_t groups) {
  return conv2d_impl(input, weight, bias, Conv2dAttrs{stride, padding, dilation, groups, false});
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntList stride,
              ConvPadding padding, IntList dilation, int64_t groups) {
  const int64_t zero[1] = {0};
  return conv2d_impl(input, weight, bias,
                     Conv2dAttrs{stride, IntList(zero, 1), dilation, groups, padding == ConvPadding::same});
}

}  // namespace xd
