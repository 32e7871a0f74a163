// The fast kernels' elementwise math (simd.hpp's unary()) over f32/bf16/f16 rows, compiled per
// target as simd.cpp is: exp, sigmoid and silu through simd_exp-inl.h's exp on AVX-512 and
// Highway's Exp elsewhere (max error 1 ulp); tanh and gelu's tanh form through tanh_any below
// (2 ulp); log through Highway's Log; gelu's erf form through erf_clamped below (a rational
// function, max error 6 ulp); sqrt, rsqrt, relu, neg and abs exactly as the reference rounds them.
// Highway's functions are defined on a range and say nothing of NaN (its Exp gives 0 for NaN and
// is undefined above 104; its Log is defined for x > 0), so each is wrapped to give what the
// reference loops' libm calls give: NaN stays NaN, exp overflows to +Inf, log(0) is -Inf and
// log(x < 0) NaN, and the formulas are the reference's (kernels/unary.cpp), in the same order of
// operations.
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

// tanh(x) as std::tanh (NaN kept, -0 kept): below |x| = 0.625 the odd polynomial x + x^3 P(x^2)
// (P of degree 4, fitted for relative error there: 1e-8 with f32 coefficients), above it
// 1 - 2 / (exp(2|x|) + 1) with the sign of x, |x| capped at 9.1: from 9.02 on tanh rounds to 1
// in f32, which the capped formula gives exactly (so gelu's 1 + tanh is 0 there, as the
// reference's). Checked against double tanh over every f32: within 2 ulp. Highway's Tanh (an
// expm1 and a division, 4 ulp) took 1.25x as long in L1 (docs/performance.md).
template <class D, class V>
HWY_INLINE V tanh_any(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V a = hn::Abs(x);
  const V t = hn::Mul(x, x);
  V p = hn::Set(d, -5.705018993e-03f);
  p = hn::MulAdd(p, t, hn::Set(d, 2.063912153e-02f));
  p = hn::MulAdd(p, t, hn::Set(d, -5.373972654e-02f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.333144307e-01f));
  p = hn::MulAdd(p, t, hn::Set(d, -3.333328068e-01f));
  const V small = hn::MulAdd(hn::Mul(a, t), p, a);
  // 2|x| in [1.25, 18.2] here (NaN is taken care of last).
  const V twice = hn::Mul(hn::Min(a, hn::Set(d, 9.1f)), hn::Set(d, 2.0f));
#if XD_SIMD_EXP_SCALEF
  const V e = exp_clamped(d, twice);
#else
  const V e = hn::Exp(d, twice);
#endif
  const V large = hn::Sub(one, hn::Div(hn::Set(d, 2.0f), hn::Add(e, one)));
  // The sign of x, -0 included.
  const V r = hn::CopySign(hn::IfThenElse(hn::Lt(a, hn::Set(d, 0.625f)), small, large), x);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// log(x) as std::log: -Inf at 0 (either sign), NaN below 0 and for NaN, +Inf at +Inf.
template <class D, class V>
HWY_INLINE V log_any(D d, V x) {
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  V r = hn::Log(d, x);
  r = hn::IfThenElse(hn::Eq(x, inf), inf, r);
  r = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(inf), r);
  return hn::IfThenElse(hn::Or(hn::Lt(x, hn::Zero(d)), hn::IsNaN(x)),
                        hn::Set(d, std::numeric_limits<float>::quiet_NaN()), r);
}

