// The fast kernels' int4 weight dot products (simd.hpp's int4_dot), compiled per target as
// simd.cpp is. A weight row's codes are unpacked 2N at a time from N bytes: the low nibbles are
// the even k, the high nibbles the odd k, so the caller hands each row of x split into its even
// and odd elements and no lane is ever shuffled.
// foreach_target.h must come first, right after HWY_TARGET_INCLUDE:
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/fast/simd_int4.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/cache_control.h>
// clang-format on

#include "kernels/fast/simd.hpp"
#include "kernels/fast/simd_rows-inl.h"

// The loops over a tile's rows, unrolled whole: left as loops, the accumulator arrays live on
// the stack and every multiply-add stores its sum (measured 3.6x the time at four rows).
#ifndef XD_FOR_ROWS
#define XD_FOR_ROWS(r) _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r)
#endif

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {

constexpr int64_t kCodesAhead = 2048;  // bytes of codes asked for ahead of the ones in use
// With 16 lanes a group's 16 possible weights are one vector, made once per group, and each code
// picks its weight by a lane permutation: the conversion, subtraction and multiplication per code
// measured three times as long.
constexpr bool kTable = hn::MaxLanes(DF()) == 16;

// Lane c: the weight of code c in a group of zero point vz and scale vs (used where kTable).
HWY_INLINE hn::Vec<DF> weight_table(hn::Vec<DF> vz, hn::Vec<DF> vs) {
  return hn::Mul(hn::Sub(hn::Iota(DF(), 0.0f), vz), vs);
}

// The weights (q - z) * s of the codes in N bytes at p, each rounded once as the reference
// dequantizes it: wl those of the low nibbles (even k), wh of the high ones (odd k).
HWY_INLINE void unpack_codes(const uint8_t* HWY_RESTRICT p, hn::Vec<DF> vz, hn::Vec<DF> vs, hn::Vec<DF> table,
                             hn::Vec<DF>& wl, hn::Vec<DF>& wh) {
  const DF d;
  const hn::Rebind<int32_t, DF> di;
  const auto codes = hn::PromoteTo(hn::Rebind<uint32_t, DF>(), hn::LoadU(hn::Rebind<uint8_t, DF>(), p));
  const auto bytes = hn::BitCast(di, codes);
  const auto lo = hn::And(bytes, hn::Set(di, 15)), hi = hn::ShiftRight<4>(bytes);
  if constexpr (kTable) {
    wl = hn::TableLookupLanes(table, hn::IndicesFromVec(d, lo));
    wh = hn::TableLookupLanes(table, hn::IndicesFromVec(d, hi));
  } else {
    wl = hn::Mul(hn::Sub(hn::ConvertTo(d, lo), vz), vs);
    wh = hn::Mul(hn::Sub(hn::ConvertTo(d, hi), vz), vs);
  }
}

// Rows x_0 .. x_{R-1} against one weight row, the products summed in f32 vector accumulators
// (even and odd k apart). With one or two rows, steps alternate between two sets of accumulators
// (U = 2), so the multiply-adds do not wait on each other.

template <int R>
HWY_INLINE void int4_dot_rows(const uint8_t* HWY_RESTRICT q, int64_t half_k, int64_t half_g,
                              const float* HWY_RESTRICT s, const float* HWY_RESTRICT z, int64_t sz_step,
                              const float* const* xe, const float* const* xo, float* HWY_RESTRICT out) {
  constexpr int U = R <= 2 ? 2 : 1;
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  hn::Vec<DF> even[U][R], odd[U][R];
  XD_FOR_ROWS(r) for (int u = 0; u < U; ++u) even[u][r] = odd[u][r] = hn::Zero(d);
  float tail[R] = {};  // the elements after a group's last whole vector (targets with N > g/2 only)
  for (int64_t g0 = 0, gi = 0; g0 < half_k; g0 += half_g, ++gi) {
    // The codes 2 KiB ahead: a weight larger than the caches streams at 0.78 of the time with
    // them asked for (docs/performance.md, "int4 weights on the CPU").
    for (int64_t at = g0; at < g0 + half_g; at += 64) hwy::Prefetch(q + at + kCodesAhead);
    const float zg = z[gi * sz_step], sg = s[gi * sz_step];
    const auto vz = hn::Set(d, zg);
    const auto vs = hn::Set(d, sg);
    const auto table = weight_table(vz, vs);
    auto step = [&](int u, int64_t b) HWY_ATTR {
      hn::Vec<DF> wl, wh;
      unpack_codes(q + b, vz, vs, table, wl, wh);
      XD_FOR_ROWS(r) {
        even[u][r] = hn::MulAdd(hn::LoadU(d, xe[r] + b), wl, even[u][r]);
        odd[u][r] = hn::MulAdd(hn::LoadU(d, xo[r] + b), wh, odd[u][r]);
      }
    };
    const int64_t end = g0 + half_g;
    int64_t b = g0;
    if constexpr (U == 2) {
      for (; b + 2 * N <= end; b += 2 * N) {
        step(0, b);
        step(1, b + N);
      }
    }
    for (; b + N <= end; b += N) step(0, b);
    for (; b < end; ++b) {
      const float lo = (static_cast<float>(q[b] & 15) - zg) * sg;
      const float hi = (static_cast<float>(q[b] >> 4) - zg) * sg;
      XD_FOR_ROWS(r) tail[r] += xe[r][b] * lo + xo[r][b] * hi;
    }
  }
  XD_FOR_ROWS(r) {
    auto t = hn::Add(even[0][r], odd[0][r]);
    if constexpr (U == 2) t = hn::Add(t, hn::Add(even[1][r], odd[1][r]));
    out[r] = hn::GetLane(hn::SumOfLanes(d, t)) + tail[r];
  }
}

void Int4Dequantize(const uint8_t* HWY_RESTRICT q, int64_t k, int64_t g, const float* HWY_RESTRICT s,
                    const float* HWY_RESTRICT z, int64_t sz_step, float* HWY_RESTRICT w) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t half_k = k / 2, half_g = g / 2;
  for (int64_t g0 = 0, gi = 0; g0 < half_k; g0 += half_g, ++gi) {
    const float zg = z[gi * sz_step], sg = s[gi * sz_step];
    const auto vz = hn::Set(d, zg), vs = hn::Set(d, sg);
    const auto table = weight_table(vz, vs);
    int64_t b = g0;
    for (; b + N <= g0 + half_g; b += N) {
      hn::Vec<DF> wl, wh;
      unpack_codes(q + b, vz, vs, table, wl, wh);
      // Back to k order: even k from the low nibbles, odd k from the high ones.
      hn::StoreInterleaved2(wl, wh, d, w + 2 * b);
    }
    for (; b < g0 + half_g; ++b) {
      w[2 * b] = (static_cast<float>(q[b] & 15) - zg) * sg;
      w[2 * b + 1] = (static_cast<float>(q[b] >> 4) - zg) * sg;
    }
  }
}

