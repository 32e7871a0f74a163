// Pooling: max_pool2d and max_pool2d_with_indices (XD_OP_MAX_POOL2D, the indices output present
// only when asked for) and avg_pool2d (XD_OP_AVG_POOL2D). meta_pool2d validates the arguments
// where PyTorch raises (aten's pooling_output_shape and pool2d_shape_check) and computes the output
// size; the public functions view an unbatched [C, H, W] input and its outputs as [1, C, H, W], so
// kernels only see rank 4, with any strides.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <string>

namespace xd {

using namespace detail;

namespace detail {

namespace {

using Pair = std::array<int64_t, 2>;

std::string pair_str(const Pair& p) { return "[" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + "]"; }

// One argument as an [H, W] pair: one int stands for both dims; `fallback` is what an empty list
// means (stride: the kernel size), nullptr when an empty list is an error.
Pair pair_of(const char* op, const char* arg, IntList v, const Pair* fallback) {
  if (v.empty() && fallback != nullptr) return *fallback;
  if (v.size() != 1 && v.size() != 2)
    throw ValueError(std::string(op) + ": " + arg + " must be " + (fallback ? "omitted (empty), " : "") +
                     "a single int or a list of two ints [H, W], got " + std::to_string(v.size()) + " ints");
  const Pair p{v[0], v.size() == 1 ? v[0] : v[1]};
  // PyTorch's pooling narrows these to int (max_pool2d raises "integer out of range" past it);
  // the bound also keeps the size arithmetic below far from int64 overflow.
  for (int64_t x : p)
    if (x > std::numeric_limits<int32_t>::max() || x < std::numeric_limits<int32_t>::min())
      throw ValueError(std::string(op) + ": " + arg + " " + pair_str(p) +
                       " is out of range (each must fit in 32 bits)");
  return p;
}

void check_at_least(const char* op, const char* arg, const Pair& p, int64_t least, const char* what) {
  if (p[0] < least || p[1] < least)
    throw ValueError(std::string(op) + ": " + arg + " must be " + what + ", got " + pair_str(p));
}

// Floor division (PyTorch's div_rtn): the numerator may be negative, the divisor is positive.
int64_t div_floor(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// PyTorch's pooling_output_shape: with ceil_mode the last window must start inside the input or
// its left padding.
int64_t output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  int64_t out = div_floor(in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace

MetaResult meta_pool2d(const MetaArgs& m) {
  const char* op = m.name;
  const bool max = m.op == XD_OP_MAX_POOL2D;
  const Pool2dAttrs& at = attrs_of<Pool2dAttrs>(m);
  const TensorImpl& a = checked_impl(*m.inputs[0], op, "self");
  check_dtype(op, "self", a.dtype, kFloat);
  if (a.ndim != 3 && a.ndim != 4)
    throw ShapeError(std::string(op) + ": 'self' must be 3-d [C, H, W] or 4-d [N, C, H, W], got " +
                     std::to_string(a.ndim) + "-d " + shape_str(a.sizes, a.ndim));
  const Pair kernel = pair_of(op, "kernel_size", at.kernel_size, nullptr);
  const Pair stride = pair_of(op, "stride", at.stride, &kernel);
  const Pair padding = pair_of(op, "padding", at.padding, nullptr);
  const Pair one{1, 1};
  const Pair dilation = max ? pair_of(op, "dilation", at.dilation, nullptr) : one;
  check_at_least(op, "kernel_size", kernel, 1, "positive");
  check_at_least(op, "stride", stride, 1, "positive");
  check_at_least(op, "dilation", dilation, 1, "positive");
  check_at_least(op, "padding", padding, 0, "non-negative");
  for (int d = 0; d < 2; ++d) {
    const int64_t effective = (kernel[d] - 1) * dilation[d] + 1;
    if (padding[d] > effective / 2)
      throw ValueError(std::string(op) + ": padding " + pair_str(padding) +
                       " must be at most half the effective kernel size " +
                       pair_str({(kernel[0] - 1) * dilation[0] + 1, (kernel[1] - 1) * dilation[1] + 1}) +
                       " ((kernel_size - 1) * dilation + 1), rounded down");
  }
  if (!max && at.divisor_override && *at.divisor_override == 0)
    throw ValueError(std::string(op) + ": divisor_override must be non-zero (omit it for the window's size)");
  const int lead = a.ndim - 3;  // 1 for a batch dim
  const int64_t C = a.sizes[lead], H = a.sizes[lead + 1], W = a.sizes[lead + 2];
  if (C == 0 || H == 0 || W == 0)
    throw ShapeError(std::string(op) + ": 'self' " + shape_str(a.sizes, a.ndim) +
                     " has a size-0 C, H or W dim; only the batch dim N may be 0");
  const int64_t Ho = output_size(H, kernel[0], padding[0], stride[0], dilation[0], at.ceil_mode);
  const int64_t Wo = output_size(W, kernel[1], padding[1], stride[1], dilation[1], at.ceil_mode);
  if (Ho < 1 || Wo < 1)
    throw ShapeError(std::string(op) + ": Output size is too small: input (C x H x W) " + std::to_string(C) + "x" +
                     std::to_string(H) + "x" + std::to_string(W) + " gives " + std::to_string(C) + "x" +
                     std::to_string(Ho) + "x" + std::to_string(Wo) + " with kernel_size " + pair_str(kernel) +
                     ", stride " + pair_str(stride) + ", padding " + pair_str(padding) +
                     (max ? ", dilation " + pair_str(dilation) : std::string()));
  int64_t sizes[4];
  for (int i = 0; i < lead; ++i) sizes[i] = a.sizes[i];
  sizes[lead] = C;
  sizes[lead + 1] = Ho;
  sizes[lead + 2] = Wo;
  MetaResult r;
  r.device = &a.device_record();
  r.key = a.dtype;
  add_output(r, sizes, a.ndim, a.dtype);
  if (max) {
    if (at.return_indices)
      add_output(r, sizes, a.ndim, Dtype::i64);
    else
      add_absent_output(r);
  }
  xd_attrs_pool2d& k = r.kernel_attrs.pool2d;
  k = xd_attrs_pool2d{};
  k.struct_size = sizeof k;
  for (int d = 0; d < 2; ++d) {
    k.kernel[d] = kernel[d];
    k.stride[d] = stride[d];
    k.padding[d] = padding[d];
    k.dilation[d] = dilation[d];
  }
  k.ceil_mode = at.ceil_mode ? 1 : 0;
  k.count_include_pad = !max && at.count_include_pad ? 1 : 0;
  k.divisor_override = max ? 0 : at.divisor_override.value_or(0);
  r.has_kernel_attrs = true;
  return r;
}

}  // namespace detail

namespace {

// The kernels' [N, C, H, W] view: an unbatched [C, H, W] tensor as [1, C, H, W].
Tensor batched(const Tensor& t) { return t.dim() == 3 ? t.unsqueeze(0) : t; }

std::tuple<Tensor, Tensor> max_pool(const char* name, const Tensor& input, const Pool2dAttrs& at) {
  const MetaResult m = run_meta(XD_OP_MAX_POOL2D, name, {&input}, at);
  const Tensor out(allocate_output(m, 0));
  auto ind = allocate_output(m, 1);
  const Tensor indices = ind ? Tensor(std::move(ind)) : Tensor();
  if (out.numel() > 0)
    launch(XD_OP_MAX_POOL2D, m.key, *m.device, {arg(checked(batched(input)))},
           {arg(checked(batched(out))), indices.defined() ? arg(checked(batched(indices))) : arg_absent()},
           m.kernel_attrs_ptr());
  return {out, indices};
}

}  // namespace

Tensor max_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, IntList dilation,
                  bool ceil_mode) {
  return std::get<0>(
      max_pool("max_pool2d", input, Pool2dAttrs{kernel_size, stride, padding, dilation, ceil_mode, true, {}, false}));
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntList kernel_size, IntList stride,
                                                   IntList padding, IntList dilation, bool ceil_mode) {
  return max_pool("max_pool2d_with_indices", input,
                  Pool2dAttrs{kernel_size, stride, padding, dilation, ceil_mode, true, {}, true});
}

Tensor avg_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const MetaResult m =
      run_meta(XD_OP_AVG_POOL2D, "avg_pool2d", {&input},
               Pool2dAttrs{kernel_size, stride, padding, {1}, ceil_mode, count_include_pad, divisor_override, false});
  const Tensor out(allocate_output(m, 0));
  if (out.numel() > 0)
    launch(XD_OP_AVG_POOL2D, m.key, *m.device, {arg(checked(batched(input)))}, {arg(checked(batched(out)))},
           m.kernel_attrs_ptr());
  return out;
}

}  // namespace xd
