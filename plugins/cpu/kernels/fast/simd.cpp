// The fast kernels' vector row primitives (simd.hpp), written once over Highway's portable
// vectors and compiled per instruction set by foreach_target.h: this file includes itself once
// per target, and HWY_DYNAMIC_DISPATCH calls the best one the CPU supports (chosen at the first
// call). The targets are set in CMakeLists.txt (SSE4, AVX2, AVX-512 and the portable baseline).
// foreach_target.h must come first, right after HWY_TARGET_INCLUDE:
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/fast/simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/cache_control.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include "kernels/fast/simd.hpp"

#include <xd/numeric.hpp>

#include "kernels/fast/simd_exp-inl.h"
#include "kernels/fast/simd_rows-inl.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The sum in double and, through `largest`, the largest |x| (NaN ignored): one pass for the
// reductions' order check (reduction_fast.cpp).
template <elem E>
double SumMaxAbsT(const void* HWY_RESTRICT x, int64_t n, float* HWY_RESTRICT largest) {
  const DH dh;
  const DD dd;
  const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
  auto a0 = hn::Zero(dd), a1 = hn::Zero(dd), a2 = hn::Zero(dd), a3 = hn::Zero(dd);
  auto m0 = hn::Zero(dh), m1 = hn::Zero(dh);
  int64_t i = 0;
  for (; i + 4 * H <= n; i += 4 * H) {
    prefetch_ahead<E>(x, i, 4 * H);
    const auto v0 = load_as<E>(dh, x, i), v1 = load_as<E>(dh, x, i + H);
    const auto v2 = load_as<E>(dh, x, i + 2 * H), v3 = load_as<E>(dh, x, i + 3 * H);
    a0 = hn::Add(a0, hn::PromoteTo(dd, v0));
    a1 = hn::Add(a1, hn::PromoteTo(dd, v1));
    a2 = hn::Add(a2, hn::PromoteTo(dd, v2));
    a3 = hn::Add(a3, hn::PromoteTo(dd, v3));
    m0 = hn::Max(m0, hn::Max(hn::Abs(v0), hn::Abs(v1)));
    m1 = hn::Max(m1, hn::Max(hn::Abs(v2), hn::Abs(v3)));
  }
  for (; i + H <= n; i += H) {
    const auto v = load_as<E>(dh, x, i);
    a0 = hn::Add(a0, hn::PromoteTo(dd, v));
    m0 = hn::Max(m0, hn::Abs(v));
  }
  double s = total(a0, a1, a2, a3);
  float m = hn::GetLane(hn::MaxOfLanes(dh, hn::Max(m0, m1)));
  for (; i < n; ++i) {
    const float v = load_one<E>(x, i);
    s += static_cast<double>(v);
    m = std::fabs(v) > m ? std::fabs(v) : m;
  }
  *largest = m;
  return s;
}
double SumMaxAbs(const void* HWY_RESTRICT x, elem e, int64_t n, float* HWY_RESTRICT largest) {
  return by_elem(e, [&](auto t) { return SumMaxAbsT<decltype(t)::value>(x, n, largest); });
}

double SumSquares(const void* HWY_RESTRICT x, elem e, int64_t n) {
  return by_elem(e, [&](auto t) {
    return sum_map<decltype(t)::value>(
        x, n, [](auto v) { return hn::Mul(v, v); }, [](float v) { return v * v; });
  });
}

double SumSquaresF32(const void* HWY_RESTRICT x, elem e, int64_t n) {
  return by_elem(e, [&](auto t) {
    return sum_squares_f32<decltype(t)::value>(
        x, n, [](auto v) HWY_ATTR { return v; }, [](float v) { return v; });
  });
}

