// The fast kernels' vector row primitives (simd.hpp), written once over Highway's portable
// vectors and compiled per instruction set by foreach_target.h: this file includes itself once
// per target, and HWY_DYNAMIC_DISPATCH calls the best one the CPU supports (chosen at the first
// call). The targets are set in CMakeLists.txt (SSE4, AVX2, AVX-512 and the portable baseline).
// clang-format off: foreach_target.h must come first, right after HWY_TARGET_INCLUDE.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/fast/simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/cache_control.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include <xd/numeric.hpp>

#include <cmath>
#include <cstring>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
// Work accumulated in double loads f32 half-vectors: as many floats as a vector holds doubles,
// promoted whole (every target, the 1-lane scalar one included, has that promotion).
using DD = hn::ScalableTag<double>;
using DH = hn::Rebind<float, DD>;

// The elementwise loops below write y[i] = f(i) for i in [0, n): vectors through `vec(i)`,
// single lanes through `one(i)`. With `stream`, stores are non-temporal (aligned vectors; the
// elements before the first aligned one are written singly).
template <class D, class V, class S>
HWY_INLINE void write_row(D d, float* HWY_RESTRICT y, int64_t n, bool stream, V vec, S one) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  if (stream) {
    const uintptr_t align = static_cast<uintptr_t>(N) * sizeof(float);
    for (; i < n && reinterpret_cast<uintptr_t>(y + i) % align != 0; ++i) y[i] = one(i);
    for (; i + N <= n; i += N) hn::Stream(vec(i), d, y + i);
  } else {
    for (; i + N <= n; i += N) hn::StoreU(vec(i), d, y + i);
  }
  for (; i < n; ++i) y[i] = one(i);
}

template <class A>
HWY_INLINE double total(A a, A b, A c, A e) {
  const DD dd;
  return hn::GetLane(hn::SumOfLanes(dd, hn::Add(hn::Add(a, b), hn::Add(c, e))));
}

// Sum over x of f(v) for each loaded vector (f32 lanes), in double; tail(x_i) for the rest.
template <class F, class G>
HWY_INLINE double sum_map(const float* HWY_RESTRICT x, int64_t n, F f, G tail) {
  const DH dh;
  const DD dd;
  const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
  auto a0 = hn::Zero(dd), a1 = hn::Zero(dd), a2 = hn::Zero(dd), a3 = hn::Zero(dd);
  int64_t i = 0;
  for (; i + 4 * H <= n; i += 4 * H) {
    a0 = hn::Add(a0, hn::PromoteTo(dd, f(hn::LoadU(dh, x + i))));
    a1 = hn::Add(a1, hn::PromoteTo(dd, f(hn::LoadU(dh, x + i + H))));
    a2 = hn::Add(a2, hn::PromoteTo(dd, f(hn::LoadU(dh, x + i + 2 * H))));
    a3 = hn::Add(a3, hn::PromoteTo(dd, f(hn::LoadU(dh, x + i + 3 * H))));
  }
  for (; i + H <= n; i += H) a0 = hn::Add(a0, hn::PromoteTo(dd, f(hn::LoadU(dh, x + i))));
  double s = total(a0, a1, a2, a3);
  for (; i < n; ++i) s += static_cast<double>(tail(x[i]));
  return s;
}

// The sum in double and, through `largest`, the largest |x| (NaN ignored): one pass for the
// reductions' order check (reduction_fast.cpp).
double SumMaxAbs(const float* HWY_RESTRICT x, int64_t n, float* HWY_RESTRICT largest) {
  const DH dh;
  const DD dd;
  const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
  auto a0 = hn::Zero(dd), a1 = hn::Zero(dd), a2 = hn::Zero(dd), a3 = hn::Zero(dd);
  auto m0 = hn::Zero(dh), m1 = hn::Zero(dh);
  int64_t i = 0;
  for (; i + 4 * H <= n; i += 4 * H) {
    const auto v0 = hn::LoadU(dh, x + i), v1 = hn::LoadU(dh, x + i + H);
    const auto v2 = hn::LoadU(dh, x + i + 2 * H), v3 = hn::LoadU(dh, x + i + 3 * H);
    a0 = hn::Add(a0, hn::PromoteTo(dd, v0));
    a1 = hn::Add(a1, hn::PromoteTo(dd, v1));
    a2 = hn::Add(a2, hn::PromoteTo(dd, v2));
    a3 = hn::Add(a3, hn::PromoteTo(dd, v3));
    m0 = hn::Max(m0, hn::Max(hn::Abs(v0), hn::Abs(v1)));
    m1 = hn::Max(m1, hn::Max(hn::Abs(v2), hn::Abs(v3)));
  }
  for (; i + H <= n; i += H) {
    const auto v = hn::LoadU(dh, x + i);
    a0 = hn::Add(a0, hn::PromoteTo(dd, v));
    m0 = hn::Max(m0, hn::Abs(v));
  }
  double s = total(a0, a1, a2, a3);
  float m = hn::GetLane(hn::MaxOfLanes(dh, hn::Max(m0, m1)));
  for (; i < n; ++i) {
    s += static_cast<double>(x[i]);
    m = std::fabs(x[i]) > m ? std::fabs(x[i]) : m;
  }
  *largest = m;
  return s;
}

