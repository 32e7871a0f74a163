// Per-target pieces the fast kernels' vector files share (simd.cpp, simd_math.cpp): the vector
// types, typed loads and stores of f32/bf16/f16 rows (rounded once, to nearest even, NaN kept
// NaN), and write_row, the loop every elementwise primitive stores through. Like Highway's own
// -inl.h headers it is compiled once per target: a file that includes foreach_target.h includes
// it again for each one, and the toggle below lets each pass through.
#if defined(XD_CPU_FAST_SIMD_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef XD_CPU_FAST_SIMD_ROWS_INL_H_
#undef XD_CPU_FAST_SIMD_ROWS_INL_H_
#else
#define XD_CPU_FAST_SIMD_ROWS_INL_H_
#endif

#include <xd/numeric.hpp>

#include "kernels/fast/simd.hpp"

#include <cstdint>
#include <hwy/cache_control.h>
#include <hwy/highway.h>
#include <type_traits>

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
// Work accumulated in double loads f32 half-vectors: as many floats as a vector holds doubles,
// promoted whole (every target, the 1-lane scalar one included, has that promotion).
using DD = hn::ScalableTag<double>;
using DH = hn::Rebind<float, DD>;

// F16C converts f16 exactly both ways, rounding to nearest even (Highway's emulation elsewhere
// truncates on the way down), so other targets convert f16 lane by lane through numeric.hpp.
#undef XD_SIMD_F16C
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
#define XD_SIMD_F16C 1
#else
#define XD_SIMD_F16C 0
#endif

// A read loop that does more than a few vector operations per cache line (promoting to double,
// tracking a maximum) kept too few loads in flight for the hardware prefetcher alone on a Zen 1
// (AVX2): a row sum in double read 13-15 GB/s where a plain f32 sum read 18-19, and asking for the
// line 1 KiB ahead brought it to 19-20. On a Zen 4 (AVX-512) the same prefetches cost 10-25%
// against the hardware prefetcher alone (docs/performance.md), so the 512-bit targets leave it to
// the hardware. A prefetch never faults, past the end included.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr int64_t kPrefetchBytes = 0;
#else
constexpr int64_t kPrefetchBytes = 1024;
#endif
// Asks for every cache line of elements [i, i + count) kPrefetchBytes ahead: one step of a loop
// spans 64 bytes with 256-bit vectors and 128 with 512-bit ones, where a single prefetch per step
// left every other line to the hardware.
template <elem E>
HWY_INLINE void prefetch_ahead(const void* p, int64_t i, int64_t count) {
  if constexpr (kPrefetchBytes == 0) return;
  constexpr int64_t size = E == elem::f32 ? 4 : 2;
  const char* at = static_cast<const char*>(p) + i * size + kPrefetchBytes;
  for (int64_t b = 0; b < count * size; b += 64) hwy::Prefetch(at + b);
}

template <class A>
HWY_INLINE double total(A a, A b, A c, A e) {
  const DD dd;
  return hn::GetLane(hn::SumOfLanes(dd, hn::Add(hn::Add(a, b), hn::Add(c, e))));
}

// ---- typed rows: the element a pointer holds is an `elem` (f32, or bf16/f16 bits); values are
// loaded as f32 vectors and stored rounded once to nearest even, NaN kept NaN.

template <elem E>
using elem_tag = std::integral_constant<elem, E>;

// Calls f(elem_tag<e>) for the runtime e: one switch per row, the loops inside are typed.
template <class F>
HWY_INLINE decltype(auto) by_elem(elem e, F&& f) {
  switch (e) {
    case elem::bf16:
      return f(elem_tag<elem::bf16>{});
    case elem::f16:
      return f(elem_tag<elem::f16>{});
    default:
      return f(elem_tag<elem::f32>{});
  }
}

// The element at p[i] as f32.
template <elem E>
HWY_INLINE float load_one(const void* HWY_RESTRICT p, int64_t i) {
  if constexpr (E == elem::f32) {
    return static_cast<const float*>(p)[i];
  } else if constexpr (E == elem::bf16) {
    return static_cast<float>(::xd::bfloat16::from_bits(static_cast<const uint16_t*>(p)[i]));
  } else {
    return static_cast<float>(::xd::half::from_bits(static_cast<const uint16_t*>(p)[i]));
  }
}

