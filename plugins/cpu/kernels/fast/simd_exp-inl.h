// The fast kernels' f32 exp, compiled once per target as simd_rows-inl.h is (see there): softmax's
// exponentials (simd.cpp) and, where AVX-512 applies 2^n in one instruction, the elementwise
// exp/sigmoid/silu (simd_math.cpp).
//
// Cephes' reduction x = n*ln2 + r with ln2 split in two (n*ln2's high part is exact for |n| < 2^15),
// a degree-6 polynomial in r (minimax for relative error on [-ln2/2, ln2/2], 2e-9) in Horner
// form, then 2^n: ~13 vector operations where Highway's general Exp takes ~20, and softmax on a few
// cores is bound by its exponentials (docs/performance.md). Checked exhaustively against double
// exp over every f32 in [-110, 100]: at most 1 ulp from the correctly rounded value wherever that
// is normal.
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
#if XD_SIMD_EXP_SCALEF
  return V{_mm512_scalef_ps(p.raw, n.raw)};
#else
  const hn::RebindToSigned<D> di;
  const auto scale = hn::BitCast(d, hn::Add(hn::ShiftLeft<23>(hn::BitCast(di, shifted)), hn::Set(di, 127 << 23)));
  return hn::Mul(p, scale);
#endif
}

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