template <bool Max, elem E>
float Extreme(const void* HWY_RESTRICT x, int64_t n) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const float init = Max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  auto m0 = hn::Set(d, init), m1 = m0, m2 = m0, m3 = m0;
  auto pick = [](auto a, auto b) HWY_ATTR { return Max ? hn::Max(a, b) : hn::Min(a, b); };
  // Lanes that saw a NaN (x86 max/min drop NaN operands), kept as a mask: on AVX-512 a mask
  // register, so tracking them costs a compare a vector rather than a compare, a conversion to a
  // vector and an or. With those and two vectors a step, amax took 1.03-1.17 of sum's time; this
  // form, 0.94-0.98 of that (docs/performance.md, "rms_norm's sum of squares in f32; the next
  // rows into L2").
  auto nan = hn::FirstN(d, 0);
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    prefetch_ahead<E>(x, i, 4 * N);
    const auto v0 = load_as<E>(d, x, i), v1 = load_as<E>(d, x, i + N);
    const auto v2 = load_as<E>(d, x, i + 2 * N), v3 = load_as<E>(d, x, i + 3 * N);
    m0 = pick(m0, v0);
    m1 = pick(m1, v1);
    m2 = pick(m2, v2);
    m3 = pick(m3, v3);
    nan = hn::Or(nan, hn::Or(hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)), hn::Or(hn::IsNaN(v2), hn::IsNaN(v3))));
  }
  for (; i + N <= n; i += N) {
    const auto v = load_as<E>(d, x, i);
    m0 = pick(m0, v);
    nan = hn::Or(nan, hn::IsNaN(v));
  }
  if (!hn::AllFalse(d, nan)) return std::numeric_limits<float>::quiet_NaN();
  const auto m = pick(pick(m0, m1), pick(m2, m3));
  float r = hn::GetLane(Max ? hn::MaxOfLanes(d, m) : hn::MinOfLanes(d, m));
  for (; i < n; ++i) {
    const float v = load_one<E>(x, i);
    if (std::isnan(v)) return v;
    r = Max ? (v > r ? v : r) : (v < r ? v : r);
  }
  return r;
}
float MaxF(const void* HWY_RESTRICT x, elem e, int64_t n) {
  return by_elem(e, [&](auto t) { return Extreme<true, decltype(t)::value>(x, n); });
}
float MinF(const void* HWY_RESTRICT x, elem e, int64_t n) {
  return by_elem(e, [&](auto t) { return Extreme<false, decltype(t)::value>(x, n); });
}

template <elem E>
int64_t FindFirstT(const void* HWY_RESTRICT x, int64_t n, float value) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const bool nan = std::isnan(value);
  const auto v = hn::Set(d, value);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto x_i = load_as<E>(d, x, i);
    const intptr_t k = hn::FindFirstTrue(d, nan ? hn::IsNaN(x_i) : hn::Eq(x_i, v));
    if (k >= 0) return i + k;
  }
  for (; i < n; ++i) {
    const float x_i = load_one<E>(x, i);
    if (nan ? std::isnan(x_i) : x_i == value) return i;
  }
  return n;
}
int64_t FindFirst(const void* HWY_RESTRICT x, elem e, int64_t n, float value) {
  return by_elem(e, [&](auto t) { return FindFirstT<decltype(t)::value>(x, n, value); });
}

// Adds the lanes of t to the double accumulators (its lower half to lo, its upper half to hi).
template <class V, class A>
HWY_INLINE void add_promoted(V t, A& lo, A& hi) {
  const DD dd;
#if HWY_TARGET == HWY_SCALAR
  (void)hi;
  lo = hn::Add(lo, hn::PromoteTo(dd, t));
#else
  const DH dh;
  lo = hn::Add(lo, hn::PromoteTo(dd, hn::LowerHalf(dh, t)));
  hi = hn::Add(hi, hn::PromoteTo(dd, hn::UpperHalf(dh, t)));
#endif
}

