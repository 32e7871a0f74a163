// The operations. Each validates its inputs (shapes, dtypes, devices, layouts) and throws the
// matching xd::Error subclass with a message saying what was expected and what was given;
// allocates its outputs on the inputs' device; and enqueues the kernel on that device's current
// stream. Results are PyTorch's semantics unless noted.
//
// Dtypes: inputs of binary ops must share one dtype (no implicit promotion: DtypeError).
// Broadcasting follows NumPy/PyTorch rules. Creation functions default to f32 on default_device().
// Thread safety: any op may be called from any thread.
#pragma once

#include <xd/runtime.hpp>
#include <xd/tensor.hpp>

#include <array>
#include <optional>
#include <tuple>
#include <vector>

namespace xd {

// ------------------------------------------------------------------ creation
Tensor empty(IntList sizes, Dtype dtype = Dtype::f32, Device device = default_device());
Tensor zeros(IntList sizes, Dtype dtype = Dtype::f32, Device device = default_device());
Tensor ones(IntList sizes, Dtype dtype = Dtype::f32, Device device = default_device());
// `value` must fit `dtype`, as PyTorch's checked conversion demands (ValueError otherwise): an
// integer dtype's range (fractions truncate; u8 also takes -255..-1, wrapping as PyTorch does for
// a Python int), a floating dtype's largest finite value (+-Inf and NaN where the format has them).
Tensor full(IntList sizes, double value, Dtype dtype = Dtype::f32, Device device = default_device());
// [start, end) by step; integer dtypes count exactly. ValueError for step 0 or a wrong sign, and
// for an integer dtype when start, end (int64) or the last value (the dtype) does not fit.
Tensor arange(double start, double end, double step = 1.0, Dtype dtype = Dtype::f32,
              Device device = default_device());
Tensor arange(int64_t end, Dtype dtype = Dtype::i64, Device device = default_device());
// Philox4x32-10 (philox.hpp): the same seed gives the same numbers on every backend.
Tensor rand(IntList sizes, Dtype dtype = Dtype::f32, Device device = default_device(),
            Generator* generator = nullptr);
Tensor randn(IntList sizes, Dtype dtype = Dtype::f32, Device device = default_device(),
             Generator* generator = nullptr);
// A tensor holding `values` (row-major) with the given sizes.
template <class T>
Tensor tensor(const std::vector<T>& values, IntList sizes, Device device = default_device());
Tensor from_host(const void* data, Dtype dtype, IntList sizes, Device device);

// ------------------------------------------------------------------ pointwise
// alpha must fit the operands' dtype (integers) or their compute type (f32 for f32/f16/bf16):
// ValueError otherwise, as PyTorch.
Tensor add(const Tensor& a, const Tensor& b, double alpha = 1.0);
Tensor sub(const Tensor& a, const Tensor& b, double alpha = 1.0);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);  // floating dtypes only
Tensor pow(const Tensor& a, double exponent);  // floating dtypes only
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);  // cond is bool
Tensor eq(const Tensor& a, const Tensor& b);  // bool result
Tensor lt(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
// torch.ne, torch.ge, torch.le: bool results, broadcasting, one numeric dtype (ne also bool), as
// eq/lt/gt take. A NaN on either side makes ne true and ge/le false; -0 equals +0. Errors as add's:
// ShapeError when the shapes do not broadcast, DtypeError for mixed dtypes (or bool for ge/le),
// DeviceError for two devices.
Tensor ne(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
// Elementwise max / min of a and b, broadcasting, as torch.maximum / torch.minimum: a NaN in either
// gives NaN. f64 f32 f16 bf16 i8 u8 i32 i64; a and b of one dtype (DtypeError otherwise).
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor neg(const Tensor& a);
Tensor abs(const Tensor& a);
Tensor exp(const Tensor& a);
Tensor log(const Tensor& a);
Tensor sqrt(const Tensor& a);
Tensor rsqrt(const Tensor& a);
Tensor relu(const Tensor& a);
enum class GeluApproximate { none, tanh };
Tensor gelu(const Tensor& a, GeluApproximate approximate = GeluApproximate::none);
Tensor silu(const Tensor& a);
Tensor sigmoid(const Tensor& a);
Tensor tanh(const Tensor& a);
// torch.clamp with scalar bounds: min(max(a, min), max), elementwise; f64 f32 f16 bf16 i8 u8 i32
// i64. At least one bound must be given (ValueError otherwise, as PyTorch). Each bound is
// converted to a's dtype as PyTorch converts it: f32/f16/bf16 round it to the dtype (a value
// beyond the dtype's largest finite one is a ValueError; +-Inf is accepted); integer dtypes take
// whole values in their range (u8 also -255..-1, which wrap: min=-1 is 255), anything else is a
// ValueError (PyTorch would promote the result to a floating dtype; xdispatch does not promote).
// A NaN element stays NaN; min > max gives max everywhere; of equal values the element is kept
// (clamp(-0.0, min=0.0) is -0.0). NaN bounds as torch.clamp: with both bounds given, a NaN bound
// makes every element NaN; a lone NaN bound leaves a unchanged.
Tensor clamp(const Tensor& a, std::optional<double> min, std::optional<double> max = std::nullopt);
// torch.floor, exact: f64 f32 f16 bf16 (floor(-0.5) is -1, -0 stays -0, NaN and +-Inf kept);
// i8 u8 i32 i64 are returned as a copy, as PyTorch does. Bool and fp8: DtypeError.
Tensor floor(const Tensor& a);
// torch.round: half to even (round(0.5) is 0, round(2.5) is 2, round(-0.5) is -0). decimals d
// rounds to d decimal places as PyTorch computes it: rint(a * 10^d) / 10^d (d < 0: rint(a / 10^-d)
// * 10^-d), in float for f32/f16/bf16 (double for f64), rounded once to a's dtype; so the result
// is the float nearest the decimal, not the decimal, and 10^d overflowing gives NaN. Floating
// dtypes; i8 u8 i32 i64 with decimals 0 only (a copy), DtypeError for integers with decimals != 0.
Tensor round(const Tensor& a, int64_t decimals = 0);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);

// ------------------------------------------------------------------ reductions
// Over `dims` (empty: all dims), keeping reduced dims as size 1 when keepdim. Empty inputs: sum
// gives 0, mean NaN; amax/amin/argmax throw ShapeError on an empty reduced dim.
Tensor sum(const Tensor& a, IntList dims = {}, bool keepdim = false);
Tensor mean(const Tensor& a, IntList dims = {}, bool keepdim = false);  // floating only
Tensor amax(const Tensor& a, IntList dims = {}, bool keepdim = false);
Tensor amin(const Tensor& a, IntList dims = {}, bool keepdim = false);
Tensor argmax(const Tensor& a, int64_t dim, bool keepdim = false);  // i64 result
Tensor softmax(const Tensor& a, int64_t dim);       // floating only
Tensor log_softmax(const Tensor& a, int64_t dim);

// ------------------------------------------------------------------ scans and selections
// torch.cumsum: out[.., i, ..] = a[.., 0, ..] + ... + a[.., i, ..] along dim (negative dims wrap; a
// 0-d tensor is [1]), a new tensor of a's shape. dtype as torch: bool and integer inputs give i64,
// floating ones keep their dtype; a given dtype (f64 f32 f16 bf16 i8 u8 i32 i64) wins, the input
// converted to it first. f16/bf16 sum in f32 (each output rounded once), f32 in f32, integers wrap.
// docs/ops/topk.md. Errors: IndexError for dim out of range; DtypeError for an fp8 input or a bool or
// fp8 dtype.
Tensor cumsum(const Tensor& a, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
// torch.topk: the k largest (smallest without largest) elements of a along dim and their indices
// (i64), both of a's shape with size(dim) = k. NaN counts as larger than every number; equal values
// go to the smaller index; sorted=false still sorts (torch allows any order). A 0-d a gives 0-d
// outputs for k 0 or 1, as torch. f64 f32 f16 bf16 i8 u8 i32 i64. docs/ops/topk.md. Errors:
// IndexError for dim out of range or k outside [0, a.size(dim)] ("selected index k out of range");
// DtypeError for bool and fp8.
std::tuple<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);

// ------------------------------------------------------------------ indexing
// torch.index_select: the entries of `a` at `index` along `dim`, a new tensor of a's dtype and
// rank with size(dim) = index.numel(). Every dtype. `index` is a 1-d or 0-d i64 or i32 tensor on
// a's device (any strides); a 0-d `a` takes an index of one element and gives a 0-d result. dim
// may be negative (wraps as in PyTorch). Every index must be in [0, a.size(dim)) — negative
// indices do not wrap, as in PyTorch; the check reads the index tensor on the host (so on a device
// it waits for the work writing the index), and a bad index is an IndexError naming it, raised
// before anything is launched. Errors: IndexError for dim or an index out of range, or a 0-d a
// with an index of other than one element; DtypeError for an index that is not i64/i32;
// ShapeError for an index of rank > 1; DeviceError when index is on another device.
Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index);
// torch.nn.functional.embedding (forward): the rows of `weight` [num_embeddings, embedding_dim]
// at `indices` (any shape, i64 or i32), a new tensor of shape indices.shape + [embedding_dim]:
// index_select(weight, 0, indices.flatten()) reshaped. padding_idx only changes the gradient in
// PyTorch, so the forward ignores it, but validates it as PyTorch does: in
// [-num_embeddings, num_embeddings), else ValueError. Errors: ShapeError when weight is not 2-d;
// those of index_select (IndexError for an index outside [0, num_embeddings)).
Tensor embedding(const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx = std::nullopt);
// torch.gather: out[p] = a[p with p[dim] replaced by index[p]], a new tensor of a's dtype and
// index's shape. Every dtype. `index` (i64 or i32, any strides, on a's device) has a's rank and is
// no larger than a in every dim but `dim` (0-d tensors count as 1-d of size 1, as in PyTorch).
// Every entry must be in [0, a.size(dim)): checked on the host before any launch, as for
// index_select (negative entries do not wrap). Errors: IndexError for dim or an entry out of
// range; ShapeError for ranks that differ or an index larger than a outside dim; DtypeError for
// an index that is not i64/i32; DeviceError when index is on another device.
Tensor gather(const Tensor& a, int64_t dim, const Tensor& index);

