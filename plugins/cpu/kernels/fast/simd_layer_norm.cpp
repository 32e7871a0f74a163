// The fast kernels' layer_norm row primitives (simd.hpp), compiled per target as simd.cpp is: the
// row's sum in double lanes (its mean), the sum of squared deviations from that mean by f32 fma
// (the mean split into two floats, so that the deviations keep what a double mean gives them),
// and the normalized row written as the reference writes it.
// foreach_target.h must come first, right after HWY_TARGET_INCLUDE:
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/fast/simd_layer_norm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include "kernels/fast/simd.hpp"
#include "kernels/fast/simd_rows-inl.h"

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {

double SumF64(const void* HWY_RESTRICT x, elem e, int64_t n) {
  return by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    const DH dh;
    const DD dd;
    const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
    auto a0 = hn::Zero(dd), a1 = hn::Zero(dd), a2 = hn::Zero(dd), a3 = hn::Zero(dd);
    int64_t i = 0;
    for (; i + 4 * H <= n; i += 4 * H) {
      prefetch_ahead<E>(x, i, 4 * H);
      a0 = hn::Add(a0, hn::PromoteTo(dd, load_as<E>(dh, x, i)));
      a1 = hn::Add(a1, hn::PromoteTo(dd, load_as<E>(dh, x, i + H)));
      a2 = hn::Add(a2, hn::PromoteTo(dd, load_as<E>(dh, x, i + 2 * H)));
      a3 = hn::Add(a3, hn::PromoteTo(dd, load_as<E>(dh, x, i + 3 * H)));
    }
    for (; i + H <= n; i += H) a0 = hn::Add(a0, hn::PromoteTo(dd, load_as<E>(dh, x, i)));
    double s = total(a0, a1, a2, a3);
    for (; i < n; ++i) s += static_cast<double>(load_one<E>(x, i));
    return s;
  });
}

double SumSquaredDeviations(const void* HWY_RESTRICT x, elem e, int64_t n, double mean) {
  // mean = hi + lo to twice f32's precision: x - hi is exact wherever x is near the mean (where
  // the deviation is small and its precision matters), and lo corrects it.
  const float hi = static_cast<float>(mean);
  const float lo = static_cast<float>(mean - static_cast<double>(hi));
  return by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    const DF d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto vhi = hn::Set(d, hi), vlo = hn::Set(d, lo);
    auto dev = [&](int64_t at) HWY_ATTR { return hn::Sub(hn::Sub(load_as<E>(d, x, at), vhi), vlo); };
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    int64_t i = 0;
    for (; i + 4 * N <= n; i += 4 * N) {
      const auto d0 = dev(i), d1 = dev(i + N), d2 = dev(i + 2 * N), d3 = dev(i + 3 * N);
      a0 = hn::MulAdd(d0, d0, a0);
      a1 = hn::MulAdd(d1, d1, a1);
      a2 = hn::MulAdd(d2, d2, a2);
      a3 = hn::MulAdd(d3, d3, a3);
    }
    for (; i + N <= n; i += N) {
      const auto v = dev(i);
      a0 = hn::MulAdd(v, v, a0);
    }
    double s = lanes_in_double(a0, a1, a2, a3);
    for (; i < n; ++i) {
      const float v = (load_one<E>(x, i) - hi) - lo;
      s += static_cast<double>(v * v);
    }
    return s;
  });
}

void LayerNormRow(const void* HWY_RESTRICT x, elem e, float m, float r, const float* HWY_RESTRICT w,
                  const float* HWY_RESTRICT b, void* HWY_RESTRICT y, int64_t n, bool stream, next_rows next) {
  const DF d;
  const auto vm = hn::Set(d, m), vr = hn::Set(d, r);
  by_elem(e, [&](auto t) {
    constexpr elem E = decltype(t)::value;
    // ((x - m) * r) * w + b, each step rounded as the reference rounds it (no fused multiply-add).
    write_row<E>(
        d, y, n, stream,
        [&](int64_t i) HWY_ATTR {
          auto v = hn::Mul(hn::Sub(load_as<E>(d, x, i), vm), vr);
          if (w != nullptr) v = hn::Mul(v, hn::LoadU(d, w + i));
          if (b != nullptr) v = hn::Add(v, hn::LoadU(d, b + i));
          return v;
        },
        [&](int64_t i) {
          float v = (load_one<E>(x, i) - m) * r;
          if (w != nullptr) v *= w[i];
          if (b != nullptr) v += b[i];
          return v;
        },
        next);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd::cpu::simd {

HWY_EXPORT(SumF64);
HWY_EXPORT(SumSquaredDeviations);
HWY_EXPORT(LayerNormRow);

double sum_f64(const void* x, elem e, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumF64)(x, e, n); }
double sum_squared_deviations(const void* x, elem e, int64_t n, double mean) {
  return HWY_DYNAMIC_DISPATCH(SumSquaredDeviations)(x, e, n, mean);
}
void layer_norm_row(const void* x, elem e, float m, float r, const float* w, const float* b, void* y, int64_t n,
                    bool stream, next_rows next) {
  HWY_DYNAMIC_DISPATCH(LayerNormRow)(x, e, m, r, w, b, y, n, stream, next);
}

}  // namespace xd::cpu::simd
#endif  // HWY_ONCE
