// Unary pointwise ops: NEG, ABS, RELU, CLAMP, FLOOR, ROUND (numeric) and EXP, LOG, SQRT, RSQRT,
// GELU, SILU, SIGMOID, TANH, POW (floating). Each computes in the compute type (float for f16/bf16)
// with the libm function of that precision and rounds once; integers wrap (neg/abs of the minimum
// stays the minimum, as in PyTorch).
#include "kernels/common.hpp"
#include "kernels/elementwise.hpp"

#include <cmath>
#include <limits>

namespace xd::cpu {
namespace {

template <class C>
struct neg_op {
  explicit neg_op(const xd_kernel_call*) {}
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return -x;
    } else {
      return wrap_neg(x);
    }
  }
};

template <class C>
struct abs_op {
  explicit abs_op(const xd_kernel_call*) {}
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::fabs(x);
    } else {
      return x < 0 ? wrap_neg(x) : x;
    }
  }
};

// relu(NaN) = NaN and relu(-0) = +0, as PyTorch's clamp_min(x, 0) gives.
template <class C>
struct relu_op {
  explicit relu_op(const xd_kernel_call*) {}
  C operator()(C x) const { return x > 0 || is_nan(x) ? x : C{0}; }
};

// clamp (plugin_abi.h): the host gives both bounds exact in the dtype, so comparing in the compute
// type is exact. The comparisons are PyTorch's (std::max, then std::min): a NaN element fails both
// and stays NaN, an element equal to a bound is kept (its sign of zero too), lo > hi gives hi.
template <class C>
struct clamp_op {
  C lo, hi;
  explicit clamp_op(const xd_kernel_call* c) {
    const auto& a = need_attrs<xd_attrs_clamp>(c);
    if constexpr (std::is_floating_point_v<C>) {
      lo = static_cast<C>(a.real_min);
      hi = static_cast<C>(a.real_max);
    } else {
      lo = a.int_min;
      hi = a.int_max;
    }
  }
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      // torch.clamp given both bounds, one of them NaN: every element NaN.
      if (std::isnan(lo) || std::isnan(hi)) return std::numeric_limits<C>::quiet_NaN();
    }
    const C y = x < lo ? lo : x;
    return hi < y ? hi : y;
  }
};

// Integers have no fraction: floor and round copy them, as PyTorch does.
template <class C>
struct floor_op {
  explicit floor_op(const xd_kernel_call*) {}
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::floor(x);
    } else {
      return x;
    }
  }
};

// Half to even (nearbyint in the default rounding mode). With decimals, PyTorch's formula in the
// compute type: the scale 10^|d| is rounded to C once, and the product or quotient is rounded to C
// before rint, so the result is the C-nearest of the scaled value's rounding, not the decimal.
template <class C>
struct round_op {
  int64_t decimals = 0;
  C scale = 1;
  explicit round_op(const xd_kernel_call* c) {
    const auto* a = find_attrs<xd_attrs_round>(c);
    decimals = a == nullptr ? 0 : a->decimals;
    // -(double)d, not -d: the negation of INT64_MIN would overflow.
    const double magnitude = decimals < 0 ? -static_cast<double>(decimals) : static_cast<double>(decimals);
    if constexpr (std::is_floating_point_v<C>) scale = static_cast<C>(std::pow(10.0, magnitude));
  }
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (decimals == 0) return std::nearbyint(x);
      return decimals > 0 ? std::nearbyint(x * scale) / scale : std::nearbyint(x / scale) * scale;
    } else {
      return x;
    }
  }
};

template <class C>
struct exp_op {
  explicit exp_op(const xd_kernel_call*) {}
  C operator()(C x) const { return std::exp(x); }
};

template <class C>
struct log_op {
  explicit log_op(const xd_kernel_call*) {}
  C operator()(C x) const { return std::log(x); }
};

template <class C>
struct sqrt_op {
  explicit sqrt_op(const xd_kernel_call*) {}
  C operator()(C x) const { return std::sqrt(x); }
};

template <class C>
struct rsqrt_op {
  explicit rsqrt_op(const xd_kernel_call*) {}
  C operator()(C x) const { return C{1} / std::sqrt(x); }
};