// ------------------------------------------------------------------ joining
// torch.cat: the tensors joined along `dim`, in order, into a new contiguous tensor. Every tensor
// has the same rank, dtype and device, and the same sizes except in `dim` (dim may be negative);
// as in PyTorch, a 1-d tensor of size 0 may stand anywhere in the list and adds nothing. Any
// strides; the inputs are only read. Runs as one copy per non-empty input on their device.
// xdispatch does not promote: mixed dtypes are a DtypeError (PyTorch promotes). Errors:
// ValueError for an empty list; ShapeError for a 0-d tensor, ranks or sizes that differ;
// IndexError for dim out of range; DtypeError, DeviceError for mixed dtypes or devices.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
// torch.stack: the tensors, all of one shape, joined along a new dim `dim` in [-(ndim+1), ndim]
// (cat of each unsqueezed at dim). Errors: those of cat, and ShapeError when shapes differ.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);

// torch.nn.functional.conv2d (a cross-correlation): input [N, C, H, W] or unbatched [C, H, W]
// (the result is then unbatched too), weight [O, C / groups, kH, kW], optional bias [O]; stride,
// padding and dilation one value or one per spatial dim; padding is zeros on both sides, or
// ConvPadding::same (stride 1 only; PyTorch's split: the odd row or column goes bottom/right) or
// ::valid (none). f64 f32 f16 bf16, every operand the input's dtype and device. Sums in f32 (f64
// for f64), bias added, rounded once. Errors: ShapeError for ranks, channels that do not match
// weight * groups, O not divisible by groups, a bias that is not [O], a (dilated) kernel larger
// than the padded input; ValueError for non-positive stride, dilation or groups, negative
// padding, lists that are not 1 or 2 long, "same" with a stride; DtypeError, DeviceError.
enum class ConvPadding { valid, same };
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt,
              IntList stride = {1}, IntList padding = {0}, IntList dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntList stride,
              ConvPadding padding, IntList dilation = {1}, int64_t groups = 1);