template <elem E>
HWY_INLINE void store_one(void* HWY_RESTRICT p, int64_t i, float v) {
  if constexpr (E == elem::f32) {
    static_cast<float*>(p)[i] = v;
  } else if constexpr (E == elem::bf16) {
    static_cast<uint16_t*>(p)[i] = ::xd::bfloat16(v).bits;
  } else {
    static_cast<uint16_t*>(p)[i] = ::xd::half(v).bits;
  }
}

// A vector of d's lanes from p + i, as f32 (d: DF or DH).
template <elem E, class D>
HWY_INLINE hn::Vec<D> load_as(D d, const void* HWY_RESTRICT p, int64_t i) {
  if constexpr (E == elem::f32) {
    return hn::LoadU(d, static_cast<const float*>(p) + i);
  } else if constexpr (E == elem::bf16) {
    // bf16 is the upper half of an f32: widen and shift, exact for every value.
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint16_t, D> du16;
    return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(du16, static_cast<const uint16_t*>(p) + i))));
  } else {
#if XD_SIMD_F16C
    const hn::Rebind<hwy::float16_t, D> dh16;
    return hn::PromoteTo(d, hn::LoadU(dh16, static_cast<const hwy::float16_t*>(p) + i));
#else
    HWY_ALIGN float lanes[hn::MaxLanes(D())];
    for (size_t k = 0; k < hn::Lanes(d); ++k) lanes[k] = load_one<E>(p, i + static_cast<int64_t>(k));
    return hn::Load(d, lanes);
#endif
  }
}

// The 16-bit patterns of v rounded to bf16 (to nearest even; a NaN keeps its sign and payload
// and is made quiet, as numeric.hpp's float_to_bf16 does; Highway's own DemoteTo truncates).
template <class D>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, D>> bf16_bits(D d, hn::Vec<D> v) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const hn::Rebind<uint16_t, D> du16;
  const auto bits = hn::BitCast(du, v);
  const auto high = hn::ShiftRight<16>(bits);
  auto out = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7fffu), hn::And(high, hn::Set(du, 1u)))));
  // NaN is rare: its fix-up behind a branch costs less than a select on every vector (the store
  // is most of a bf16 row's work on CPUs without bf16 instructions).
  const auto nan = hn::IsNaN(v);
  if (HWY_UNLIKELY(!hn::AllFalse(d, nan)))
    out = hn::IfThenElse(hn::RebindMask(du, nan), hn::Or(high, hn::Set(du, 0x40u)), out);
  return hn::DemoteTo(du16, hn::BitCast(di, out));
}

// Whether a row of E is written with non-temporal stores when asked: a 16-bit row's vector must
// be a whole register (x86's Stream of a partial vector writes 16 bytes), so narrow SSE4 rows
// are stored normally.
template <elem E, class D>
constexpr bool can_stream(D) {
  if constexpr (E == elem::f32)
    return true;
  else
    return hn::MaxLanes(hn::Rebind<uint16_t, D>()) * sizeof(uint16_t) % 16 == 0;
}

// Stores v at p + i as E; `stream`: non-temporal (p + i aligned to the stored vector's size).
template <elem E, class D>
HWY_INLINE void store_as(D d, hn::Vec<D> v, void* HWY_RESTRICT p, int64_t i, bool stream) {
  if constexpr (E == elem::f32) {
    float* y = static_cast<float*>(p) + i;
    if (stream) {
      hn::Stream(v, d, y);
    } else {
      hn::StoreU(v, d, y);
    }
  } else {
    const hn::Rebind<uint16_t, D> du16;
    uint16_t* y = static_cast<uint16_t*>(p) + i;
    hn::Vec<hn::Rebind<uint16_t, D>> bits;
    if constexpr (E == elem::bf16) {
      bits = bf16_bits(d, v);
    } else {
#if XD_SIMD_F16C
      const hn::Rebind<hwy::float16_t, D> dh16;
      bits = hn::BitCast(du16, hn::DemoteTo(dh16, v));
#else
      HWY_ALIGN float lanes[hn::MaxLanes(D())];
      HWY_ALIGN uint16_t out[hn::MaxLanes(D())];
      hn::Store(v, d, lanes);
      for (size_t k = 0; k < hn::Lanes(d); ++k) out[k] = ::xd::half(lanes[k]).bits;
      bits = hn::Load(du16, out);
#endif
    }
    if constexpr (can_stream<E>(D())) {
      if (stream) return hn::Stream(bits, du16, y);
    }
    hn::StoreU(bits, du16, y);
  }
}