double ExpShifted(const float* HWY_RESTRICT x, float max, float* HWY_RESTRICT e, int64_t n,
                  const void* HWY_RESTRICT next, int64_t next_bytes) {
  // Exponentials into e (L1-resident) with their sum: each step's four vectors are added in f32
  // (at most 4 terms of at most 1 per lane) and that partial promoted to double, so the sum
  // needs no second pass over e.
  const DF d;
  const DD dd;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto vm = hn::Set(d, max);
  auto lo = hn::Zero(dd), hi = hn::Zero(dd);
  // The caller's next row is asked for while these exponentials compute: the row loop is
  // bound by exp here, and its first pass over the next row (the maximum) would otherwise wait
  // on memory with the FP units idle (docs/performance.md). One step covers 16*N bytes of x,
  // so the next row's lines are requested at the rate this row's are used.
  const char* pf = static_cast<const char*>(next);
  const int64_t step_bytes = 16 * N;
  int64_t pf_at = pf == nullptr ? next_bytes : 0;
  int64_t i = 0;
  // Four independent vectors per step: one exp is a long dependency chain, and a narrow
  // out-of-order window (Zen 1) overlaps several only when they sit side by side.
  for (; i + 4 * N <= n; i += 4 * N) {
    for (int64_t b = 0; b < step_bytes && pf_at < next_bytes; b += 64, pf_at += 64) prefetch_l2(pf + pf_at);
    const auto e0 = exp_non_positive(d, hn::Sub(hn::LoadU(d, x + i), vm));
    const auto e1 = exp_non_positive(d, hn::Sub(hn::LoadU(d, x + i + N), vm));
    const auto e2 = exp_non_positive(d, hn::Sub(hn::LoadU(d, x + i + 2 * N), vm));
    const auto e3 = exp_non_positive(d, hn::Sub(hn::LoadU(d, x + i + 3 * N), vm));
    if (e != nullptr) {
      hn::StoreU(e0, d, e + i);
      hn::StoreU(e1, d, e + i + N);
      hn::StoreU(e2, d, e + i + 2 * N);
      hn::StoreU(e3, d, e + i + 3 * N);
    }
    add_promoted(hn::Add(hn::Add(e0, e1), hn::Add(e2, e3)), lo, hi);
  }
  for (; i + N <= n; i += N) {
    const auto v = exp_non_positive(d, hn::Sub(hn::LoadU(d, x + i), vm));
    if (e != nullptr) hn::StoreU(v, d, e + i);
    add_promoted(v, lo, hi);
  }
  double s = hn::GetLane(hn::SumOfLanes(dd, hn::Add(lo, hi)));
  for (; i < n; ++i) {
    const float v = std::exp(x[i] - max);
    if (e != nullptr) e[i] = v;
    s += v;
  }
  return s;
}

void Scale(const float* HWY_RESTRICT x, float s, void* HWY_RESTRICT y, elem ey, int64_t n, bool stream) {
  const DF d;
  const auto vs = hn::Set(d, s);
  by_elem(ey, [&](auto t) {
    write_row<decltype(t)::value>(
        d, y, n, stream, [&](int64_t i) { return hn::Mul(hn::LoadU(d, x + i), vs); },
        [&](int64_t i) { return x[i] * s; });
  });
}

void Subtract2(const float* HWY_RESTRICT x, float a, float b, void* HWY_RESTRICT y, elem ey, int64_t n, bool stream) {
  const DF d;
  const auto va = hn::Set(d, a), vb = hn::Set(d, b);
  by_elem(ey, [&](auto t) {
    write_row<decltype(t)::value>(
        d, y, n, stream, [&](int64_t i) { return hn::Sub(hn::Sub(hn::LoadU(d, x + i), va), vb); },
        [&](int64_t i) { return (x[i] - a) - b; });
  });
}

void ScaleWeighted(const void* HWY_RESTRICT x, elem e, float r, const float* HWY_RESTRICT w, void* HWY_RESTRICT y,
                   int64_t n, bool stream, next_rows next) {
  const DF d;
  const auto vr = hn::Set(d, r);
  by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    if (w == nullptr) {
      write_row<E>(
          d, y, n, stream, [&](int64_t i) { return hn::Mul(load_as<E>(d, x, i), vr); },
          [&](int64_t i) { return load_one<E>(x, i) * r; }, next);
      return;
    }
    write_row<E>(
        d, y, n, stream, [&](int64_t i) { return hn::Mul(hn::Mul(load_as<E>(d, x, i), vr), hn::LoadU(d, w + i)); },
        [&](int64_t i) { return (load_one<E>(x, i) * r) * w[i]; }, next);
  });
}