// ------------------------------------------------------------------ attention
// torch.nn.functional.scaled_dot_product_attention (no dropout), one fused kernel:
// softmax(query @ key^T * scale + attn_mask) @ value for query [..., L, E], key [..., S, E],
// value [..., S, Ev] -> [..., L, Ev] of query's dtype. The leading (batch, head) dims broadcast
// among the three; attn_mask, bool (true: takes part) or of query's dtype (added to the scores),
// broadcasts to [..., L, S] without growing the batch. scale defaults to 1/sqrt(E). is_causal
// keeps key j for query i only when j <= i (torch.tril(torch.ones(L, S))). f64 f32 f16 bf16,
// accumulated in f32 (f64 for f64) and rounded once. A row whose every key is masked is NaN (as
// PyTorch's math path); S = 0 gives zeros. Errors: ShapeError for a rank below 2, E or S that
// differ, leading dims or a mask that do not broadcast; DtypeError for a non-floating query,
// key/value of another dtype, a mask neither bool nor query's dtype; ValueError for is_causal
// with attn_mask; DeviceError for operands on two devices; NotImplementedError where a backend
// declines (the XPU kernel holds head dims up to 128).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask = std::nullopt, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

// ------------------------------------------------------------------ pooling (docs/ops/pooling.md)
// torch.nn.functional.max_pool2d and avg_pool2d on input [N, C, H, W] or unbatched [C, H, W] (the
// result is unbatched too), any strides, f64 f32 f16 bf16; out has input's dtype and shape
// [.., C, Ho, Wo] with PyTorch's pooling_output_shape:
//   Ho = floor((H + 2*padding - dilation*(kernel-1) - 1 + (ceil_mode ? stride-1 : 0)) / stride) + 1,
//   less one with ceil_mode when the last window would start at or past H + padding (Wo likewise).
// kernel_size, padding and dilation take 1 int (both dims) or 2 ([H, W]); stride 1, 2 or none
// (empty: the kernel size, as torch). Errors, where PyTorch raises them: ValueError for a list of
// another length, kernel_size, stride or dilation < 1, padding < 0 or above half the effective
// kernel ((kernel-1)*dilation+1)/2, a value of 2^31 or more, divisor_override = 0; ShapeError for
// a rank other than 3 or 4, a size-0 C, H or W (N = 0 is allowed: an empty result), an output
// size below 1 ("Output size is too small"); DtypeError for integer and bool dtypes.
//
// max_pool2d: the maximum of each window's taps (padding is never chosen); a window holding a NaN
// gives NaN. Exact.
Tensor max_pool2d(const Tensor& input, IntList kernel_size, IntList stride = {}, IntList padding = {0},
                  IntList dilation = {1}, bool ceil_mode = false);