// erf(x) for every x but NaN (whose result this leaves to the caller): x P(x^2) / Q(x^2) inside
// (-3.92, 3.92), exactly +-1 from there on, where erf rounds to +-1 in f32 (so that gelu(-Inf) is
// NaN and gelu of a large negative x is -0, as the reference's 1 + erf gives). P (degree 6) and
// Q (degree 5, Q(0) = 1) were fitted for relative error on [0, 3.92] by iteratively reweighted
// least squares (1.8e-9 with exact coefficients, 5e-8 rounded to f32); checked against double
// erf over every f32 in [-5, 5]: within 6 ulp (3.5e-7), inside xd-conform's f32 tolerance.
template <class D, class V>
HWY_INLINE V erf_clamped(D d, V x) {
  const V z = hn::Min(hn::Max(x, hn::Set(d, -3.92f)), hn::Set(d, 3.92f));
  const V t = hn::Mul(z, z);
  V p = hn::Set(d, -1.279807815e-08f);
  p = hn::MulAdd(p, t, hn::Set(d, 4.608864401e-06f));
  p = hn::MulAdd(p, t, hn::Set(d, 3.767459712e-04f));
  p = hn::MulAdd(p, t, hn::Set(d, 3.838644130e-03f));
  p = hn::MulAdd(p, t, hn::Set(d, 5.424387008e-02f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.851369143e-01f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.128379226e+00f));
  V q = hn::Set(d, 6.239561480e-05f);
  q = hn::MulAdd(q, t, hn::Set(d, 1.301511424e-03f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.543004811e-02f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.138741374e-01f));
  q = hn::MulAdd(q, t, hn::Set(d, 4.974067211e-01f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.0f));
  const V r = hn::Div(hn::Mul(z, p), q);
  return hn::IfThenElse(hn::Ge(hn::Abs(x), hn::Set(d, 3.92f)), hn::CopySign(hn::Set(d, 1.0f), x), r);
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
  } else if constexpr (F == unary_fn::gelu_erf) {
    const V inv_sqrt2 = hn::Set(d, 0.70710678118654752440f);
    return hn::Mul(hn::Mul(x, hn::Set(d, 0.5f)), hn::Add(one, erf_clamped(d, hn::Mul(x, inv_sqrt2))));
  } else if constexpr (F == unary_fn::log) {
    return log_any(d, x);
  } else if constexpr (F == unary_fn::sqrt) {
    return hn::Sqrt(x);
  } else if constexpr (F == unary_fn::rsqrt) {
    return hn::Div(one, hn::Sqrt(x));
  } else if constexpr (F == unary_fn::relu) {
    // relu(NaN) = NaN and relu(-0) = +0, as the reference.
    return hn::IfThenElse(hn::Or(hn::Gt(x, hn::Zero(d)), hn::IsNaN(x)), x, hn::Zero(d));
  } else if constexpr (F == unary_fn::neg) {
    return hn::Neg(x);
  } else if constexpr (F == unary_fn::abs) {
    return hn::Abs(x);
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
  } else if constexpr (F == unary_fn::gelu_erf) {
    return x * 0.5f * (1.0f + std::erf(x * 0.70710678118654752440f));
  } else if constexpr (F == unary_fn::log) {
    return std::log(x);
  } else if constexpr (F == unary_fn::sqrt) {
    return std::sqrt(x);
  } else if constexpr (F == unary_fn::rsqrt) {
    return 1.0f / std::sqrt(x);
  } else if constexpr (F == unary_fn::relu) {
    return x > 0 || std::isnan(x) ? x : 0.0f;
  } else if constexpr (F == unary_fn::neg) {
    return -x;
  } else if constexpr (F == unary_fn::abs) {
    return std::fabs(x);
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
    case unary_fn::gelu_erf:
      return unary_rows<unary_fn::gelu_erf>(x, e, y, n, stream);
    case unary_fn::log:
      return unary_rows<unary_fn::log>(x, e, y, n, stream);
    case unary_fn::sqrt:
      return unary_rows<unary_fn::sqrt>(x, e, y, n, stream);
    case unary_fn::rsqrt:
      return unary_rows<unary_fn::rsqrt>(x, e, y, n, stream);
    case unary_fn::relu:
      return unary_rows<unary_fn::relu>(x, e, y, n, stream);
    case unary_fn::neg:
      return unary_rows<unary_fn::neg>(x, e, y, n, stream);
    case unary_fn::abs:
      return unary_rows<unary_fn::abs>(x, e, y, n, stream);
  }
}

// ---- pow(x, p) for one f32 exponent, as std::pow(float, float)

// How pow_lanes computes x^p for |x| finite and not 0 (the other lanes are std::pow's, fixed up
// after): in double, where each form's error is far below f32's half ulp, so the result rounds
// as the correctly rounded one does but where the double value falls within ~2^-29 ulp of a
// halfway point (powf itself is not always correctly rounded either).
enum class pow_form { square, cube, fourth, sqrt, log_exp };

struct pow_plan {
  float p = 0;
  pow_form form = pow_form::log_exp;
  bool reciprocal = false;  // 1 / |x|^|p| (the forms but log_exp)
  bool integral = false;    // p an integer: a negative x gives a real result
  bool odd = false;         // p an odd integer: that result has x's sign
};

