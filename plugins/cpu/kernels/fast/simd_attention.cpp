// The fast kernels' attention tiles (simd.hpp's attention_scores and attention_values), compiled
// per target as simd.cpp is: small matrix products whose accumulators stay in registers, the
// shared operand loaded as vectors and the other broadcast one element at a time.
// foreach_target.h must come first, right after HWY_TARGET_INCLUDE:
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/fast/simd_attention.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include "kernels/fast/simd.hpp"
#include "kernels/fast/simd_rows-inl.h"

// Loops over a tile's rows, unrolled whole so that the accumulator arrays stay in registers.
#ifndef XD_ATTN_ROWS
#define XD_ATTN_ROWS(r) _Pragma("GCC unroll 4") for (int r = 0; r < R; ++r)
#define XD_ATTN_COLS(c) _Pragma("GCC unroll 4") for (int c = 0; c < V; ++c)
#endif

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {

// s[r][j] = scale * (sum over e < E of q[r][e] * k[j][e]), for j < n rounded up to 2N, with K
// packed in panels of kKeyPanel keys (simd.hpp): a panel's E rows of 32 keys are contiguous, so a
// tile streams through memory in order rather than touching E pages a step.
template <int R>
HWY_INLINE void scores_tile(const float* HWY_RESTRICT q, int64_t ld_q, const float* HWY_RESTRICT kp, int64_t e_count,
                            int64_t n, float scale, float* HWY_RESTRICT s, int64_t ld_s) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto vscale = hn::Set(d, scale);
  for (int64_t j0 = 0; j0 < n; j0 += kKeyPanel) {
    const float* panel = kp + (j0 / kKeyPanel) * e_count * kKeyPanel;
    for (int64_t jj = 0; jj < kKeyPanel && j0 + jj < n; jj += 2 * N) {
      hn::Vec<DF> a0[R], a1[R];
      XD_ATTN_ROWS(r) a0[r] = a1[r] = hn::Zero(d);
      for (int64_t e = 0; e < e_count; ++e) {
        const float* row = panel + e * kKeyPanel + jj;
        const auto k0 = hn::LoadU(d, row), k1 = hn::LoadU(d, row + N);
        XD_ATTN_ROWS(r) {
          const auto qv = hn::Set(d, q[r * ld_q + e]);
          a0[r] = hn::MulAdd(qv, k0, a0[r]);
          a1[r] = hn::MulAdd(qv, k1, a1[r]);
        }
      }
      XD_ATTN_ROWS(r) {
        hn::StoreU(hn::Mul(a0[r], vscale), d, s + r * ld_s + j0 + jj);
        hn::StoreU(hn::Mul(a1[r], vscale), d, s + r * ld_s + j0 + jj + N);
      }
    }
  }
}

// o[r][c] = sum over j < n_r of p[r][j] * v[j][c], for c < width (V whole vectors, the rest one
// by one; at most 4N columns a call), where n_r = n + r * extra: rows of a causal tile take one
// key more each (extra = 1) and a key past a row's count never reaches it, whatever v holds there.
template <int R, int V>
HWY_INLINE void values_tile(const float* HWY_RESTRICT p, int64_t ld_p, const float* HWY_RESTRICT v, int64_t ld_v,
                            int64_t n, int64_t extra, int64_t width, float* HWY_RESTRICT o, int64_t ld_o) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  if constexpr (V > 0) {
    hn::Vec<DF> a[R][V];
    XD_ATTN_ROWS(r) XD_ATTN_COLS(c) a[r][c] = hn::Zero(d);
    auto step = [&](int64_t j, int r_first) HWY_ATTR {
      hn::Vec<DF> vv[V];
      XD_ATTN_COLS(c) vv[c] = hn::LoadU(d, v + j * ld_v + c * N);
      XD_ATTN_ROWS(r) {
        if (r < r_first) continue;
        const auto pv = hn::Set(d, p[r * ld_p + j]);
        XD_ATTN_COLS(c) a[r][c] = hn::MulAdd(pv, vv[c], a[r][c]);
      }
    };
    for (int64_t j = 0; j < n; ++j) step(j, 0);
    for (int64_t t = 1; extra != 0 && t < R; ++t) step(n + t - 1, static_cast<int>(t));
    XD_ATTN_ROWS(r) XD_ATTN_COLS(c) hn::StoreU(a[r][c], d, o + r * ld_o + c * N);
  }
  for (int64_t c = V * N; c < width; ++c)
    for (int r = 0; r < R; ++r) {
      float acc = 0.0f;
      const int64_t keys = n + r * extra;
      for (int64_t j = 0; j < keys; ++j) acc = std::fma(p[r * ld_p + j], v[j * ld_v + c], acc);
      o[r * ld_o + c] = acc;
    }
}