double Sum(const float* HWY_RESTRICT x, int64_t n) {
  return sum_map(
      x, n, [](auto v) { return v; }, [](float v) { return v; });
}

double SumSquares(const float* HWY_RESTRICT x, int64_t n) {
  return sum_map(
      x, n, [](auto v) { return hn::Mul(v, v); }, [](float v) { return v * v; });
}

template <bool Max>
float Extreme(const float* HWY_RESTRICT x, int64_t n) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const float init = Max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  auto m0 = hn::Set(d, init), m1 = m0;
  auto nan = hn::Zero(d);  // lanes that saw a NaN (x86 max/min drop NaN operands)
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto v = hn::LoadU(d, x + i), u = hn::LoadU(d, x + i + N);
    m0 = Max ? hn::Max(m0, v) : hn::Min(m0, v);
    m1 = Max ? hn::Max(m1, u) : hn::Min(m1, u);
    nan = hn::Or(nan, hn::Or(hn::VecFromMask(d, hn::IsNaN(v)), hn::VecFromMask(d, hn::IsNaN(u))));
  }
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, x + i);
    m0 = Max ? hn::Max(m0, v) : hn::Min(m0, v);
    nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
  }
  if (!hn::AllFalse(d, hn::MaskFromVec(nan))) return std::numeric_limits<float>::quiet_NaN();
  const auto m = Max ? hn::Max(m0, m1) : hn::Min(m0, m1);
  float r = hn::GetLane(Max ? hn::MaxOfLanes(d, m) : hn::MinOfLanes(d, m));
  for (; i < n; ++i) {
    if (std::isnan(x[i])) return x[i];
    r = Max ? (x[i] > r ? x[i] : r) : (x[i] < r ? x[i] : r);
  }
  return r;
}
float MaxF(const float* HWY_RESTRICT x, int64_t n) { return Extreme<true>(x, n); }

float MinF(const float* HWY_RESTRICT x, int64_t n) { return Extreme<false>(x, n); }

// exp(x) for x <= 0 (softmax's shifted values), 1-2 ulp: Cephes' expf reduction x = n*ln2 + r
// with ln2 split in two, a degree-5 polynomial in r, and 2^n built in the exponent bits. x is
// clamped at -88, where n = -127 makes the exponent field 0 and the result exactly 0 (so -Inf
// gives 0); results below ~8e-39, subnormal in the true exp, become 0 on the way there. About
// half the operations of a general exp, which matters where the FP units are 128 bits wide (Zen 1).
template <class D, class V>
HWY_INLINE V ExpNonPositive(D d, V x) {
  const hn::RebindToSigned<D> di;
  const auto xc = hn::Max(x, hn::Set(d, -88.0f));
  // n = round(x / ln2) by adding 1.5 * 2^23: the sum's low mantissa bits then hold n, so n << 23
  // is the sum's bits shifted left by 23 (the magic constant's bits shift out entirely).
  const auto magic = hn::Set(d, 12582912.0f);
  const auto shifted = hn::MulAdd(xc, hn::Set(d, 1.44269504088896341f), magic);
  const auto n = hn::Sub(shifted, magic);
  auto r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), xc);
  r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
  auto p = hn::Set(d, 1.9875691500e-4f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.3981999507e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 8.3334519073e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.1665795894e-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.6666665459e-1f));
  p = hn::MulAdd(p, r, hn::Set(d, 5.0000001201e-1f));
  const auto y = hn::Add(hn::MulAdd(p, hn::Mul(r, r), r), hn::Set(d, 1.0f));
  const auto scale = hn::BitCast(d, hn::Add(hn::ShiftLeft<23>(hn::BitCast(di, shifted)), hn::Set(di, 127 << 23)));
  return hn::Mul(y, scale);
}

