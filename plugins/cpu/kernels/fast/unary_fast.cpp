// EXP, LOG, SQRT, RSQRT, SIGMOID, SILU, TANH, GELU (both forms), RELU, NEG, ABS and POW over dense
// tensors of f32, f16 and bf16: the fast kernels in front of kernels/unary.cpp, computing its
// formulas in f32 with vector math (simd_math.cpp) instead of a libm call per element; f16/bf16
// converted in the vector loop and rounded once. They decline, with a reason, strided or
// broadcast layouts and small tensors (the reference's inline path is cheaper there); integer
// neg/abs/relu are the reference's.
#include "kernels/fast/rows.hpp"

#include <cmath>

namespace xd::cpu::fast {
namespace {

constexpr int64_t kSmall = 256;  // fewer elements: the reference loop

const char* decline_reason(const xd_kernel_call* c) {
  const xd_view& in = input(c, 0);
  const xd_view& out = output(c, 0);
  if (in.dtype != out.dtype || !same_shape(in, out)) return "a malformed call (the reference reports it)";
  if (numel(out) < kSmall) return "tensors under 256 elements run the reference loop";
  const int64_t sz = dtype_bytes(out.dtype);
  if (!contiguous_dims(in, ~uint64_t{0}, sz) || !contiguous_dims(out, ~uint64_t{0}, sz))
    return "takes dense tensors; strided or broadcast ones run the reference loop";
  return nullptr;
}

int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return decline_reason(c); });
}

// POW's exponent is a scalar attribute; a non-finite one runs the reference.
const char* pow_decline_reason(const xd_kernel_call* c) {
  if (const char* why = decline_reason(c)) return why;
  if (!std::isfinite(static_cast<float>(need_attrs<xd_attrs_scalar>(c).real)))
    return "a non-finite exponent runs the reference loop";
  return nullptr;
}

int32_t pow_check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return pow_decline_reason(c); });
}

// Calls row(x, y, n, stream) for each thread's range of the dense input x and output y (of T),
// `stream` set for outputs larger than the caches (fenced at the range's end).
template <class T, class Row>
void for_each_range(const xd_kernel_call* c, Row row) {
  const int64_t n = numel(output(c, 0));
  const T* x = reinterpret_cast<const T*>(data(input(c, 0)));
  T* y = reinterpret_cast<T*>(data(output(c, 0)));
  const bool stream = n * static_cast<int64_t>(sizeof(T)) >= stream_threshold_bytes();
  parallel_for(n, kElementGrain, [&](int64_t begin, int64_t end) {
    stream_scope fence;
    row(x + begin, y + begin, end - begin, stream);
  });
}

// The function a call computes: GELU's form is its attribute (approximate 0: erf, else tanh).
simd::unary_fn function_of(const xd_kernel_call* c, simd::unary_fn f) {
  if (f != simd::unary_fn::gelu_tanh) return f;
  const auto* a = find_attrs<xd_attrs_gelu>(c);
  return a != nullptr && a->approximate != 0 ? simd::unary_fn::gelu_tanh : simd::unary_fn::gelu_erf;
}

template <simd::unary_fn F>
struct unary_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason(c)) plugin::fail(XD_ERR_INTERNAL, std::string("unary.fast ") + why);
      const simd::unary_fn f = function_of(c, F);
      for_each_range<T>(
          c, [&](const T* x, T* y, int64_t n, bool stream) { simd::unary(f, x, elem_of<T>(), y, n, stream); });
    });
  }
};

struct pow_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = pow_decline_reason(c)) plugin::fail(XD_ERR_INTERNAL, std::string("pow.fast ") + why);
      // The reference's exponent: the attribute in the compute type (f32 for every dtype here).
      const float p = static_cast<float>(need_attrs<xd_attrs_scalar>(c).real);
      for_each_range<T>(
          c, [&](const T* x, T* y, int64_t n, bool stream) { simd::pow_scalar(x, elem_of<T>(), p, y, n, stream); });
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// Entries of the registration list (kernel_list.cpp).
using fast::unary_fast;
using simd::unary_fn;
extern const plugin::kernel_def def_exp_fast =
    fast::fast_kernel<unary_fast<unary_fn::exp>>(XD_OP_EXP, "exp.fast", fast::check);
extern const plugin::kernel_def def_sigmoid_fast =
    fast::fast_kernel<unary_fast<unary_fn::sigmoid>>(XD_OP_SIGMOID, "sigmoid.fast", fast::check);
extern const plugin::kernel_def def_silu_fast =
    fast::fast_kernel<unary_fast<unary_fn::silu>>(XD_OP_SILU, "silu.fast", fast::check);
extern const plugin::kernel_def def_tanh_fast =
    fast::fast_kernel<unary_fast<unary_fn::tanh>>(XD_OP_TANH, "tanh.fast", fast::check);
// Both forms of GELU (the attribute picks one at run time; see function_of).
extern const plugin::kernel_def def_gelu_fast =
    fast::fast_kernel<unary_fast<unary_fn::gelu_tanh>>(XD_OP_GELU, "gelu.fast", fast::check);
extern const plugin::kernel_def def_log_fast =
    fast::fast_kernel<unary_fast<unary_fn::log>>(XD_OP_LOG, "log.fast", fast::check);
extern const plugin::kernel_def def_sqrt_fast =
    fast::fast_kernel<unary_fast<unary_fn::sqrt>>(XD_OP_SQRT, "sqrt.fast", fast::check);
extern const plugin::kernel_def def_rsqrt_fast =
    fast::fast_kernel<unary_fast<unary_fn::rsqrt>>(XD_OP_RSQRT, "rsqrt.fast", fast::check);
extern const plugin::kernel_def def_relu_fast =
    fast::fast_kernel<unary_fast<unary_fn::relu>>(XD_OP_RELU, "relu.fast", fast::check);
extern const plugin::kernel_def def_neg_fast =
    fast::fast_kernel<unary_fast<unary_fn::neg>>(XD_OP_NEG, "neg.fast", fast::check);
extern const plugin::kernel_def def_pow_fast =
    fast::fast_kernel<fast::pow_fast>(XD_OP_POW, "pow.fast", fast::pow_check);
extern const plugin::kernel_def def_abs_fast =
    fast::fast_kernel<unary_fast<unary_fn::abs>>(XD_OP_ABS, "abs.fast", fast::check);
}  // namespace xd::cpu