// approximate 0: x/2 (1 + erf(x/sqrt 2)); 1: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <class C>
struct gelu_op {
  bool tanh_form = false;
  explicit gelu_op(const xd_kernel_call* c) {
    const auto* a = find_attrs<xd_attrs_gelu>(c);
    tanh_form = a != nullptr && a->approximate != 0;
  }
  C operator()(C x) const {
    if (tanh_form) {
      constexpr C beta = static_cast<C>(0.79788456080286535588);  // sqrt(2/pi)
      constexpr C kappa = static_cast<C>(0.044715);
      return C{0.5} * x * (C{1} + std::tanh(beta * (x + kappa * x * x * x)));
    }
    constexpr C inv_sqrt2 = static_cast<C>(0.70710678118654752440);
    return x * C{0.5} * (C{1} + std::erf(x * inv_sqrt2));
  }
};

template <class C>
struct silu_op {
  explicit silu_op(const xd_kernel_call*) {}
  C operator()(C x) const { return x / (C{1} + std::exp(-x)); }
};

template <class C>
struct sigmoid_op {
  explicit sigmoid_op(const xd_kernel_call*) {}
  C operator()(C x) const { return C{1} / (C{1} + std::exp(-x)); }
};

template <class C>
struct tanh_op {
  explicit tanh_op(const xd_kernel_call*) {}
  C operator()(C x) const { return std::tanh(x); }
};

template <class C>
struct pow_op {
  C exponent;
  explicit pow_op(const xd_kernel_call* c) : exponent(static_cast<C>(need_attrs<xd_attrs_scalar>(c).real)) {}
  C operator()(C x) const { return std::pow(x, exponent); }
};

template <template <class> class Op>
struct unary_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const Op<compute_t<T>> op(c);
      map_elements<T, T>([op](T x) { return cast<T>(op(load(x))); }, output(c, 0), {&input(c, 0)});
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_neg = typed_kernel<unary_kernel<neg_op>, dtypes::numeric>(XD_OP_NEG, "neg");
extern const plugin::kernel_def def_abs = typed_kernel<unary_kernel<abs_op>, dtypes::numeric>(XD_OP_ABS, "abs");
extern const plugin::kernel_def def_relu = typed_kernel<unary_kernel<relu_op>, dtypes::numeric>(XD_OP_RELU, "relu");
extern const plugin::kernel_def def_exp = typed_kernel<unary_kernel<exp_op>, dtypes::compute_floating>(XD_OP_EXP, "exp");
extern const plugin::kernel_def def_log = typed_kernel<unary_kernel<log_op>, dtypes::compute_floating>(XD_OP_LOG, "log");
extern const plugin::kernel_def def_sqrt = typed_kernel<unary_kernel<sqrt_op>, dtypes::compute_floating>(XD_OP_SQRT, "sqrt");
extern const plugin::kernel_def def_rsqrt = typed_kernel<unary_kernel<rsqrt_op>, dtypes::compute_floating>(XD_OP_RSQRT, "rsqrt");
extern const plugin::kernel_def def_gelu = typed_kernel<unary_kernel<gelu_op>, dtypes::compute_floating>(XD_OP_GELU, "gelu");
extern const plugin::kernel_def def_silu = typed_kernel<unary_kernel<silu_op>, dtypes::compute_floating>(XD_OP_SILU, "silu");
extern const plugin::kernel_def def_sigmoid = typed_kernel<unary_kernel<sigmoid_op>, dtypes::compute_floating>(XD_OP_SIGMOID, "sigmoid");
extern const plugin::kernel_def def_tanh = typed_kernel<unary_kernel<tanh_op>, dtypes::compute_floating>(XD_OP_TANH, "tanh");
extern const plugin::kernel_def def_clamp = typed_kernel<unary_kernel<clamp_op>, dtypes::numeric>(XD_OP_CLAMP, "clamp");
extern const plugin::kernel_def def_floor = typed_kernel<unary_kernel<floor_op>, dtypes::numeric>(XD_OP_FLOOR, "floor");
extern const plugin::kernel_def def_round = typed_kernel<unary_kernel<round_op>, dtypes::numeric>(XD_OP_ROUND, "round");
extern const plugin::kernel_def def_pow = typed_kernel<unary_kernel<pow_op>, dtypes::compute_floating>(XD_OP_POW, "pow");

}  // namespace xd::cpu