// Sum over x (elements E) of f(v) for each loaded half-vector (f32 lanes), in double; tail(x_i)
// for the rest.
template <elem E, class F, class G>
HWY_INLINE double sum_map(const void* HWY_RESTRICT x, int64_t n, F f, G tail) {
  const DH dh;
  const DD dd;
  const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
  auto a0 = hn::Zero(dd), a1 = hn::Zero(dd), a2 = hn::Zero(dd), a3 = hn::Zero(dd);
  int64_t i = 0;
  for (; i + 4 * H <= n; i += 4 * H) {
    prefetch_ahead<E>(x, i, 4 * H);
    a0 = hn::Add(a0, hn::PromoteTo(dd, f(load_as<E>(dh, x, i))));
    a1 = hn::Add(a1, hn::PromoteTo(dd, f(load_as<E>(dh, x, i + H))));
    a2 = hn::Add(a2, hn::PromoteTo(dd, f(load_as<E>(dh, x, i + 2 * H))));
    a3 = hn::Add(a3, hn::PromoteTo(dd, f(load_as<E>(dh, x, i + 3 * H))));
  }
  for (; i + H <= n; i += H) a0 = hn::Add(a0, hn::PromoteTo(dd, f(load_as<E>(dh, x, i))));
  double s = total(a0, a1, a2, a3);
  for (; i < n; ++i) s += static_cast<double>(tail(load_one<E>(x, i)));
  return s;
}

// The lanes of four f32 accumulators (summed in f32 lane by lane), added in double: the end of
// the f32 fma sums (rms_norm's, layer_norm's), whose lanes hold partial sums of many terms.
template <class V>
HWY_INLINE double lanes_in_double(V a, V b, V c, V e) {
  const DF d;
  HWY_ALIGN float lanes[hn::MaxLanes(DF())];
  hn::Store(hn::Add(hn::Add(a, b), hn::Add(c, e)), d, lanes);
  double s = 0;
  for (size_t k = 0; k < hn::Lanes(d); ++k) s += static_cast<double>(lanes[k]);
  return s;
}

// Sum over x (elements E) of f(v)^2 for each loaded vector (f32 lanes), by f32 fma in four vector
// accumulators whose lanes are added in double at the end; one(x_i)^2, rounded to f32 and then
// added in double, for the rest.
template <elem E, class F, class G>
HWY_INLINE double sum_squares_f32(const void* HWY_RESTRICT x, int64_t n, F f, G one) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    prefetch_ahead<E>(x, i, 4 * N);
    const auto v0 = f(load_as<E>(d, x, i)), v1 = f(load_as<E>(d, x, i + N));
    const auto v2 = f(load_as<E>(d, x, i + 2 * N)), v3 = f(load_as<E>(d, x, i + 3 * N));
    a0 = hn::MulAdd(v0, v0, a0);
    a1 = hn::MulAdd(v1, v1, a1);
    a2 = hn::MulAdd(v2, v2, a2);
    a3 = hn::MulAdd(v3, v3, a3);
  }
  for (; i + N <= n; i += N) {
    const auto v = f(load_as<E>(d, x, i));
    a0 = hn::MulAdd(v, v, a0);
  }
  double s = lanes_in_double(a0, a1, a2, a3);
  for (; i < n; ++i) {
    const float v = one(load_one<E>(x, i));
    s += static_cast<double>(v * v);
  }
  return s;
}