// aten::max_pool2d_with_indices: max_pool2d's values and i64 indices, h*W + w of the chosen
// element within its input plane (the first maximum in row-major order; with NaNs the last NaN),
// as PyTorch's CPU kernel.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntList kernel_size, IntList stride = {},
                                                   IntList padding = {0}, IntList dilation = {1},
                                                   bool ceil_mode = false);
// avg_pool2d: the window's sum over the input elements it covers, in f32 (f64 for f64), divided
// once by divisor_override when given (any non-zero value), else by the window's size clipped at
// the padded input (count_include_pad) or at the input (not), rounded once to the dtype.
Tensor avg_pool2d(const Tensor& input, IntList kernel_size, IntList stride = {}, IntList padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);

// ------------------------------------------------------------------ matmul (f64 f32 f16 bf16)
Tensor mm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& input, const Tensor& a, const Tensor& b, double beta = 1.0, double alpha = 1.0);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor baddbmm(const Tensor& input, const Tensor& a, const Tensor& b, double beta = 1.0,
               double alpha = 1.0);
// matmul: torch.matmul, as one mm or bmm over views of a and b (same dtype and rounding as they).
//   1-d @ 1-d: the dot product, a 0-d tensor; 2-d @ 2-d: mm. A 1-d left operand is one row and a
//   1-d right operand one column, whose dims are dropped from the result ([K] @ [B, K, N] ->
//   [B, N]). When either side has 3 or more dims, the dims before the last two are batch dims
//   and broadcast (NumPy's rules: [2, 1, M, K] @ [3, K, N] -> [2, 3, M, N]); a batch against a
//   2-d or 1-d right operand runs as one mm over the folded rows. A broadcast side is read through
//   stride-0 views where one batch dim can express them, else copied once.
// Errors: ShapeError when either is 0-d, when a's last dim differs from b's rows (b's only dim
// when 1-d), or when the batch dims do not broadcast; DtypeError when the dtypes differ or are not
// floating; DeviceError when the devices differ; ValueError for an undefined tensor.
Tensor matmul(const Tensor& a, const Tensor& b);

