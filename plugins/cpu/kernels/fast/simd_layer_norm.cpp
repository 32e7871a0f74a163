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
    return sum_map<decltype(t)::value>(
        x, n, [](auto v) HWY_ATTR { return v; }, [](float v) { return v; });
  });
}

double SumSquaredDeviations(const void* HWY_RESTRICT x, elem e, int64_t n, double mean) {
  // mean = hi + lo to twice f32's precision: x - hi is exact wherever x is near the mean (where
  // the deviation is small and its precision matters), and lo corrects it.
  const float hi = static_cast<float>(mean);
  const float lo = static_cast<float>(mean - static_cast<double>(hi));
  return by_elem(e, [&](auto t) {
    const DF d;
    const auto vhi = hn::Set(d, hi), vlo = hn::Set(d, lo);
    return sum_squares_f32<decltype(t)::value>(
        x, n, [&](auto v) HWY_ATTR { return hn::Sub(hn::Sub(v, vhi), vlo); }, [&](float v) { return (v - hi) - lo; });
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