// A prefetch into L2 (x86's prefetcht1): a row asked for early waits there without evicting the
// rows (or exponentials) the loop is using from L1.
HWY_INLINE void prefetch_l2(const char* p) {
#if HWY_ARCH_X86
  _mm_prefetch(p, _MM_HINT_T1);
#else
  hwy::Prefetch(p);
#endif
}

// Asks once for each cache line that starts within elements [i, i + count) of each of `next`'s
// rows (of element type E), and at i == 0 for the line the row starts in: called for consecutive
// ranges, it asks for every line of the rows once, whatever the vector width. A prefetch never
// faults.
template <elem E>
HWY_INLINE void prefetch_rows(const next_rows& next, int64_t i, int64_t count) {
  constexpr uintptr_t size = E == elem::f32 ? 4 : 2;
  constexpr uintptr_t line = 64;
  for (const void* row : next.row) {
    if (row == nullptr) continue;
    const uintptr_t first = reinterpret_cast<uintptr_t>(row) + static_cast<uintptr_t>(i) * size;
    const uintptr_t end = first + static_cast<uintptr_t>(count) * size;
    for (uintptr_t at = (i == 0 ? first : first + line - 1) & ~(line - 1); at < end; at += line) {
      if (next.into_l2) {
        prefetch_l2(reinterpret_cast<const char*>(at));
      } else {
        hwy::Prefetch(reinterpret_cast<const char*>(at));
      }
    }
  }
}

// The elementwise loops below write y[i] = f(i) as E for i in [0, n): vectors through `vec(i)`,
// single lanes through `one(i)`. With `stream`, stores are non-temporal (aligned vectors; the
// elements before the first aligned one are written singly). With Ahead, `next`'s rows (elements
// of E, n of them) are asked for at the pace of the stores; without, the loop has no trace of it
// (a runtime-empty `next` left its tests in every narrow store loop, which measured slower).
template <elem E, bool Ahead, class D, class V, class S>
HWY_INLINE void write_row_paced(D d, void* HWY_RESTRICT y, int64_t n, bool stream, V vec, S one,
                                const next_rows& next) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t size = E == elem::f32 ? 4 : 2;
  stream = stream && can_stream<E>(d);
  int64_t i = 0;
  if (stream) {
    const uintptr_t align = static_cast<uintptr_t>(N * size);
    const uintptr_t base = reinterpret_cast<uintptr_t>(y);
    for (; i < n && (base + static_cast<uintptr_t>(i * size)) % align != 0; ++i) store_one<E>(y, i, one(i));
    if constexpr (Ahead) prefetch_rows<E>(next, 0, i);
    for (; i + N <= n; i += N) {
      if constexpr (Ahead) prefetch_rows<E>(next, i, N);
      store_as<E>(d, vec(i), y, i, true);
    }
  } else {
    for (; i + N <= n; i += N) {
      if constexpr (Ahead) prefetch_rows<E>(next, i, N);
      store_as<E>(d, vec(i), y, i, false);
    }
  }
  if constexpr (Ahead) prefetch_rows<E>(next, i, n - i);
  for (; i < n; ++i) store_one<E>(y, i, one(i));
}

template <elem E, class D, class V, class S>
HWY_INLINE void write_row(D d, void* HWY_RESTRICT y, int64_t n, bool stream, V vec, S one) {
  write_row_paced<E, false>(d, y, n, stream, vec, one, next_rows{});
}

// write_row, asking for `next`'s rows meanwhile when it names any.
template <elem E, class D, class V, class S>
HWY_INLINE void write_row(D d, void* HWY_RESTRICT y, int64_t n, bool stream, V vec, S one, const next_rows& next) {
  if (next.row[0] != nullptr || next.row[1] != nullptr) {
    write_row_paced<E, true>(d, y, n, stream, vec, one, next);
  } else {
    write_row_paced<E, false>(d, y, n, stream, vec, one, next);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#endif  // XD_CPU_FAST_SIMD_ROWS_INL_H_
