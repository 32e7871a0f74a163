// Quantised matmuls and the saturating fp8 cast: int_mm, scaled_mm, cast(..., CastMode::saturate).
// Semantics are PyTorch's torch._int_mm and torch._scaled_mm (ops.hpp documents them).
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

constexpr DtypeSet kFp8 = dtypes::fp8;
constexpr DtypeSet kScaledOut = {Dtype::f32, Dtype::f16, Dtype::bf16};

// Both operands 2-d on one device, a's columns matching b's rows.
void check_operands(const char* op, const TensorImpl& a, const TensorImpl& b) {
  check_same_device(op, "self", a, "mat2", b);
  check_ndim(op, "self", a, 2);
  check_ndim(op, "mat2", b, 2);
  if (a.sizes[1] != b.sizes[0])
    throw ShapeError(std::string(op) + ": 'self' " + shape_str(a.sizes, 2) + " and 'mat2' " + shape_str(b.sizes, 2) +
                     " cannot be multiplied (" + std::to_string(a.sizes[1]) + " columns vs " +
                     std::to_string(b.sizes[0]) + " rows)");
}

bool has_shape(const TensorImpl& t, std::initializer_list<int64_t> s) {
  return t.ndim == static_cast<int>(s.size()) && std::equal(s.begin(), s.end(), t.sizes);
}

// Tensor-wise (one element each) or row-wise (scale_a [M,1], scale_b [1,N]) scales, f32.
void check_scales(const char* op, const TensorImpl& a, const TensorImpl& b, const TensorImpl& sa,
                  const TensorImpl& sb) {
  check_same_device(op, "scale_a", sa, "self", a);
  check_same_device(op, "scale_b", sb, "self", a);
  check_dtype(op, "scale_a", sa.dtype, DtypeSet{Dtype::f32});
  check_dtype(op, "scale_b", sb.dtype, DtypeSet{Dtype::f32});
  const int64_t m = a.sizes[0], n = b.sizes[1];
  const bool tensorwise = sa.numel == 1 && sb.numel == 1 && sa.ndim <= 2 && sb.ndim <= 2;
  const bool rowwise = has_shape(sa, {m, 1}) && has_shape(sb, {1, n});
  if (!tensorwise && !rowwise)
    throw ShapeError(std::string(op) + ": scale_a " + shape_str(sa.sizes, sa.ndim) + " and scale_b " +
                     shape_str(sb.sizes, sb.ndim) + " are neither tensor-wise (one element each, e.g. [] or [1]) nor " +
                     "row-wise (scale_a [" + std::to_string(m) + ", 1] and scale_b [1, " + std::to_string(n) +
                     "]) for self " + shape_str(a.sizes, 2) + " and mat2 " + shape_str(b.sizes, 2));
}

// bias: [N], of out_dtype or bf16 (PyTorch's rule on CUDA).
void check_bias(const char* op, const TensorImpl& a, const TensorImpl& bias, int64_t n, Dtype out_dtype) {
  check_same_device(op, "bias", bias, "self", a);
  if (bias.dtype != out_dtype && bias.dtype != Dtype::bf16)
    throw DtypeError(std::string(op) + ": 'bias' has dtype " + dtype_name(bias.dtype) + ", but with out_dtype " +
                     dtype_name(out_dtype) + " it must be " + dtype_name(out_dtype) + " or bf16");
  if (!has_shape(bias, {n}))
    throw ShapeError(std::string(op) + ": 'bias' " + shape_str(bias.sizes, bias.ndim) +
                     " must be 1-d of size N = " + std::to_string(n) + " (mat2's columns)");
}

}  // namespace

MetaResult meta_int_mm(const MetaArgs& m) {
  const char* op = "int_mm";
  const TensorImpl& ia = checked_impl(*m.inputs[0], op, "self");
  const TensorImpl& ib = checked_impl(*m.inputs[1], op, "mat2");
  check_dtype(op, "self", ia.dtype, DtypeSet{Dtype::i8});
  check_dtype(op, "mat2", ib.dtype, DtypeSet{Dtype::i8});
  check_operands(op, ia, ib);
  MetaResult r;
  r.device = &ia.device_record();
  r.key = Dtype::i8;
  const int64_t shape[2] = {ia.sizes[0], ib.sizes[1]};
  add_output(r, shape, 2, Dtype::i32);
  return r;
}

