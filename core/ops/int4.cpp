// weight_int4_mm, quantize_int4 and dequantize_int4: int4 weight-only matmul, the quantizer that
// produces its operands and their inverse (layout and rounding rules: docs/ops/int4.md, ops.hpp).
// dequantize_int4 is composed of public ops, so every backend runs it with no kernel of its own; it
// shares weight_int4_mm's checks of the packed weight, scales and zero points.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

namespace xd {

using namespace detail;

namespace detail {

namespace {

constexpr DtypeSet kInt4MmDtypes = {Dtype::f32, Dtype::f16, Dtype::bf16};
constexpr DtypeSet kQuantizeDtypes = {Dtype::f32, Dtype::bf16};

std::string str(int64_t v) { return std::to_string(v); }

void check_group_size(const char* op, int64_t g) {
  if (g <= 0 || g % 32 != 0)
    throw ValueError(std::string(op) + ": group_size must be a positive multiple of 32, got " + str(g));
}

// K even and a multiple of the group size (so K/2 bytes per row and K/g groups).
void check_k(const char* op, const char* arg, const TensorImpl& t, int64_t k, int64_t g) {
  if (k % 2 != 0)
    throw ShapeError(std::string(op) + ": '" + arg + "' " + shape_str(t.sizes, t.ndim) + " has K = " + str(k) +
                     ", which is odd; two int4 values share a byte, so K must be even");
  if (k % g != 0)
    throw ShapeError(std::string(op) + ": '" + arg + "' " + shape_str(t.sizes, t.ndim) + " has K = " + str(k) +
                     ", which is not a multiple of group_size " + str(g));
}

void check_shape(const char* op, const char* arg, const TensorImpl& t, int64_t rows, int64_t cols, const char* what) {
  check_ndim(op, arg, t, 2);
  if (t.sizes[0] != rows || t.sizes[1] != cols)
    throw ShapeError(std::string(op) + ": '" + arg + "' must be " + what + " = [" + str(rows) + ", " + str(cols) +
                     "], got " + shape_str(t.sizes, t.ndim));
}

// The packed weight: u8 and 2-d ([N, K/2]; the caller checks K/2).
void check_packed(const char* op, const char* arg, const TensorImpl& t) {
  if (t.dtype != Dtype::u8)
    throw DtypeError(std::string(op) + ": '" + arg + "' has dtype " + dtype_name(t.dtype) +
                     ", but it holds packed int4 pairs and must be u8 (quantize_int4 makes it)");
  check_ndim(op, arg, t, 2);
}

// scales (dtype checked by the caller) and zeros: [K/g, N], zeros i8.
void check_groups(const char* op, const TensorImpl& is, const TensorImpl& iz, int64_t k, int64_t g, int64_t n) {
  check_shape(op, "scales", is, k / g, n, "[K/group_size, N]");
  if (iz.dtype != Dtype::i8)
    throw DtypeError(std::string(op) + ": 'zeros' has dtype " + dtype_name(iz.dtype) +
                     ", but zero points are i8 (values 0..15)");
  check_shape(op, "zeros", iz, k / g, n, "[K/group_size, N]");
}

xd_attrs_int4 kernel_attrs_of(int64_t g) {
  xd_attrs_int4 a{};
  a.struct_size = sizeof a;
  a.group_size = g;
  return a;
}

}  // namespace

MetaResult meta_weight_int4_mm(const MetaArgs& m) {
  const char* op = "weight_int4_mm";
  const int64_t group_size = attrs_of<Int4Attrs>(m).group_size;
  const TensorImpl& ix = checked_impl(*m.inputs[0], op, "input");
  const TensorImpl& iw = checked_impl(*m.inputs[1], op, "weight");
  const TensorImpl& is = checked_impl(*m.inputs[2], op, "scales");
  const TensorImpl& iz = checked_impl(*m.inputs[3], op, "zeros");
  check_same_device(op, "input", ix, "weight", iw);
  check_same_device(op, "input", ix, "scales", is);
  check_same_device(op, "input", ix, "zeros", iz);
  check_group_size(op, group_size);
  check_dtype(op, "input", ix.dtype, kInt4MmDtypes);
  check_ndim(op, "input", ix, 2);
  const int64_t mm = ix.sizes[0], k = ix.sizes[1];
  check_k(op, "input", ix, k, group_size);
  check_packed(op, "weight", iw);
  const int64_t n = iw.sizes[0];
  if (iw.sizes[1] != k / 2)
    throw ShapeError(std::string(op) + ": 'weight' " + shape_str(iw.sizes, 2) + " must be [N, K/2] = [" + str(n) +
                     ", " + str(k / 2) + "] for input " + shape_str(ix.sizes, 2) + " (two int4 values per byte)");
  check_same_dtype(op, "input", ix, "scales", is);
  check_groups(op, is, iz, k, group_size, n);
  MetaResult r;
  r.device = &ix.device_record();
  r.key = ix.dtype;
  const int64_t shape[2] = {mm, n};
  add_output(r, shape, 2, ix.dtype);
  r.kernel_attrs.int4 = kernel_attrs_of(group_size);
  r.has_kernel_attrs = true;
  return r;
}

MetaResult meta_quantize_int4(const MetaArgs& m) {
  const char* op = "quantize_int4";
  const int64_t group_size = attrs_of<Int4Attrs>(m).group_size;
  const TensorImpl& iw = checked_impl(*m.inputs[0], op, "weight");
  check_group_size(op, group_size);
  check_dtype(op, "weight", iw.dtype, kQuantizeDtypes);
  check_ndim(op, "weight", iw, 2);
  const int64_t n = iw.sizes[0], k = iw.sizes[1];
  check_k(op, "weight", iw, k, group_size);
  MetaResult r;
  r.device = &iw.device_record();
  r.key = iw.dtype;
  const int64_t packed[2] = {n, k / 2}, groups[2] = {k / group_size, n};
  add_output(r, packed, 2, Dtype::u8);
  add_output(r, groups, 2, iw.dtype);
  add_output(r, groups, 2, Dtype::i8);
  r.kernel_attrs.int4 = kernel_attrs_of(group_size);
  r.has_kernel_attrs = true;
  return r;
}

}  // namespace detail

Tensor weight_int4_mm(const Tensor& input, const Tensor& weight, const Tensor& scales, const Tensor& zeros,
                      int64_t group_size) {
  const MetaResult m =
      run_meta(XD_OP_WEIGHT_INT4_MM, "weight_int4_mm", {&input, &weight, &scales, &zeros}, Int4Attrs{group_size});
  // K = 0: an empty sum, as mm gives.
  if (input.size(1) == 0) return xd::zeros(m.outputs[0].shape(), m.outputs[0].dtype, input.device());
  auto out = allocate_output(m, 0);
  if (out->numel > 0) {
    // The kernels take dense row-major operands: the weight rows are streamed with wide loads.
    const Tensor x = input.contiguous(), w = weight.contiguous(), s = scales.contiguous(), z = zeros.contiguous();
    launch(XD_OP_WEIGHT_INT4_MM, m.key, *m.device, {arg(checked(x)), arg(checked(w)), arg(checked(s)), arg(checked(z))},
           {arg(*out)}, m.kernel_attrs_ptr());
  }
  return Tensor(std::move(out));
}

std::tuple<Tensor, Tensor, Tensor> quantize_int4(const Tensor& weight, int64_t group_size) {
  const MetaResult m = run_meta(XD_OP_QUANTIZE_INT4, "quantize_int4", {&weight}, Int4Attrs{group_size});
  auto packed = allocate_output(m, 0);
  auto scales = allocate_output(m, 1);
  auto zeros = allocate_output(m, 2);
  if (checked(weight).numel > 0) {
    const Tensor w = weight.contiguous();
    launch(XD_OP_QUANTIZE_INT4, m.key, *m.device, {arg(checked(w))}, {arg(*packed), arg(*scales), arg(*zeros)},
           m.kernel_attrs_ptr());
  }
  return {Tensor(std::move(packed)), Tensor(std::move(scales)), Tensor(std::move(zeros))};
}

Tensor dequantize_int4(const Tensor& packed, const Tensor& scales, const Tensor& zeros, int64_t group_size) {
  const char* op = "dequantize_int4";
  const TensorImpl& ip = checked_impl(packed, op, "packed");
  const TensorImpl& is = checked_impl(scales, op, "scales");
  const TensorImpl& iz = checked_impl(zeros, op, "zeros");
  check_same_device(op, "packed", ip, "scales", is);
  check_same_device(op, "packed", ip, "zeros", iz);
  check_group_size(op, group_size);
  check_packed(op, "packed", ip);
  const int64_t n = ip.sizes[0], k = 2 * ip.sizes[1], g = group_size;
  check_k(op, "packed", ip, k, g);
  check_dtype(op, "scales", is.dtype, kInt4MmDtypes);
  check_groups(op, is, iz, k, g, n);
  const Dtype d = is.dtype;
  if (n == 0 || k == 0) return empty({n, k}, d, packed.device());
  // Codes, zero points and scales in f32, all exact: byte = 16 * hi + lo, so hi = floor(byte / 16)
  // (a division by a power of two) and lo = byte - 16 * hi; the low nibble is the even k.
  const Tensor bytes = packed.to(Dtype::f32);
  const Tensor hi = floor(div(bytes, full({}, 16.0, Dtype::f32, packed.device())));
  const Tensor q = stack({sub(bytes, hi, 16.0), hi}, -1).reshape({n, k / g, g});
  // [K/g, N] -> [N, K/g, 1], broadcast over a group's g codes. (q - zero) is an integer of at most
  // 8 bits and an f16 or bf16 scale has at most 11 significant bits, so the f32 product is exact
  // for them and rounded once for f32 scales; the final .to(d) is then the only rounding.
  const Tensor z = zeros.to(Dtype::f32).t().unsqueeze(2);
  const Tensor s = scales.to(Dtype::f32).t().unsqueeze(2);
  return mul(sub(q, z), s).reshape({n, k}).to(d);
}

}  // namespace xd