pow_plan plan_pow(float p) {
  pow_plan k;
  k.p = p;
  k.integral = std::nearbyint(p) == p;
  k.odd = k.integral && std::fabs(std::fmod(p, 2.0f)) == 1.0f;
  const float a = std::fabs(p);
  k.reciprocal = p < 0;
  if (a == 2)
    k.form = pow_form::square;
  else if (a == 3)
    k.form = pow_form::cube;
  else if (a == 4)
    k.form = pow_form::fourth;
  else if (a == 0.5f)
    k.form = pow_form::sqrt;
  else
    k.reciprocal = false;
  return k;
}

#if HWY_TARGET != HWY_SCALAR
// |x|^p for half a vector, in double.
template <class VH>
HWY_INLINE VH pow_half(VH xh, const pow_plan& k) {
  const DD dd;
  const DH dh;
  const auto a = hn::Abs(hn::PromoteTo(dd, xh));
  hn::Vec<DD> r;
  switch (k.form) {
    case pow_form::square:
      r = hn::Mul(a, a);
      break;
    case pow_form::cube:
      r = hn::Mul(hn::Mul(a, a), a);
      break;
    case pow_form::fourth:
      r = hn::Mul(hn::Mul(a, a), hn::Mul(a, a));
      break;
    case pow_form::sqrt:
      r = hn::Sqrt(a);
      break;
    case pow_form::log_exp: {
      // Highway's double Exp is defined up to 706: e^706 is already past f32's range.
      const auto t = hn::Min(hn::Mul(hn::Set(dd, static_cast<double>(k.p)), hn::Log(dd, a)), hn::Set(dd, 706.0));
      r = hn::Exp(dd, t);
      break;
    }
  }
  if (k.reciprocal) r = hn::Div(hn::Set(dd, 1.0), r);
  return hn::DemoteTo(dh, r);
}
#endif

template <class D, class V>
HWY_INLINE V pow_lanes(D d, V x, const pow_plan& k) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(d, std::pow(hn::GetLane(x), k.p));
#else
  const hn::Half<D> dh;
  V r = hn::Combine(d, pow_half(hn::UpperHalf(dh, x), k), pow_half(hn::LowerHalf(dh, x), k));
  // A negative x: x's sign for an odd integer p, NaN for a p that is not an integer.
  const auto negative = hn::Lt(x, hn::Zero(d));
  if (!k.integral) r = hn::IfThenElse(negative, hn::Set(d, std::numeric_limits<float>::quiet_NaN()), r);
  if (k.odd) r = hn::IfThenElse(negative, hn::Neg(r), r);
  // 0, +-Inf and NaN (and a NaN's payload) as libm gives them: rare, so one branch per vector.
  const auto special = hn::Or(hn::Or(hn::Eq(x, hn::Zero(d)), hn::IsInf(x)), hn::IsNaN(x));
  if (HWY_UNLIKELY(!hn::AllFalse(d, special))) {
    HWY_ALIGN float xs[hn::MaxLanes(D())];
    HWY_ALIGN float rs[hn::MaxLanes(D())];
    hn::Store(x, d, xs);
    hn::Store(r, d, rs);
    for (size_t i = 0; i < hn::Lanes(d); ++i)
      if (xs[i] == 0 || std::isinf(xs[i]) || std::isnan(xs[i])) rs[i] = std::pow(xs[i], k.p);
    r = hn::Load(d, rs);
  }
  return r;
#endif
}

void PowScalar(const void* HWY_RESTRICT x, elem e, float p, void* HWY_RESTRICT y, int64_t n, bool stream) {
  const DF d;
  const pow_plan k = plan_pow(p);
  by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    write_row<E>(
        d, y, n, stream, [&](int64_t i) { return pow_lanes(d, load_as<E>(d, x, i), k); },
        [&](int64_t i) { return std::pow(load_one<E>(x, i), p); });
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd::cpu::simd {

HWY_EXPORT(Unary);
HWY_EXPORT(PowScalar);

void pow_scalar(const void* x, elem e, float p, void* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(PowScalar)(x, e, p, y, n, stream);
}

void unary(unary_fn f, const void* x, elem e, void* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Unary)(f, x, e, y, n, stream);
}

}  // namespace xd::cpu::simd
#endif  // HWY_ONCE