// ------------------------------------------------------------------ quantised matmul
// int_mm: PyTorch's torch._int_mm. a i8 [M,K] @ b i8 [K,N] -> a new i32 [M,N] tensor on their
// device, exact: products and sums in 32-bit integers (a sum beyond the i32 range, which needs
// K > 131072, wraps as two's complement, as on every PyTorch backend). K = 0 gives zeros.
// Any strides. Errors: DtypeError when a or b is not i8; ShapeError when either is not 2-d or
// K differs; DeviceError when they are on different devices.
Tensor int_mm(const Tensor& a, const Tensor& b);

// scaled_mm: PyTorch's torch._scaled_mm. out = (a * scale_a) @ (b * scale_b) + bias, a new tensor
// [M,N] of out_dtype (f32, f16 or bf16); products summed in f32, scales applied to the sum, then
// bias added and the result rounded once to out_dtype.
//   use_fast_accum: as PyTorch's, the caller accepts sums at the lower precision of a matrix unit
//   that adds fp8 products that way (Hopper's wgmma on the OpenCL backend, for m, n >= 1024), for
//   its speed; backends without one sum in f32 as above. docs/ops/matmul.md gives the accuracy.
//   a [M,K], b [K,N]: f8e4m3fn or f8e5m2, each either (mixed formats are accepted).
//   scale_a, scale_b: f32, either tensor-wise (one element each: [], [1] or [1,1]) or row-wise
//   (scale_a [M,1] per row of a, scale_b [1,N] per column of b); any other pairing is refused.
//   bias: optional, 1-d [N], of out_dtype or bf16.
// Errors: DtypeError (a or b not fp8, scales not f32, out_dtype not f32/f16/bf16, bias of another
// dtype), ShapeError (a or b not 2-d, K mismatch, scale or bias shapes), DeviceError (any input on
// another device). The inputs are not modified and may be freed after the call returns.
Tensor scaled_mm(const Tensor& a, const Tensor& b, const Tensor& scale_a, const Tensor& scale_b,
                 const std::optional<Tensor>& bias = std::nullopt, Dtype out_dtype = Dtype::bf16,
                 bool use_fast_accum = false);