void Int4Dot(const uint8_t* HWY_RESTRICT q, int64_t k, int64_t g, const float* HWY_RESTRICT s,
             const float* HWY_RESTRICT z, int64_t sz_step, const float* const* xe, const float* const* xo, int rows,
             float* HWY_RESTRICT out) {
  const int64_t half_k = k / 2, half_g = g / 2;
  switch (rows) {
    case 1:
      return int4_dot_rows<1>(q, half_k, half_g, s, z, sz_step, xe, xo, out);
    case 2:
      return int4_dot_rows<2>(q, half_k, half_g, s, z, sz_step, xe, xo, out);
    case 3:
      return int4_dot_rows<3>(q, half_k, half_g, s, z, sz_step, xe, xo, out);
    default:
      return int4_dot_rows<4>(q, half_k, half_g, s, z, sz_step, xe, xo, out);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd::cpu::simd {

HWY_EXPORT(Int4Dot);
HWY_EXPORT(Int4Dequantize);

void int4_dot(const uint8_t* q, int64_t k, int64_t g, const float* s, const float* z, int64_t sz_step,
              const float* const* xe, const float* const* xo, int rows, float* out) {
  HWY_DYNAMIC_DISPATCH(Int4Dot)(q, k, g, s, z, sz_step, xe, xo, rows, out);
}

void int4_dequantize(const uint8_t* q, int64_t k, int64_t g, const float* s, const float* z, int64_t sz_step,
                     float* w) {
  HWY_DYNAMIC_DISPATCH(Int4Dequantize)(q, k, g, s, z, sz_step, w);
}

}  // namespace xd::cpu::simd
#endif  // HWY_ONCE