template <int R>
HWY_INLINE void values_rows(const float* HWY_RESTRICT p, int64_t ld_p, const float* HWY_RESTRICT v, int64_t ld_v,
                            int64_t n, int64_t extra, int64_t width, float* HWY_RESTRICT o, int64_t ld_o) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t c0 = 0; c0 < width; c0 += 4 * N) {
    const int64_t w = std::min(4 * N, width - c0);
    switch (w / N) {
      case 4:
        values_tile<R, 4>(p, ld_p, v + c0, ld_v, n, extra, w, o + c0, ld_o);
        break;
      case 3:
        values_tile<R, 3>(p, ld_p, v + c0, ld_v, n, extra, w, o + c0, ld_o);
        break;
      case 2:
        values_tile<R, 2>(p, ld_p, v + c0, ld_v, n, extra, w, o + c0, ld_o);
        break;
      case 1:
        values_tile<R, 1>(p, ld_p, v + c0, ld_v, n, extra, w, o + c0, ld_o);
        break;
      default:
        values_tile<R, 0>(p, ld_p, v + c0, ld_v, n, extra, w, o + c0, ld_o);
        break;
    }
  }
}

void AttentionScores(const float* HWY_RESTRICT q, int64_t ld_q, int rows, const float* HWY_RESTRICT kp, int64_t e_count,
                     int64_t n, float scale, float* HWY_RESTRICT s, int64_t ld_s) {
  switch (rows) {
    case 1:
      return scores_tile<1>(q, ld_q, kp, e_count, n, scale, s, ld_s);
    case 2:
      return scores_tile<2>(q, ld_q, kp, e_count, n, scale, s, ld_s);
    case 3:
      return scores_tile<3>(q, ld_q, kp, e_count, n, scale, s, ld_s);
    default:
      return scores_tile<4>(q, ld_q, kp, e_count, n, scale, s, ld_s);
  }
}

void AttentionValues(const float* HWY_RESTRICT p, int64_t ld_p, int rows, const float* HWY_RESTRICT v, int64_t ld_v,
                     int64_t n, int64_t extra, int64_t width, float* HWY_RESTRICT o, int64_t ld_o) {
  switch (rows) {
    case 1:
      return values_rows<1>(p, ld_p, v, ld_v, n, extra, width, o, ld_o);
    case 2:
      return values_rows<2>(p, ld_p, v, ld_v, n, extra, width, o, ld_o);
    case 3:
      return values_rows<3>(p, ld_p, v, ld_v, n, extra, width, o, ld_o);
    default:
      return values_rows<4>(p, ld_p, v, ld_v, n, extra, width, o, ld_o);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd::cpu::simd {

HWY_EXPORT(AttentionScores);
HWY_EXPORT(AttentionValues);

void attention_scores(const float* q, int64_t ld_q, int rows, const float* kp, int64_t e_count, int64_t n, float scale,
                      float* s, int64_t ld_s) {
  HWY_DYNAMIC_DISPATCH(AttentionScores)(q, ld_q, rows, kp, e_count, n, scale, s, ld_s);
}
void attention_values(const float* p, int64_t ld_p, int rows, const float* v, int64_t ld_v, int64_t n, int64_t extra,
                      int64_t width, float* o, int64_t ld_o) {
  HWY_DYNAMIC_DISPATCH(AttentionValues)(p, ld_p, rows, v, ld_v, n, extra, width, o, ld_o);
}

}  // namespace xd::cpu::simd
#endif  // HWY_ONCE
