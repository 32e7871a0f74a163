// The attribute structs: what each op takes besides its tensors, as the public function received
// it. One per op (ops of one kind share theirs); the op's schema names it (OpSchema::attrs) and its
// meta function validates it and lowers it to the xd_attrs_* struct the kernel receives.
// Lifetime: the IntList and pointer members view the caller's arguments, valid for the call only.
#pragma once

#include <xd/device.hpp>
#include <xd/dtype.hpp>
#include <xd/ops.hpp>
#include <xd/tensor.hpp>

#include <array>
#include <optional>

namespace xd::detail {

struct NoAttrs {};  // ops with tensors only (mul, neg, mm, int_mm, ...)

// Creation ops have no input tensor: the attributes give the output's shape, dtype and device.
struct FillAttrs {
  IntList sizes;
  double value = 0;
  Dtype dtype = Dtype::f32;
  Device device;
};
struct ArangeAttrs {
  double start = 0, end = 0, step = 1;
  Dtype dtype = Dtype::i64;
  Device device;
};
struct RandomAttrs {  // rand, randn; the generator's seed and offset are taken at launch
  IntList sizes;
  Dtype dtype = Dtype::f32;
  Device device;
};

struct CopyAttrs {  // Tensor::copy_: the destination is given, not allocated
  const Tensor* destination = nullptr;
};

struct AlphaAttrs {  // add, sub: self + alpha * other
  double alpha = 1;
};
struct PowAttrs {
  double exponent = 1;
};
struct GeluAttrs {
  GeluApproximate approximate = GeluApproximate::none;
};
struct ClampAttrs {  // clamp: at least one bound (meta_clamp checks)
  std::optional<double> min, max;
};
struct RoundAttrs {
  int64_t decimals = 0;
};

struct ReduceAttrs {  // sum, mean, amax, amin over `dims` (empty: all); argmax over one dim
  IntList dims;
  bool keepdim = false;
};
struct DimAttrs {  // softmax, log_softmax, index_select, gather
  int64_t dim = -1;
};

struct CumsumAttrs {
  int64_t dim = 0;
  std::optional<Dtype> dtype;  // the result's; default: i64 for bool and integers, else a's
};
struct TopkAttrs {
  int64_t k = 0;
  int64_t dim = -1;
  bool largest = true;
  bool sorted = true;
};

struct BlasAttrs {  // addmm, baddbmm: beta * self + alpha * (a @ b)
  double beta = 1, alpha = 1;
};

struct RmsNormAttrs {
  IntList normalized_shape;
  std::optional<double> eps;  // default: epsilon of the accumulation type
};
struct RmsNormBackwardAttrs {
  IntList normalized_shape;
  std::array<bool, 2> output_mask{true, true};
};
struct LayerNormAttrs {
  IntList normalized_shape;
  double eps = 1e-5;
};
struct LayerNormBackwardAttrs {
  IntList normalized_shape;
  std::array<bool, 3> output_mask{true, true, true};
};

struct ScaledMmAttrs {
  Dtype out_dtype = Dtype::bf16;
  bool use_fast_accum = false;
};
struct Conv2dAttrs {  // conv2d: 1 or 2 values each (meta_conv2d checks); `same`: padding "same"
  IntList stride, padding, dilation;
  int64_t groups = 1;
  bool same = false;
};
struct AttentionAttrs {  // scaled_dot_product_attention
  bool is_causal = false;
  std::optional<double> scale;  // default 1/sqrt(E)
};

// max_pool2d, avg_pool2d, as the caller gave them: kernel_size, padding, dilation of 1 or 2 ints,
// stride of 0 (the kernel size), 1 or 2.
struct Pool2dAttrs {
  IntList kernel_size, stride, padding, dilation;
  bool ceil_mode = false;
  bool count_include_pad = true;            // avg_pool2d
  std::optional<int64_t> divisor_override;  // avg_pool2d
  bool return_indices = false;              // max_pool2d: the indices output is present
};

struct Int4Attrs {  // weight_int4_mm, quantize_int4
  int64_t group_size = 0;
};

// The public mm / addmm / bmm / baddbmm overloads with a SparseCsr left operand, all csr_addmm.
struct CsrMatmulAttrs {
  IntList sparse_sizes;  // the CSR matrix's [M, K] or [B, M, K]
  int ndim = 2;          // 2: mm / addmm, 3: bmm / baddbmm
  double beta = 0, alpha = 1;
};
struct CsrToDenseAttrs {
  IntList sizes;  // the CSR matrix's (checked when it was built)
};

}  // namespace xd::detail