void Add(const void* HWY_RESTRICT a, const void* HWY_RESTRICT b, elem e, int64_t b_step, float alpha,
         void* HWY_RESTRICT y, int64_t n, bool stream) {
  const DF d;
  const auto va = hn::Set(d, alpha);
  by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    // a + (alpha*b) with two roundings, as the reference computes it (no fused multiply-add).
    if (b_step == 0) {
      const float bs = alpha * load_one<E>(b, 0);
      const auto vb = hn::Set(d, bs);
      write_row<E>(
          d, y, n, stream, [&](int64_t i) { return hn::Add(load_as<E>(d, a, i), vb); },
          [&](int64_t i) { return load_one<E>(a, i) + bs; });
      return;
    }
    write_row<E>(
        d, y, n, stream, [&](int64_t i) { return hn::Add(load_as<E>(d, a, i), hn::Mul(va, load_as<E>(d, b, i))); },
        [&](int64_t i) { return load_one<E>(a, i) + alpha * load_one<E>(b, i); });
  });
}

// a[i] * b[i] or a[i] / b[i] (b[0] for every i when b_step is 0), one rounding as the reference.
template <bool Div>
void MulDiv(const void* HWY_RESTRICT a, const void* HWY_RESTRICT b, elem e, int64_t b_step, void* HWY_RESTRICT y,
            int64_t n, bool stream) {
  const DF d;
  auto op = [](auto u, auto v) { return Div ? hn::Div(u, v) : hn::Mul(u, v); };
  auto op_one = [](float u, float v) { return Div ? u / v : u * v; };
  by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    if (b_step == 0) {
      const float bs = load_one<E>(b, 0);
      const auto vb = hn::Set(d, bs);
      write_row<E>(
          d, y, n, stream, [&](int64_t i) { return op(load_as<E>(d, a, i), vb); },
          [&](int64_t i) { return op_one(load_one<E>(a, i), bs); });
      return;
    }
    write_row<E>(
        d, y, n, stream, [&](int64_t i) { return op(load_as<E>(d, a, i), load_as<E>(d, b, i)); },
        [&](int64_t i) { return op_one(load_one<E>(a, i), load_one<E>(b, i)); });
  });
}
void MulF(const void* HWY_RESTRICT a, const void* HWY_RESTRICT b, elem e, int64_t b_step, void* HWY_RESTRICT y,
          int64_t n, bool stream) {
  MulDiv<false>(a, b, e, b_step, y, n, stream);
}
void DivF(const void* HWY_RESTRICT a, const void* HWY_RESTRICT b, elem e, int64_t b_step, void* HWY_RESTRICT y,
          int64_t n, bool stream) {
  MulDiv<true>(a, b, e, b_step, y, n, stream);
}

void Convert(const void* HWY_RESTRICT x, elem ex, void* HWY_RESTRICT y, elem ey, int64_t n, bool stream) {
  const DF d;
  by_elem(ex, [&](auto tx) {
    constexpr elem EX = decltype(tx)::value;
    by_elem(ey, [&](auto ty) {
      write_row<decltype(ty)::value>(
          d, y, n, stream, [&](int64_t i) { return load_as<EX>(d, x, i); },
          [&](int64_t i) { return load_one<EX>(x, i); });
    });
  });
}

void StreamCopy(void* HWY_RESTRICT dst, const void* HWY_RESTRICT src, size_t bytes) {
#if HWY_TARGET == HWY_SCALAR
  std::memcpy(dst, src, bytes);  // one byte per vector: nothing to gain over memcpy
#else
  const hn::ScalableTag<uint8_t> d8;
  const size_t N = hn::Lanes(d8);
  auto* out = static_cast<uint8_t*>(dst);
  const auto* in = static_cast<const uint8_t*>(src);
  // Stream needs an aligned destination: copy up to the first vector boundary normally.
  size_t head = (N - reinterpret_cast<uintptr_t>(out) % N) % N;
  if (head > bytes) head = bytes;
  std::memcpy(out, in, head);
  size_t i = head;
  // Four loads before their stores, so that several lines are in flight per thread.
  for (; i + 4 * N <= bytes; i += 4 * N) {
    const auto v0 = hn::LoadU(d8, in + i), v1 = hn::LoadU(d8, in + i + N);
    const auto v2 = hn::LoadU(d8, in + i + 2 * N), v3 = hn::LoadU(d8, in + i + 3 * N);
    hn::Stream(v0, d8, out + i);
    hn::Stream(v1, d8, out + i + N);
    hn::Stream(v2, d8, out + i + 2 * N);
    hn::Stream(v3, d8, out + i + 3 * N);
  }
  for (; i + N <= bytes; i += N) hn::Stream(hn::LoadU(d8, in + i), d8, out + i);
  std::memcpy(out + i, in + i, bytes - i);
#endif
}