double ExpShifted(const float* HWY_RESTRICT x, float max, float* HWY_RESTRICT e, int64_t n) {
  // Full-width exponentials into e (L1-resident), then their sum in double from there.
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto vm = hn::Set(d, max);
  int64_t i = 0;
  // Four independent vectors per step: one exp is a long dependency chain, and a narrow
  // out-of-order window (Zen 1) overlaps several only when they sit side by side.
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto e0 = ExpNonPositive(d, hn::Sub(hn::LoadU(d, x + i), vm));
    const auto e1 = ExpNonPositive(d, hn::Sub(hn::LoadU(d, x + i + N), vm));
    const auto e2 = ExpNonPositive(d, hn::Sub(hn::LoadU(d, x + i + 2 * N), vm));
    const auto e3 = ExpNonPositive(d, hn::Sub(hn::LoadU(d, x + i + 3 * N), vm));
    hn::StoreU(e0, d, e + i);
    hn::StoreU(e1, d, e + i + N);
    hn::StoreU(e2, d, e + i + 2 * N);
    hn::StoreU(e3, d, e + i + 3 * N);
  }
  for (; i + N <= n; i += N) hn::StoreU(ExpNonPositive(d, hn::Sub(hn::LoadU(d, x + i), vm)), d, e + i);
  for (; i < n; ++i) e[i] = std::exp(x[i] - max);
  return Sum(e, n);
}

void Scale(const float* x, float s, float* y, int64_t n, bool stream) {
  const DF d;
  const auto vs = hn::Set(d, s);
  write_row(
      d, y, n, stream, [&](int64_t i) { return hn::Mul(hn::LoadU(d, x + i), vs); },
      [&](int64_t i) { return x[i] * s; });
}

void Subtract2(const float* HWY_RESTRICT x, float a, float b, float* HWY_RESTRICT y, int64_t n, bool stream) {
  const DF d;
  const auto va = hn::Set(d, a), vb = hn::Set(d, b);
  write_row(
      d, y, n, stream, [&](int64_t i) { return hn::Sub(hn::Sub(hn::LoadU(d, x + i), va), vb); },
      [&](int64_t i) { return (x[i] - a) - b; });
}

void ScaleWeighted(const float* HWY_RESTRICT x, float r, const float* HWY_RESTRICT w, float* HWY_RESTRICT y, int64_t n,
                   bool stream) {
  if (w == nullptr) return Scale(x, r, y, n, stream);
  const DF d;
  const auto vr = hn::Set(d, r);
  write_row(
      d, y, n, stream, [&](int64_t i) { return hn::Mul(hn::Mul(hn::LoadU(d, x + i), vr), hn::LoadU(d, w + i)); },
      [&](int64_t i) { return (x[i] * r) * w[i]; });
}

double DotGwXh(const float* HWY_RESTRICT g, const float* HWY_RESTRICT w, const float* HWY_RESTRICT x, float r,
               int64_t n) {
  const DH dh;
  const DD dd;
  const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
  const auto vr = hn::Set(dh, r);
  auto a0 = hn::Zero(dd), a1 = hn::Zero(dd);
  auto term = [&](int64_t at) {
    auto gw = hn::LoadU(dh, g + at);
    if (w != nullptr) gw = hn::Mul(gw, hn::LoadU(dh, w + at));
    const auto xh = hn::Mul(hn::LoadU(dh, x + at), vr);
    return hn::Mul(hn::PromoteTo(dd, gw), hn::PromoteTo(dd, xh));
  };
  int64_t i = 0;
  for (; i + 2 * H <= n; i += 2 * H) {
    a0 = hn::Add(a0, term(i));
    a1 = hn::Add(a1, term(i + H));
  }
  double s = total(a0, a1, hn::Zero(dd), hn::Zero(dd));
  for (; i < n; ++i) {
    const float gw = w != nullptr ? g[i] * w[i] : g[i];
    s += static_cast<double>(gw) * static_cast<double>(x[i] * r);
  }
  return s;
}

void RmsDx(const float* HWY_RESTRICT g, const float* HWY_RESTRICT w, const float* HWY_RESTRICT x, float r, float mean,
           float* HWY_RESTRICT dx, int64_t n, bool stream) {
  const DF d;
  const auto vr = hn::Set(d, r), vm = hn::Set(d, mean);
  write_row(
      d, dx, n, stream,
      [&](int64_t i) {
        auto gw = hn::LoadU(d, g + i);
        if (w != nullptr) gw = hn::Mul(gw, hn::LoadU(d, w + i));
        const auto xh = hn::Mul(hn::LoadU(d, x + i), vr);
        return hn::Mul(vr, hn::Sub(gw, hn::Mul(xh, vm)));
      },
      [&](int64_t i) {
        const float gw = w != nullptr ? g[i] * w[i] : g[i];
        return r * (gw - (x[i] * r) * mean);
      });
}

