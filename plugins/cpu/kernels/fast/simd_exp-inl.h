// The fast kernels' f32 exp, compiled once per target as simd_rows-inl.h is (see there): softmax's
// exponentials (simd.cpp) and, where AVX-512 applies 2^n in one instruction, the elementwise
// exp/sigmoid/silu (simd_math.cpp).
//
// Both forms reduce x = k*ln2 + r with ln2 split in two (Cody and Waite: k*ln2's high part is
// exact), evaluate a short polynomial in r and scale by 2^k. Softmax and the elementwise ops on a
// few cores are bound by these exponentials (docs/performance.md), so the operation count is the
// design constraint:
// - AVX-512 (vpermps, vscalefps): k is a multiple of 1/16, the fractional part's 2^(j/16) comes
//   from a 16-entry table held in one register, and r in [-ln2/32, ln2/32] needs only a cubic
//   (minimax for relative error there, 1.6e-9): 7 multiply-adds against the other form's 9, ~12
//   vector operations in all.
// - Elsewhere: k an integer, a degree-6 polynomial (minimax for relative error on [-ln2/2,
//   ln2/2], 2e-9) in Horner form, 2^k built in the exponent bits.
// The table form, and the degree-6 polynomial when AVX-512 used it with vscalefps, were checked
// exhaustively against double exp over every f32 in [-110, 100]: at most 1 ulp from the
// correctly rounded value wherever that is normal.
#if defined(XD_CPU_FAST_SIMD_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef XD_CPU_FAST_SIMD_EXP_INL_H_
#undef XD_CPU_FAST_SIMD_EXP_INL_H_
#else
#define XD_CPU_FAST_SIMD_EXP_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether this target applies 2^n with vscalefps (IEEE rounding: subnormal results come out
// subnormal, large n overflows to +Inf, very negative n rounds to 0). Set anew for each target.
#undef XD_SIMD_EXP_SCALEF
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define XD_SIMD_EXP_SCALEF 1
#else
#define XD_SIMD_EXP_SCALEF 0
#endif

// exp(x) for x already clamped to the range its caller allows: with XD_SIMD_EXP_SCALEF,
// [-110, 100] (below -110 every result rounds to 0, above 88.73 to +Inf); otherwise [-88, 0],
// where 2^n is built in the exponent bits and n = -127 makes that field 0, so the result is
// exactly 0 at the bottom (results below ~8e-39, subnormal in the true exp, become 0 there).
#if XD_SIMD_EXP_SCALEF
template <class D, class V>
HWY_INLINE V exp_clamped(D d, V x) {
  // 2^(j/16) for j = 0..15, each the f32 nearest.
  alignas(64) static constexpr float kExp2Sixteenths[16] = {
      1.000000000e+00f, 1.044273734e+00f, 1.090507746e+00f, 1.138788581e+00f, 1.189207077e+00f, 1.241857767e+00f,
      1.296839595e+00f, 1.354255557e+00f, 1.414213538e+00f, 1.476826191e+00f, 1.542210817e+00f, 1.610490322e+00f,
      1.681792855e+00f, 1.756252170e+00f, 1.834008098e+00f, 1.915206552e+00f};
  // k = round(16 x / ln2) / 16 by adding 1.5 * 2^19, where the f32 spacing is 1/16: the sum's low
  // four mantissa bits then hold 16k mod 16, the table's index (vpermps reads only those bits).
  const auto magic = hn::Set(d, 786432.0f);
  const auto shifted = hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), magic);
  const auto k = hn::Sub(shifted, magic);
  // ln2's high part has 12 significant bits and k at most 12 (|16k| < 2^12), so k*hi is exact.
  auto r = hn::NegMulAdd(k, hn::Set(d, 0.693115234375f), x);
  r = hn::NegMulAdd(k, hn::Set(d, 3.19461833e-05f), r);
  const V t{_mm512_permutexvar_ps(_mm512_castps_si512(shifted.raw), _mm512_load_ps(kExp2Sixteenths))};
  // exp(r) - 1 = r + c2 r^2 + c3 r^3, then t * exp(r) as t + t * (exp(r) - 1).
  auto q = hn::MulAdd(hn::Set(d, 1.66668400e-1f), r, hn::Set(d, 5.00016212e-1f));
  q = hn::Mul(hn::MulAdd(q, r, hn::Set(d, 1.0f)), r);
  // vscalefps multiplies by 2^floor(k): the table has the fraction k - floor(k).
  return V{_mm512_scalef_ps(hn::MulAdd(t, q, t).raw, k.raw)};
}
#else
template <class D, class V>
HWY_INLINE V exp_clamped(D d, V x) {
  // n = round(x / ln2) by adding 1.5 * 2^23: the sum's low mantissa bits then hold n, so n << 23
  // is the sum's bits shifted left by 23 (the magic constant's bits shift out entirely).
  const auto magic = hn::Set(d, 12582912.0f);
  const auto shifted = hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), magic);
  const auto n = hn::Sub(shifted, magic);
  auto r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), x);
  r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
  auto p = hn::Set(d, 1.3836845755e-3f);
  p = hn::MulAdd(p, r, hn::Set(d, 8.3748158067e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.1668225080e-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.6666419804e-1f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.9999991059e-1f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  const hn::RebindToSigned<D> di;
  const auto scale = hn::BitCast(d, hn::Add(hn::ShiftLeft<23>(hn::BitCast(di, shifted)), hn::Set(di, 127 << 23)));
  return hn::Mul(p, scale);
}
#endif

// The bottom of exp_clamped's range on this target.
constexpr float kExpLowest = XD_SIMD_EXP_SCALEF ? -110.0f : -88.0f;

// exp(x) for x <= 0 (softmax's shifted values); -Inf gives 0.
template <class D, class V>
HWY_INLINE V exp_non_positive(D d, V x) {
  return exp_clamped(d, hn::Max(x, hn::Set(d, kExpLowest)));
}

#if XD_SIMD_EXP_SCALEF
// exp(x) for every x but NaN (whose result this leaves to the caller): +Inf from 88.73 on, 0 far
// below.
template <class D, class V>
HWY_INLINE V exp_not_nan(D d, V x) {
  return exp_clamped(d, hn::Min(hn::Max(x, hn::Set(d, kExpLowest)), hn::Set(d, 100.0f)));
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#endif  // XD_CPU_FAST_SIMD_EXP_INL_H_