void StreamFence() { hwy::FlushStream(); }

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd::cpu::simd {

HWY_EXPORT(SumMaxAbs);
HWY_EXPORT(SumSquares);
HWY_EXPORT(SumSquaresF32);
HWY_EXPORT(MaxF);
HWY_EXPORT(MinF);
HWY_EXPORT(FindFirst);
HWY_EXPORT(ExpShifted);
HWY_EXPORT(Scale);
HWY_EXPORT(Subtract2);
HWY_EXPORT(ScaleWeighted);
HWY_EXPORT(Add);
HWY_EXPORT(MulF);
HWY_EXPORT(DivF);
HWY_EXPORT(Convert);
HWY_EXPORT(StreamCopy);
HWY_EXPORT(StreamFence);

const char* target_name() {
  // The best target both compiled here and supported by this CPU: the lowest set bit.
  const int64_t usable = hwy::SupportedTargets() & HWY_TARGETS;
  return usable != 0 ? hwy::TargetName(usable & -usable) : "none";
}

bool cap_target(std::string_view isa) {
  if (isa == "best") return true;
  int64_t cap = 0;
#if HWY_ARCH_X86
  if (isa == "avx512") cap = HWY_AVX3;
  if (isa == "avx2") cap = HWY_AVX2;
  if (isa == "sse4") cap = HWY_SSE4;
#endif
  if (isa == "scalar") cap = HWY_SCALAR;
  if (cap == 0) return false;
  // Highway orders targets best first by bit: every better one has a lower bit.
  hwy::DisableTargets(cap - 1);
  return true;
}

double sum_max_abs(const void* x, elem e, int64_t n, float* largest) {
  return HWY_DYNAMIC_DISPATCH(SumMaxAbs)(x, e, n, largest);
}
double sum_squares(const void* x, elem e, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumSquares)(x, e, n); }
double sum_squares_f32(const void* x, elem e, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumSquaresF32)(x, e, n); }
float max(const void* x, elem e, int64_t n) { return HWY_DYNAMIC_DISPATCH(MaxF)(x, e, n); }
float min(const void* x, elem e, int64_t n) { return HWY_DYNAMIC_DISPATCH(MinF)(x, e, n); }
int64_t find_first(const void* x, elem e, int64_t n, float value) {
  return HWY_DYNAMIC_DISPATCH(FindFirst)(x, e, n, value);
}
double exp_shifted(const float* x, float max, float* e, int64_t n, const void* next, int64_t next_bytes) {
  return HWY_DYNAMIC_DISPATCH(ExpShifted)(x, max, e, n, next, next_bytes);
}
void scale(const float* x, float s, void* y, elem ey, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Scale)(x, s, y, ey, n, stream);
}
void subtract2(const float* x, float a, float b, void* y, elem ey, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Subtract2)(x, a, b, y, ey, n, stream);
}
void scale_weighted(const void* x, elem e, float r, const float* w, void* y, int64_t n, bool stream, next_rows next) {
  HWY_DYNAMIC_DISPATCH(ScaleWeighted)(x, e, r, w, y, n, stream, next);
}
void add(const void* a, const void* b, elem e, int64_t b_step, float alpha, void* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Add)(a, b, e, b_step, alpha, y, n, stream);
}
void mul(const void* a, const void* b, elem e, int64_t b_step, void* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(MulF)(a, b, e, b_step, y, n, stream);
}
void div(const void* a, const void* b, elem e, int64_t b_step, void* y, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(DivF)(a, b, e, b_step, y, n, stream);
}
void convert(const void* x, elem ex, void* y, elem ey, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Convert)(x, ex, y, ey, n, stream);
}
void stream_copy(void* dst, const void* src, size_t bytes) { HWY_DYNAMIC_DISPATCH(StreamCopy)(dst, src, bytes); }
void stream_fence() { HWY_DYNAMIC_DISPATCH(StreamFence)(); }

}  // namespace xd::cpu::simd
#endif  // HWY_ONCE