// How cast() treats values beyond the target's range.
//   standard: as Tensor::to: round to nearest even; overflow gives Inf, or NaN for f8e4m3fn
//             (which has no Inf), as PyTorch's .to() does.
//   saturate: fp8 targets only: finite values beyond the largest finite value, and +-Inf, clamp to
//             +-max (448 for f8e4m3fn, 57344 for f8e5m2); NaN stays NaN. This is how fp8 data is
//             usually produced for scaled_mm (x * scale, then a saturating cast).
enum class CastMode { standard, saturate };
// A new tensor of `dtype` holding x's values (x itself when mode is standard and x already has
// that dtype). Errors: DtypeError for CastMode::saturate to a non-fp8 dtype or from bool.
Tensor cast(const Tensor& x, Dtype dtype, CastMode mode = CastMode::standard);
// The largest finite value of an fp8 dtype (448 or 57344); DtypeError for other dtypes.
double fp8_max(Dtype d);

// ------------------------------------------------------------------ normalisation
// y = x * rstd * weight, rstd = 1/sqrt(mean(x^2 over the trailing normalized_shape) + eps),
// computed in f32 (f64 for f64 input). rstd has shape x.shape[:-k] + [1]*k and dtype f32 (f64).
// eps defaults to the machine epsilon of the accumulation type. weight has the normalized shape
// and any floating dtype (an f32 weight beside bf16 x, as mixed-precision models keep it): it is
// read in the compute type, and y keeps x's dtype; rms_norm_backward's grad_weight has weight's.
std::tuple<Tensor, Tensor> rms_norm(const Tensor& x, IntList normalized_shape,
                                    const std::optional<Tensor>& weight = std::nullopt,
                                    std::optional<double> eps = std::nullopt);
// Returns (grad_input, grad_weight); an output whose mask bit is false is undefined.
std::tuple<Tensor, Tensor> rms_norm_backward(const Tensor& grad_out, const Tensor& x,
                                             IntList normalized_shape, const Tensor& rstd,
                                             const std::optional<Tensor>& weight,
                                             std::array<bool, 2> output_mask = {true, true});
// torch.native_layer_norm: returns (out, mean, rstd). Over the trailing normalized_shape of each
// row, mean = sum(x)/N, var = sum((x-mean)^2)/N (biased), rstd = 1/sqrt(var + eps), and
// out = (x - mean) * rstd * weight + bias (weight and bias optional, of normalized_shape and x's
// dtype), computed in f32 (f64 for f64 input) and rounded once. mean and rstd have shape
// x.shape[:-k] + [1]*k and dtype f32 (f64). Rows of no elements give mean 0 and rstd NaN, as in
// PyTorch. Dtypes f64 f32 f16 bf16; non-contiguous inputs are copied first. Errors: DtypeError
// (x not floating, weight or bias of another dtype), ShapeError (normalized_shape longer than x's
// rank or not x's trailing shape, weight or bias not of normalized_shape), ValueError (empty
// normalized_shape, eps negative or not finite), DeviceError (operands on different devices).
std::tuple<Tensor, Tensor, Tensor> layer_norm(const Tensor& x, IntList normalized_shape,
                                              const std::optional<Tensor>& weight = std::nullopt,
                                              const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);
// torch.native_layer_norm_backward: returns (grad_input, grad_weight, grad_bias) from grad_out (x's
// shape and dtype) and the mean and rstd layer_norm returned for x. With xh = (x - mean) * rstd and
// gw = grad_out * weight: grad_input = rstd * (gw - mean(gw) - xh * mean(gw * xh)) per row,
// grad_weight = sum over rows of grad_out * xh, grad_bias = sum over rows of grad_out. An output
// whose mask bit is false, grad_weight without a weight and grad_bias without a bias (read only
// for its shape) are undefined. Errors: layer_norm's, and DtypeError/ShapeError for grad_out, mean
// or rstd unlike what layer_norm gives.
std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& x,
                                                       IntList normalized_shape, const Tensor& mean, const Tensor& rstd,
                                                       const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& bias,
                                                       std::array<bool, 3> output_mask = {true, true, true});

