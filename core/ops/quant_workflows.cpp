// TorchAO's quantisation workflows (docs/ops/int8.md): the int8 weight-only matmul and its
// per-channel quantizer, int8 dynamic activation quantisation around int_mm, and the fp8 scale
// helper for scaled_mm. Each is composed of public ops (amax, div, round, clamp, cast, mm,
// int_mm), step for step as TorchAO's eager code computes it, so every backend runs them with the
// kernels conformance already checks and the roundings are TorchAO's. The argument checks come
// first, so a bad call fails with the helper's name instead of an inner op's.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "ops/meta.hpp"
#include "tensor/shape.hpp"

#include <limits>
#include <string>
#include <vector>

namespace xd {

using namespace detail;

namespace {

constexpr DtypeSet kActivation = {Dtype::f32, Dtype::f16, Dtype::bf16};

// A 0-d tensor of `v` beside t, for dividing by a constant through the broadcasting ops.
Tensor scalar_like(const Tensor& t, double v, Dtype d) { return full({}, v, d, t.device()); }

// input [..., K] (rank >= 1), weight i8 [N, K] and scales [N] on one device. Returns N.
// scales_of_input: scales must have input's dtype (else any floating dtype).
int64_t check_int8_linear(const char* op, const Tensor& input, const Tensor& weight, const Tensor& scales,
                          bool scales_of_input) {
  const TensorImpl& ix = checked_impl(input, op, "input");
  const TensorImpl& iw = checked_impl(weight, op, "weight");
  const TensorImpl& is = checked_impl(scales, op, "scales");
  check_dtype(op, "input", ix.dtype, kActivation);
  check_dtype(op, "weight", iw.dtype, DtypeSet{Dtype::i8});
  check_dtype(op, "scales", is.dtype, scales_of_input ? DtypeSet{ix.dtype} : kFloat);
  check_same_device(op, "weight", iw, "input", ix);
  check_same_device(op, "scales", is, "input", ix);
  if (ix.ndim == 0) throw ShapeError(std::string(op) + ": 'input' must have at least one dim [..., K], got 0-d");
  check_ndim(op, "weight", iw, 2);
  const int64_t k = ix.sizes[ix.ndim - 1], n = iw.sizes[0];
  if (iw.sizes[1] != k)
    throw ShapeError(std::string(op) + ": 'input' " + shape_str(ix.sizes, ix.ndim) + " has K = " + std::to_string(k) +
                     " but 'weight' " + shape_str(iw.sizes, 2) + " is [N, K] with K = " + std::to_string(iw.sizes[1]));
  if (is.ndim != 1 || is.sizes[0] != n)
    throw ShapeError(std::string(op) + ": 'scales' must be [N] = [" + std::to_string(n) +
                     "] (one per row of weight), got " + shape_str(is.sizes, is.ndim));
  return n;
}

// input's leading dims with the last one replaced by n.
std::vector<int64_t> linear_out_shape(const Tensor& input, int64_t n) {
  std::vector<int64_t> s(input.sizes().begin(), input.sizes().end());
  s.back() = n;
  return s;
}

}  // namespace

std::tuple<Tensor, Tensor> quantize_int8(const Tensor& weight) {
  const char* op = "quantize_int8";
  const TensorImpl& iw = checked_impl(weight, op, "weight");
  check_dtype(op, "weight", iw.dtype, kFloat);
  check_ndim(op, "weight", iw, 2);
  if (iw.sizes[1] == 0)
    throw ShapeError(std::string(op) + ": 'weight' " + shape_str(iw.sizes, 2) +
                     " has rows of no elements; a row's scale needs its max |w|");
  const Dtype d = iw.dtype;
  // TorchAO's dynamically_quantize_per_channel(w, -128, 127, torch.int8): the scale of a row is
  // max|w| / ((127 - -128) / 2), at least f32's epsilon, in w's dtype; q = clamp(round(w / s)).
  Tensor scales = div(amax(abs(weight), {1}), scalar_like(weight, 127.5, d));
  scales = clamp(scales, static_cast<double>(std::numeric_limits<float>::epsilon()));
  const Tensor q = clamp(round(div(weight, scales.unsqueeze(1))), -128.0, 127.0).to(Dtype::i8);
  return {q, scales};
}

Tensor weight_int8_mm(const Tensor& input, const Tensor& weight, const Tensor& scales) {
  const char* op = "weight_int8_mm";
  const int64_t n = check_int8_linear(op, input, weight, scales, true);
  // TorchAO's int8 weight-only linear in eager mode: the weight converted to the activation's
  // dtype, one mm (rounded to that dtype), then the per-channel scale (rounded again).
  const int64_t k = input.size(-1);
  const Tensor rows = input.reshape({-1, k});
  const Tensor y = mul(mm(rows, weight.to(input.dtype()).t()), scales);
  const std::vector<int64_t> s = linear_out_shape(input, n);
  return y.reshape(IntList(s.data(), s.size()));
}

std::tuple<Tensor, Tensor> quantize_per_token_int8(const Tensor& input) {
  const char* op = "quantize_per_token_int8";
  const TensorImpl& ix = checked_impl(input, op, "input");
  check_dtype(op, "input", ix.dtype, kFloat);
  if (ix.ndim == 0) throw ShapeError(std::string(op) + ": 'input' must have at least one dim [..., K], got 0-d");
  if (ix.sizes[ix.ndim - 1] == 0)
    throw ShapeError(std::string(op) + ": 'input' " + shape_str(ix.sizes, ix.ndim) +
                     " has rows of no elements; a token's scale needs its max |x|");
  // TorchAO's quantize_activation_per_token_absmax, with the scale kept in f32 for every input
  // dtype (TorchAO keeps bf16's in bf16): s = max(max|x|, 1e-5) / 127, q = clamp(round(x / s),
  // -127, 127), symmetric so that -128 never appears.
  const Tensor xf = input.to(Dtype::f32);
  const Tensor s = div(clamp(amax(abs(xf), {-1}, true), 1e-5), scalar_like(input, 127.0, Dtype::f32));
  const Tensor q = clamp(round(div(xf, s)), -127.0, 127.0).to(Dtype::i8);
  return {q, s};
}

Tensor int8_dynamic_mm(const Tensor& input, const Tensor& weight, const Tensor& scales) {
  const char* op = "int8_dynamic_mm";
  const int64_t n = check_int8_linear(op, input, weight, scales, false);
  const int64_t k = input.size(-1);
  if (k == 0)
    throw ShapeError(std::string(op) + ": 'input' " + shape_str(input.sizes()) +
                     " has K = 0; a token's scale needs its max |x|");
  const Tensor rows = input.reshape({-1, k});
  auto [q, s] = quantize_per_token_int8(rows);
  // Exact i32 sums, then both scales applied in f32 and the result rounded once to input's dtype.
  const Tensor acc = int_mm(q, weight.t()).to(Dtype::f32);
  const Tensor y = mul(mul(acc, s), scales.to(Dtype::f32)).to(input.dtype());
  const std::vector<int64_t> shape = linear_out_shape(input, n);
  return y.reshape(IntList(shape.data(), shape.size()));
}

std::tuple<Tensor, Tensor> quantize_fp8(const Tensor& x, Dtype fp8_dtype, std::optional<int64_t> dim) {
  const char* op = "quantize_fp8";
  const TensorImpl& ix = checked_impl(x, op, "input");
  check_dtype(op, "input", ix.dtype, kFloat);
  check_dtype(op, "fp8_dtype", fp8_dtype, dtypes::fp8);
  const Tensor xf = x.to(Dtype::f32);
  Tensor amax_abs;
  if (dim) {
    const int d = normalize_dim(*dim, ix.ndim, op);
    if (ix.ndim == 0)
      throw ShapeError(std::string(op) + ": a row-wise scale needs an input of at least one dim, got 0-d");
    if (ix.sizes[d] == 0)
      throw ShapeError(std::string(op) + ": 'input' " + shape_str(ix.sizes, ix.ndim) + " has no elements along dim " +
                       std::to_string(d) + "; a scale needs a max |x|");
    amax_abs = amax(abs(xf), {d}, true);
  } else {
    if (ix.numel == 0)
      throw ShapeError(std::string(op) + ": 'input' " + shape_str(ix.sizes, ix.ndim) +
                       " is empty; a tensor-wise scale needs a max |x|");
    amax_abs = amax(abs(xf));
  }
  // TorchAO's float8 recipe: scale = fp8_max / max(amax, 1e-12) in f32, x * scale cast with
  // saturation; scaled_mm takes the reciprocal, so that (q * inverse) approximates x.
  const Tensor scale = div(scalar_like(x, fp8_max(fp8_dtype), Dtype::f32), clamp(amax_abs, 1e-12));
  const Tensor q = cast(mul(xf, scale), fp8_dtype, CastMode::saturate);
  const Tensor inverse = div(scalar_like(x, 1.0, Dtype::f32), scale);
  return {q, inverse};
}

}  // namespace xd