MetaResult meta_scaled_mm(const MetaArgs& m) {
  const char* op = "scaled_mm";
  const ScaledMmAttrs& attrs = attrs_of<ScaledMmAttrs>(m);
  const Dtype out_dtype = attrs.out_dtype;
  check_dtype_value(out_dtype, op);
  const TensorImpl& ia = checked_impl(*m.inputs[0], op, "self");
  const TensorImpl& ib = checked_impl(*m.inputs[1], op, "mat2");
  const TensorImpl& isa = checked_impl(*m.inputs[2], op, "scale_a");
  const TensorImpl& isb = checked_impl(*m.inputs[3], op, "scale_b");
  check_dtype(op, "self", ia.dtype, kFp8);
  check_dtype(op, "mat2", ib.dtype, kFp8);
  if (!kScaledOut.contains(out_dtype))
    throw DtypeError(std::string(op) + ": out_dtype " + dtype_name(out_dtype) + " is not supported; use " +
                     dtype_set_str(kScaledOut));
  check_operands(op, ia, ib);
  check_scales(op, ia, ib, isa, isb);
  const int64_t shape[2] = {ia.sizes[0], ib.sizes[1]};
  if (const Tensor* bias = m.inputs[4]) check_bias(op, ia, bias->impl(), shape[1], out_dtype);
  MetaResult r;
  r.device = &ia.device_record();
  r.key = ia.dtype;
  add_output(r, shape, 2, out_dtype);
  xd_attrs_scaled_mm& k = r.kernel_attrs.scaled_mm;
  k = xd_attrs_scaled_mm{};
  k.struct_size = sizeof k;
  k.use_fast_accum = attrs.use_fast_accum ? 1 : 0;
  r.has_kernel_attrs = true;
  return r;
}

}  // namespace detail

Tensor int_mm(const Tensor& a, const Tensor& b) {
  const MetaResult m = run_meta(XD_OP_INT_MM, "int_mm", {&a, &b}, NoAttrs{});
  auto out = allocate_output(m, 0);
  if (out->numel > 0) launch(XD_OP_INT_MM, m.key, *m.device, {arg(checked(a)), arg(checked(b))}, {arg(*out)}, nullptr);
  return Tensor(std::move(out));
}

Tensor scaled_mm(const Tensor& a, const Tensor& b, const Tensor& scale_a, const Tensor& scale_b,
                 const std::optional<Tensor>& bias, Dtype out_dtype, bool use_fast_accum) {
  const Tensor* ibias = bias && bias->defined() ? &*bias : nullptr;
  const MetaResult m = run_meta(XD_OP_SCALED_MM, "scaled_mm", {&a, &b, &scale_a, &scale_b, ibias},
                                ScaledMmAttrs{out_dtype, use_fast_accum});
  auto out = allocate_output(m, 0);
  if (out->numel > 0) {
    // Scales travel broadcast to [M, 1] and [1, N], whichever form (tensor-wise, row-wise) they have.
    const int64_t sa_shape[2] = {out->sizes[0], 1}, sb_shape[2] = {1, out->sizes[1]};
    launch(XD_OP_SCALED_MM, m.key, *m.device,
           {arg(checked(a)), arg(checked(b)), arg_broadcast(checked(scale_a), sa_shape, 2),
            arg_broadcast(checked(scale_b), sb_shape, 2), ibias != nullptr ? arg(checked(*ibias)) : arg_absent()},
           {arg(*out)}, m.kernel_attrs_ptr());
  }
  return Tensor(std::move(out));
}

double fp8_max(Dtype d) {
  check_dtype_value(d, "fp8_max");
  if (d == Dtype::f8e4m3fn) return 448.0;
  if (d == Dtype::f8e5m2) return 57344.0;
  throw DtypeError(std::string("fp8_max: ") + dtype_name(d) + " is not an fp8 dtype (f8e4m3fn, f8e5m2)");
}

Tensor cast(const Tensor& x, Dtype dtype, CastMode mode) {
  const char* op = "cast";
  const TensorImpl& ix = checked_impl(x, op, "self");
  check_dtype_value(dtype, op);
  if (mode == CastMode::standard) return x.to(dtype);
  if (!is_fp8(dtype))
    throw DtypeError(std::string(op) + ": CastMode::saturate targets an fp8 dtype (f8e4m3fn, f8e5m2), got " +
                     dtype_name(dtype) + "; use CastMode::standard");
  if (ix.dtype == Dtype::boolean)
    throw DtypeError(std::string(op) + ": a bool tensor cannot be cast with CastMode::saturate");
  // Clamping in the source precision is exact: both bounds are representable in f32 and f64, and
  // every other source is first widened to f32 exactly (f16, bf16, fp8) or rounded where its
  // value is beyond both bounds anyway (integers above 2^24). NaN fails both comparisons and
  // stays NaN; +-Inf become +-max. The composite runs on every backend that has gt/where/copy.
  const Tensor src = (ix.dtype == Dtype::f32 || ix.dtype == Dtype::f64) ? x : x.to(Dtype::f32);
  const double m = fp8_max(dtype);
  const Tensor hi = full({}, m, src.dtype(), src.device());
  const Tensor lo = full({}, -m, src.dtype(), src.device());
  const Tensor clamped = where(gt(src, hi), hi, where(lt(src, lo), lo, src));
  return clamped.to(dtype);
}

}  // namespace xd