// ------------------------------------------------------------------ int4 weight-only (docs/ops/int4.md)
// out [M,N] = input [M,K] @ w^T in input's dtype (f32, f16, bf16), products summed in f32, where
// w[n][k] = (q[n][k] - zeros[k/g][n]) * scales[k/g][n] and q[n][k] is the low nibble of
// weight[n][k/2] for even k, the high nibble for odd k (values 0..15). weight is u8 [N, K/2],
// scales [K/g, N] in input's dtype, zeros i8 [K/g, N]; g = group_size, a positive multiple of 32
// dividing K. Non-contiguous operands are copied first. The result is a new tensor; the inputs are
// only read. Errors: ValueError (group_size), DtypeError (input not f32/f16/bf16, weight not u8,
// zeros not i8, scales not input's dtype), ShapeError (ranks, K odd or not a multiple of g,
// weight/scales/zeros shapes), DeviceError (operands on different devices).
Tensor weight_int4_mm(const Tensor& input, const Tensor& weight, const Tensor& scales, const Tensor& zeros,
                      int64_t group_size);
// Asymmetric int4 quantization of weight [N,K] (f32 or bf16) per group of g consecutive k of a
// row, in weight_int4_mm's layout: returns (packed u8 [N, K/2], scales [K/g, N] in weight's dtype,
// zeros i8 [K/g, N] in 0..15). Per group: lo = min(min(w), 0), hi = max(max(w), 0),
// scale = (hi - lo) / 15 (at least FLT_EPSILON, rounded up to the storage dtype),
// zero = clamp(round(-lo / scale), 0, 15), q = clamp(round(w / scale) + zero, 0, 15), rounding half
// to even of the exact quotient: every backend gives the same bits. Then |dequant - w| <= scale/2.
// Weights must be finite (NaN or Inf give unspecified codes). Errors: ValueError (group_size),
// DtypeError (weight not f32/bf16), ShapeError (not 2-d, K odd or not a multiple of g).
std::tuple<Tensor, Tensor, Tensor> quantize_int4(const Tensor& weight, int64_t group_size);
// The inverse of quantize_int4, weight_int4_mm's weight as a dense tensor: w [N, K] in scales'
// dtype (f32, f16, bf16) with w[n][k] = (q[n][k] - zeros[k/g][n]) * scales[k/g][n], q[n][k] the
// low nibble of packed[n][k/2] for even k, the high nibble for odd k; computed in f32 and rounded
// once to scales' dtype, so mm(x, w.t()) in f32 is weight_int4_mm(x, ...) up to summation order.
// packed is u8 [N, K/2] (K = 2 * packed.size(1)), scales [K/g, N], zeros i8 [K/g, N]; g =
// group_size, a positive multiple of 32 dividing K. N = 0 or K = 0 give an empty result. Composed
// of public ops (every backend runs it); operands of any strides. The result is a new tensor; the
// inputs are only read. Errors: ValueError (group_size, undefined tensor), DtypeError (packed not
// u8, zeros not i8, scales not f32/f16/bf16), ShapeError (ranks, K not a multiple of g,
// scales/zeros not [K/g, N]), DeviceError (operands on different devices).
Tensor dequantize_int4(const Tensor& packed, const Tensor& scales, const Tensor& zeros, int64_t group_size);

