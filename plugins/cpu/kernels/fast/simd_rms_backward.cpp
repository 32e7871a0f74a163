// The fast kernels' rms_norm_backward primitives (simd.hpp): the row's dot and dw's accumulation in
// double (the reference's sums, kept as the fallback) and in f32 fma, dx alone or with dw's
// accumulation in one pass, and the fold of f32 sums into double partials; compiled per target as
// simd.cpp is.
// foreach_target.h must come first, right after HWY_TARGET_INCLUDE:
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/fast/simd_rms_backward.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/cache_control.h>
// clang-format on

#include <xd/numeric.hpp>

#include "kernels/fast/simd.hpp"
#include "kernels/fast/simd_rows-inl.h"

#include <cmath>

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

double DotGwXh(const void* HWY_RESTRICT g, const void* HWY_RESTRICT x, elem e, const float* HWY_RESTRICT w, float r,
               int64_t n) {
  return by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    const DH dh;
    const DD dd;
    const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
    const auto vr = hn::Set(dh, r);
    auto a0 = hn::Zero(dd), a1 = hn::Zero(dd);
    auto term = [&](int64_t at) {
      auto gw = load_as<E>(dh, g, at);
      if (w != nullptr) gw = hn::Mul(gw, hn::LoadU(dh, w + at));
      const auto xh = hn::Mul(load_as<E>(dh, x, at), vr);
      return hn::Mul(hn::PromoteTo(dd, gw), hn::PromoteTo(dd, xh));
    };
    int64_t i = 0;
    for (; i + 2 * H <= n; i += 2 * H) {
      prefetch_ahead<E>(g, i, 2 * H);
      prefetch_ahead<E>(x, i, 2 * H);
      a0 = hn::Add(a0, term(i));
      a1 = hn::Add(a1, term(i + H));
    }
    double s = total(a0, a1, hn::Zero(dd), hn::Zero(dd));
    for (; i < n; ++i) {
      const float gi = load_one<E>(g, i);
      const float gw = w != nullptr ? gi * w[i] : gi;
      s += static_cast<double>(gw) * static_cast<double>(load_one<E>(x, i) * r);
    }
    return s;
  });
}

double DotGwXhF32(const void* HWY_RESTRICT g, const void* HWY_RESTRICT x, elem e, const float* HWY_RESTRICT w, float r,
                  int64_t n) {
  return by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    const DF d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto vr = hn::Set(d, r);
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    auto gw = [&](int64_t at) {
      const auto v = load_as<E>(d, g, at);
      return w != nullptr ? hn::Mul(v, hn::LoadU(d, w + at)) : v;
    };
    auto xh = [&](int64_t at) { return hn::Mul(load_as<E>(d, x, at), vr); };
    int64_t i = 0;
    for (; i + 4 * N <= n; i += 4 * N) {
      a0 = hn::MulAdd(gw(i), xh(i), a0);
      a1 = hn::MulAdd(gw(i + N), xh(i + N), a1);
      a2 = hn::MulAdd(gw(i + 2 * N), xh(i + 2 * N), a2);
      a3 = hn::MulAdd(gw(i + 3 * N), xh(i + 3 * N), a3);
    }
    for (; i + N <= n; i += N) a0 = hn::MulAdd(gw(i), xh(i), a0);
    double s = lanes_in_double(a0, a1, a2, a3);
    for (; i < n; ++i) {
      const float gi = load_one<E>(g, i);
      s += static_cast<double>(w != nullptr ? gi * w[i] : gi) * static_cast<double>(load_one<E>(x, i) * r);
    }
    return s;
  });
}

// dx[i] = r * (g[i]*w[i] - xh * mean) with xh = x[i]*r, and with Acc acc[i] = fma(g[i], xh, acc[i])
// in the same pass.
template <bool Acc>
HWY_INLINE void rms_dx_row(const void* HWY_RESTRICT g, const void* HWY_RESTRICT x, elem e, const float* HWY_RESTRICT w,
                           float r, float mean, void* HWY_RESTRICT dx, float* HWY_RESTRICT acc, int64_t n, bool stream,
                           next_rows next) {
  const DF d;
  const auto vr = hn::Set(d, r), vm = hn::Set(d, mean);
  by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    write_row<E>(
        d, dx, n, stream,
        [&](int64_t i) {
          const auto gv = load_as<E>(d, g, i);
          const auto gw = w != nullptr ? hn::Mul(gv, hn::LoadU(d, w + i)) : gv;
          const auto xh = hn::Mul(load_as<E>(d, x, i), vr);
          if constexpr (Acc) hn::StoreU(hn::MulAdd(gv, xh, hn::LoadU(d, acc + i)), d, acc + i);
          return hn::Mul(vr, hn::Sub(gw, hn::Mul(xh, vm)));
        },
        [&](int64_t i) {
          const float gi = load_one<E>(g, i);
          const float gw = w != nullptr ? gi * w[i] : gi;
          const float xh = load_one<E>(x, i) * r;
          if constexpr (Acc) acc[i] = std::fma(gi, xh, acc[i]);
          return r * (gw - xh * mean);
        },
        next);
  });
}

