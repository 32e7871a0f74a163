// The fast kernels' elementwise math (simd.hpp's unary()): exp, sigmoid, silu, tanh and gelu's
// tanh form over f32/bf16/f16 rows, through simd_exp-inl.h's exp on AVX-512 and Highway's
// vectorised Exp elsewhere (max error 1 ulp), and Highway's Tanh
// (4 ulp), compiled per target as simd.cpp is. Highway's functions are defined on a range and
// say nothing of NaN (its Exp gives 0 for NaN and is undefined above 104), so each is wrapped to
// give what the reference loops' libm calls give: NaN stays NaN, exp overflows to +Inf, and the
// formulas are the reference's (kernels/unary.cpp), in the same order of operations.
// foreach_target.h must come first, right after HWY_TARGET_INCLUDE:
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/fast/simd_math.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include "kernels/fast/simd.hpp"
#include "kernels/fast/simd_exp-inl.h"
#include "kernels/fast/simd_rows-inl.h"

#include <cmath>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {

// exp(x) over all of f32, as std::exp: +Inf above ln(FLT_MAX), 0 far below, NaN kept. Where
// vscalefps applies 2^n (AVX-512), the shorter exp of simd_exp-inl.h covers the whole range;
// elsewhere Highway's Exp does (its range ends at 104, so any x from 100 on is taken as 100).
template <class D, class V>
HWY_INLINE V exp_any(D d, V x) {
#if XD_SIMD_EXP_SCALEF
  const V r = exp_not_nan(d, x);
#else
  const V r = hn::Exp(d, hn::Min(x, hn::Set(d, 100.0f)));
#endif
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

template <class D, class V>
HWY_INLINE V tanh_any(D d, V x) {
  return hn::IfThenElse(hn::IsNaN(x), x, hn::Tanh(d, x));
}

template <unary_fn F, class D, class V>
HWY_INLINE V apply(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  if constexpr (F == unary_fn::exp) {
    return exp_any(d, x);
  } else if constexpr (F == unary_fn::sigmoid) {
    return hn::Div(one, hn::Add(one, exp_any(d, hn::Neg(x))));
  } else if constexpr (F == unary_fn::silu) {
    return hn::Div(x, hn::Add(one, exp_any(d, hn::Neg(x))));
  } else if constexpr (F == unary_fn::tanh) {
    return tanh_any(d, x);
  } else {
    static_assert(F == unary_fn::gelu_tanh);
    const V beta = hn::Set(d, 0.79788456080286535588f);  // sqrt(2/pi)
    const V kappa = hn::Set(d, 0.044715f);
    const V inner = hn::Mul(beta, hn::Add(x, hn::Mul(hn::Mul(hn::Mul(kappa, x), x), x)));
    return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x), hn::Add(one, tanh_any(d, inner)));
  }
}

template <unary_fn F>
HWY_INLINE float apply_one(float x) {
  if constexpr (F == unary_fn::exp) {
    return std::exp(x);
  } else if constexpr (F == unary_fn::sigmoid) {
    return 1.0f / (1.0f + std::exp(-x));
  } else if constexpr (F == unary_fn::silu) {
    return x / (1.0f + std::exp(-x));
  } else if constexpr (F == unary_fn::tanh) {
    return std::tanh(x);
  } else {
    constexpr float beta = 0.79788456080286535588f;
    constexpr float kappa = 0.044715f;
    return 0.5f * x * (1.0f + std::tanh(beta * (x + kappa * x * x * x)));
  }
}

template <unary_fn F>
void unary_rows(const void* HWY_RESTRICT x, elem e, void* HWY_RESTRICT y, int64_t n, bool stream) {
  const DF d;
  by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    write_row<E>(
        d, y, n, stream, [&](int64_t i) { return apply<F>(d, load_as<E>(d, x, i)); },
        [&](int64_t i) { return apply_one<F>(load_one<E>(x, i)); });
  });
}

void Unary(unary_fn f, const void* HWY_RESTRICT x, elem e, void* HWY_RESTRICT y, int64_t n, bool stream) {
  switch (f) {
    case unary_fn::exp:
      return unary_rows<unary_fn::exp>(x, e, y, n, stream);
    case unary_fn::sigmoid:
      return unary_rows<unary_fn::sigmoid>(x, e, y, n, stream);
    case unary_fn::silu:
      return unary_rows<unary_fn::silu>(x, e, y, n, stream);
    case unary_fn::tanh:
      return unary_rows<unary_fn::tanh>(x, e, y, n, stream);
    case unary_fn::gelu_tanh:
      return unary_rows<unary_fn::gelu_tanh>(x, e, y, n, stream);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd::cpu::simd {

HWY_EXPORT(Unary);

void unary(unary_fn f, const void* x, elem e, void* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Unary)(f, x, e, y, n, stream);
}

}  // namespace xd::cpu::simd
#endif  // HWY_ONCE