// ------------------------------------------------------------------ TorchAO workflows (docs/ops/int8.md)
// Composed of the ops above, step for step as TorchAO's eager code, so they run on every backend.
// Each returns new tensors and only reads its inputs; the checks below come before any launch.
//
// int8 weight-only: symmetric per-output-channel quantization of weight [N,K] (f64 f32 f16 bf16),
// as TorchAO's dynamically_quantize_per_channel(w, -128, 127, torch.int8): returns (q i8 [N,K],
// scales [N] in weight's dtype) with scale = max(max|w[n]| / 127.5, FLT_EPSILON) and
// q = clamp(round_half_even(w / scale), -128, 127), each step rounded in weight's dtype.
// Weights must be finite (NaN or Inf give unspecified codes). Errors: DtypeError (not floating),
// ShapeError (not 2-d, or K = 0).
std::tuple<Tensor, Tensor> quantize_int8(const Tensor& weight);
// out [..., N] = (input [..., K] @ weight^T) * scales, TorchAO's int8 weight-only linear: weight
// i8 [N,K] converted to input's dtype (f32 f16 bf16), one mm rounded to that dtype, then scales
// [N] (input's dtype) applied and rounded again. The converted weight is a temporary of N*K
// elements. Errors: DtypeError (input not f32/f16/bf16, weight not i8, scales not input's dtype),
// ShapeError (input 0-d, weight not 2-d, K differs, scales not [N]), DeviceError.
Tensor weight_int8_mm(const Tensor& input, const Tensor& weight, const Tensor& scales);
// int8 dynamic activation quantization per token (a token is a row over the last dim), as
// TorchAO's quantize_activation_per_token_absmax but with the scale in f32 for every dtype:
// returns (q i8 of input's shape, scales f32 [..., 1]) with s = max(max|x|, 1e-5) / 127 and
// q = clamp(round_half_even(x / s), -127, 127) computed in f32. Errors: DtypeError (not floating),
// ShapeError (0-d, or rows of no elements).
std::tuple<Tensor, Tensor> quantize_per_token_int8(const Tensor& input);
// int8 dynamic activation, int8 weight (TorchAO's int8_dynamic_activation_int8_weight): the input
// [..., K] (f32 f16 bf16) quantized per token as above, int_mm with weight i8 [N,K]
// (from quantize_int8), exact i32 sums, then out = f32(sum) * s_token * scales[n] in f32,
// rounded once to input's dtype: [..., N]. scales [N] of any floating dtype. Errors: those of
// weight_int8_mm, and ShapeError for K = 0.
Tensor int8_dynamic_mm(const Tensor& input, const Tensor& weight, const Tensor& scales);
// fp8 scaling for scaled_mm, TorchAO's float8 recipe: scale = fp8_max(fp8_dtype) / max(amax, 1e-12)
// in f32, where amax = max|x| over the whole tensor (dim empty: tensor-wise, the inverse scale is
// 0-d) or over `dim` (row-wise, keepdim: dim = 1 of a [M,K] gives [M,1], dim = 0 of b [K,N] gives
// [1,N], the shapes scaled_mm takes); returns (cast(x * scale, fp8_dtype, saturate), 1 / scale).
// An amax of +Inf gives scale 0 (NaN codes for the infinite elements); NaN propagates. Errors:
// DtypeError (x not floating, fp8_dtype not f8e4m3fn/f8e5m2), IndexError (dim), ShapeError (no
// elements to take the max of).
std::tuple<Tensor, Tensor> quantize_fp8(const Tensor& x, Dtype fp8_dtype = Dtype::f8e4m3fn,
                                        std::optional<int64_t> dim = std::nullopt);

namespace detail {
// ShapeError unless `count` equals the number of elements of `sizes`; then from_host.
Tensor tensor_from_values(const void* data, size_t count, Dtype dtype, IntList sizes, Device device);
}  // namespace detail

template <class T>
Tensor tensor(const std::vector<T>& values, IntList sizes, Device device) {
  return detail::tensor_from_values(values.data(), values.size(), dtype_of<T>(), sizes, device);
}
// std::vector<bool> is bit-packed; use this overload for bool tensors.
Tensor tensor(const std::vector<uint8_t>& values, IntList sizes, Dtype dtype, Device device);

}  // namespace xd