void RmsDx(const void* HWY_RESTRICT g, const void* HWY_RESTRICT x, elem e, const float* HWY_RESTRICT w, float r,
           float mean, void* HWY_RESTRICT dx, int64_t n, bool stream, next_rows next) {
  rms_dx_row<false>(g, x, e, w, r, mean, dx, nullptr, n, stream, next);
}

void RmsDxAccumulate(const void* HWY_RESTRICT g, const void* HWY_RESTRICT x, elem e, const float* HWY_RESTRICT w,
                     float r, float mean, void* HWY_RESTRICT dx, float* HWY_RESTRICT acc, int64_t n, bool stream,
                     next_rows next) {
  rms_dx_row<true>(g, x, e, w, r, mean, dx, acc, n, stream, next);
}

void AccumulateGXhF32(const void* HWY_RESTRICT g, const void* HWY_RESTRICT x, elem e, float r, float* HWY_RESTRICT acc,
                      int64_t n) {
  by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    const DF d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto vr = hn::Set(d, r);
    int64_t i = 0;
    for (; i + N <= n; i += N) {
      const auto xh = hn::Mul(load_as<E>(d, x, i), vr);
      hn::StoreU(hn::MulAdd(load_as<E>(d, g, i), xh, hn::LoadU(d, acc + i)), d, acc + i);
    }
    for (; i < n; ++i) acc[i] = std::fma(load_one<E>(g, i), load_one<E>(x, i) * r, acc[i]);
  });
}

void AccumulateGXhF64(const void* HWY_RESTRICT g, const void* HWY_RESTRICT x, elem e, float r,
                      double* HWY_RESTRICT part, int64_t n) {
  by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    const DH dh;
    const DD dd;
    const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
    const auto vr = hn::Set(dh, r);
    int64_t i = 0;
    // part += g*xh as a product then a sum (two roundings), as the reference accumulates.
    for (; i + H <= n; i += H) {
      const auto xh = hn::Mul(load_as<E>(dh, x, i), vr);
      const auto prod = hn::Mul(hn::PromoteTo(dd, load_as<E>(dh, g, i)), hn::PromoteTo(dd, xh));
      hn::StoreU(hn::Add(hn::LoadU(dd, part + i), prod), dd, part + i);
    }
    for (; i < n; ++i) part[i] += static_cast<double>(load_one<E>(g, i)) * static_cast<double>(load_one<E>(x, i) * r);
  });
}

bool FoldF32(float* HWY_RESTRICT acc, double* HWY_RESTRICT part, int64_t n) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  auto finite = hn::FirstN(d, static_cast<size_t>(N));
  int64_t i = 0;
  for (; i + N <= n; i += N) finite = hn::And(finite, hn::IsFinite(hn::LoadU(d, acc + i)));
  bool ok = hn::AllTrue(d, finite);
  for (; i < n; ++i) ok = ok && std::isfinite(acc[i]);
  const DD dd;
  const DH dh;
  const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
  i = 0;
  for (; i + H <= n; i += H) {
    if (ok) hn::StoreU(hn::Add(hn::LoadU(dd, part + i), hn::PromoteTo(dd, hn::LoadU(dh, acc + i))), dd, part + i);
    hn::StoreU(hn::Zero(dh), dh, acc + i);
  }
  for (; i < n; ++i) {
    if (ok) part[i] += static_cast<double>(acc[i]);
    acc[i] = 0.0f;
  }
  return ok;
}

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd::cpu::simd {

HWY_EXPORT(RmsDx);
HWY_EXPORT(DotGwXh);
HWY_EXPORT(DotGwXhF32);
HWY_EXPORT(AccumulateGXhF64);
HWY_EXPORT(AccumulateGXhF32);
HWY_EXPORT(FoldF32);
HWY_EXPORT(RmsDxAccumulate);

void rms_dx(const void* g, const void* x, elem e, const float* w, float r, float mean, void* dx, int64_t n, bool stream,
            next_rows next) {
  HWY_DYNAMIC_DISPATCH(RmsDx)(g, x, e, w, r, mean, dx, n, stream, next);
}
double dot_gw_xh(const void* g, const void* x, elem e, const float* w, float r, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(DotGwXh)(g, x, e, w, r, n);
}
double dot_gw_xh_f32(const void* g, const void* x, elem e, const float* w, float r, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(DotGwXhF32)(g, x, e, w, r, n);
}
void accumulate_g_xh(const void* g, const void* x, elem e, float r, double* part, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateGXhF64)(g, x, e, r, part, n);
}
void accumulate_g_xh(const void* g, const void* x, elem e, float r, float* acc, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateGXhF32)(g, x, e, r, acc, n);
}
bool fold_f32(float* acc, double* part, int64_t n) { return HWY_DYNAMIC_DISPATCH(FoldF32)(acc, part, n); }
void rms_dx_accumulate(const void* g, const void* x, elem e, const float* w, float r, float mean, void* dx, float* acc,
                       int64_t n, bool stream, next_rows next) {
  HWY_DYNAMIC_DISPATCH(RmsDxAccumulate)(g, x, e, w, r, mean, dx, acc, n, stream, next);
}
}  // namespace xd::cpu::simd
#endif  // HWY_ONCE