void AccumulateGXh(const float* HWY_RESTRICT g, const float* HWY_RESTRICT x, float r, double* HWY_RESTRICT part,
                   int64_t n) {
  const DH dh;
  const DD dd;
  const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
  const auto vr = hn::Set(dh, r);
  int64_t i = 0;
  // part += g*xh as a product then a sum (two roundings), as the reference accumulates.
  for (; i + H <= n; i += H) {
    const auto xh = hn::Mul(hn::LoadU(dh, x + i), vr);
    const auto prod = hn::Mul(hn::PromoteTo(dd, hn::LoadU(dh, g + i)), hn::PromoteTo(dd, xh));
    hn::StoreU(hn::Add(hn::LoadU(dd, part + i), prod), dd, part + i);
  }
  for (; i < n; ++i) part[i] += static_cast<double>(g[i]) * static_cast<double>(x[i] * r);
}

void Add(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, int64_t b_step, float alpha, float* HWY_RESTRICT y,
         int64_t n, bool stream) {
  const DF d;
  const auto va = hn::Set(d, alpha);
  // a + (alpha*b) with two roundings, as the reference computes it (no fused multiply-add).
  if (b_step == 0) {
    const float bs = alpha * b[0];
    const auto vb = hn::Set(d, bs);
    write_row(
        d, y, n, stream, [&](int64_t i) { return hn::Add(hn::LoadU(d, a + i), vb); },
        [&](int64_t i) { return a[i] + bs; });
    return;
  }
  write_row(
      d, y, n, stream, [&](int64_t i) { return hn::Add(hn::LoadU(d, a + i), hn::Mul(va, hn::LoadU(d, b + i))); },
      [&](int64_t i) { return a[i] + alpha * b[i]; });
}

void MulF(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, int64_t b_step, float* HWY_RESTRICT y, int64_t n,
          bool stream) {
  const DF d;
  if (b_step == 0) {
    const float bs = b[0];
    const auto vb = hn::Set(d, bs);
    write_row(
        d, y, n, stream, [&](int64_t i) { return hn::Mul(hn::LoadU(d, a + i), vb); },
        [&](int64_t i) { return a[i] * bs; });
    return;
  }
  write_row(
      d, y, n, stream, [&](int64_t i) { return hn::Mul(hn::LoadU(d, a + i), hn::LoadU(d, b + i)); },
      [&](int64_t i) { return a[i] * b[i]; });
}

void PromoteBf16(const uint16_t* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t n) {
  const DF d;
  const hn::RebindToUnsigned<DF> du;
  const hn::Rebind<uint16_t, DF> du16;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  // bf16 is the upper half of an f32: widen and shift, exact for every value.
  for (; i + N <= n; i += N)
    hn::StoreU(hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(du16, x + i)))), d, y + i);
  for (; i < n; ++i) y[i] = static_cast<float>(::xd::bfloat16::from_bits(x[i]));
}

void PromoteF16(const uint16_t* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t n) {
  int64_t i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
  // F16C's conversion: exact for every f16 value.
  const DF d;
  const hn::Rebind<hwy::float16_t, DF> dh16;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (; i + N <= n; i += N)
    hn::StoreU(hn::PromoteTo(d, hn::LoadU(dh16, reinterpret_cast<const hwy::float16_t*>(x) + i)), d, y + i);
#endif
  for (; i < n; ++i) y[i] = static_cast<float>(::xd::half::from_bits(x[i]));
}

void DemoteBf16(const float* HWY_RESTRICT x, uint16_t* HWY_RESTRICT y, int64_t n) {
  const DF d;
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint16_t, DF> du16;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  // Round to nearest even on the bits (Highway's own DemoteTo truncates); a NaN keeps its sign
  // and payload and is made quiet, as numeric.hpp's float_to_bf16 does.
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, x + i);
    const auto bits = hn::BitCast(du, v);
    const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
    const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7fffu), lsb)));
    const auto quiet = hn::Or(hn::ShiftRight<16>(bits), hn::Set(du, 0x40u));
    const auto out = hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), quiet, rounded);
    hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di, out)), du16, y + i);
  }
  for (; i < n; ++i) y[i] = ::xd::bfloat16(x[i]).bits;
}

void DemoteF16(const float* HWY_RESTRICT x, uint16_t* HWY_RESTRICT y, int64_t n) {
  int64_t i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
  // F16C rounds to nearest even and keeps NaN a NaN (Highway's emulation elsewhere truncates).
  const DF d;
  const hn::Rebind<hwy::float16_t, DF> dh16;
  const hn::Rebind<uint16_t, DF> du16;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (; i + N <= n; i += N) hn::StoreU(hn::BitCast(du16, hn::DemoteTo(dh16, hn::LoadU(d, x + i))), du16, y + i);
#endif
  for (; i < n; ++i) y[i] = ::xd::half(x[i]).bits;
}

void StreamCopy(void* HWY_RESTRICT dst, const void* HWY_RESTRICT src, size_t bytes) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t N = hn::Lanes(d8);
  auto* out = static_cast<uint8_t*>(dst);
  const auto* in = static_cast<const uint8_t*>(src);
  // Stream needs an aligned destination: copy up to the first vector boundary normally.
  size_t head = (N - reinterpret_cast<uintptr_t>(out) % N) % N;
  if (head > bytes) head = bytes;
  std::memcpy(out, in, head);
  size_t i = head;
  for (; i + N <= bytes; i += N) hn::Stream(hn::LoadU(d8, in + i), d8, out + i);
  std::memcpy(out + i, in + i, bytes - i);
}

void StreamFence() { hwy::FlushStream(); }

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd::cpu::simd {

HWY_EXPORT(Sum);
HWY_EXPORT(SumMaxAbs);
HWY_EXPORT(SumSquares);
HWY_EXPORT(MaxF);
HWY_EXPORT(MinF);
HWY_EXPORT(ExpShifted);
HWY_EXPORT(Scale);
HWY_EXPORT(Subtract2);
HWY_EXPORT(ScaleWeighted);
HWY_EXPORT(DotGwXh);
HWY_EXPORT(RmsDx);
HWY_EXPORT(AccumulateGXh);
HWY_EXPORT(Add);
HWY_EXPORT(MulF);
HWY_EXPORT(PromoteBf16);
HWY_EXPORT(PromoteF16);
HWY_EXPORT(DemoteBf16);
HWY_EXPORT(DemoteF16);
HWY_EXPORT(StreamCopy);
HWY_EXPORT(StreamFence);

const char* target_name() {
  // The best target both compiled here and supported by this CPU: the lowest set bit.
  const int64_t usable = hwy::SupportedTargets() & HWY_TARGETS;
  return usable != 0 ? hwy::TargetName(usable & -usable) : "none";
}

double sum(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(Sum)(x, n); }
double sum_max_abs(const float* x, int64_t n, float* largest) { return HWY_DYNAMIC_DISPATCH(SumMaxAbs)(x, n, largest); }
double sum_squares(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumSquares)(x, n); }
float max(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(MaxF)(x, n); }
float min(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(MinF)(x, n); }
double exp_shifted(const float* x, float max, float* e, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ExpShifted)(x, max, e, n);
}
void scale(const float* x, float s, float* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Scale)(x, s, y, n, stream);
}
void subtract2(const float* x, float a, float b, float* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Subtract2)(x, a, b, y, n, stream);
}
void scale_weighted(const float* x, float r, const float* w, float* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(ScaleWeighted)(x, r, w, y, n, stream);
}
double dot_gw_xh(const float* g, const float* w, const float* x, float r, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(DotGwXh)(g, w, x, r, n);
}
void rms_dx(const float* g, const float* w, const float* x, float r, float mean, float* dx, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(RmsDx)(g, w, x, r, mean, dx, n, stream);
}
void accumulate_g_xh(const float* g, const float* x, float r, double* part, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateGXh)(g, x, r, part, n);
}
void add(const float* a, const float* b, int64_t b_step, float alpha, float* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Add)(a, b, b_step, alpha, y, n, stream);
}
void mul(const float* a, const float* b, int64_t b_step, float* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(MulF)(a, b, b_step, y, n, stream);
}
void promote_bf16(const uint16_t* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(PromoteBf16)(x, y, n); }
void promote_f16(const uint16_t* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(PromoteF16)(x, y, n); }
void demote_bf16(const float* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(DemoteBf16)(x, y, n); }
void demote_f16(const float* x, uint16_t* y, int64_t n) { HWY_DYNAMIC_DISPATCH(DemoteF16)(x, y, n); }
void stream_copy(void* dst, const void* src, size_t bytes) { HWY_DYNAMIC_DISPATCH(StreamCopy)(dst, src, bytes); }
void stream_fence() { HWY_DYNAMIC_DISPATCH(StreamFence)(); }

}  // namespace xd::cpu::simd
#endif  // HWY_ONCE
