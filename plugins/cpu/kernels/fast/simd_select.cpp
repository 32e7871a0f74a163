// The fast kernels' comparisons and selection (simd.hpp's compare() and select()), compiled per
// target as simd.cpp is. Comparisons load both operands as f32 (f16/bf16 widened exactly) and
// compare there, as the reference compares in its compute type: NaN compares false but for `ne`,
// -0 equals +0. Selection moves each element's bits unchanged (no NaN is made quiet or
// canonical), so it works on unsigned lanes of the element's width, whatever the dtype.
// foreach_target.h must come first, right after HWY_TARGET_INCLUDE:
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/fast/simd_select.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include "kernels/fast/simd.hpp"
#include "kernels/fast/simd_rows-inl.h"

#include <cstring>

HWY_BEFORE_NAMESPACE();
namespace xd::cpu::simd {
namespace HWY_NAMESPACE {

template <compare_fn F, class V>
HWY_INLINE auto compare_lanes(V a, V b) {
  if constexpr (F == compare_fn::eq) return hn::Eq(a, b);
  // Not(Eq), not Ne: x86's Ne is the ordered predicate, false for NaN, where IEEE's != is true.
  if constexpr (F == compare_fn::ne) return hn::Not(hn::Eq(a, b));
  if constexpr (F == compare_fn::lt) return hn::Lt(a, b);
  if constexpr (F == compare_fn::le) return hn::Le(a, b);
  if constexpr (F == compare_fn::gt) return hn::Gt(a, b);
  if constexpr (F == compare_fn::ge) return hn::Ge(a, b);
}

template <compare_fn F>
HWY_INLINE bool compare_one(float a, float b) {
  if constexpr (F == compare_fn::eq) return a == b;
  if constexpr (F == compare_fn::ne) return a != b;
  if constexpr (F == compare_fn::lt) return a < b;
  if constexpr (F == compare_fn::le) return a <= b;
  if constexpr (F == compare_fn::gt) return a > b;
  if constexpr (F == compare_fn::ge) return a >= b;
}

template <compare_fn F, elem E>
void compare_rows(const void* HWY_RESTRICT a, const void* HWY_RESTRICT b, uint8_t* HWY_RESTRICT y, int64_t n) {
  const DF d;
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint8_t, DF> d8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto one = hn::Set(di, 1);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto m = compare_lanes<F>(load_as<E>(d, a, i), load_as<E>(d, b, i));
    hn::StoreU(hn::DemoteTo(d8, hn::IfThenElseZero(hn::RebindMask(di, m), one)), d8, y + i);
  }
  for (; i < n; ++i) y[i] = compare_one<F>(load_one<E>(a, i), load_one<E>(b, i)) ? 1 : 0;
}

template <compare_fn F>
void compare_by_elem(const void* HWY_RESTRICT a, const void* HWY_RESTRICT b, elem e, uint8_t* HWY_RESTRICT y,
                     int64_t n) {
  by_elem(e, [&](auto t) { compare_rows<F, decltype(t)::value>(a, b, y, n); });
}

void Compare(compare_fn f, const void* HWY_RESTRICT a, const void* HWY_RESTRICT b, elem e, uint8_t* HWY_RESTRICT y,
             int64_t n) {
  switch (f) {
    case compare_fn::eq:
      return compare_by_elem<compare_fn::eq>(a, b, e, y, n);
    case compare_fn::ne:
      return compare_by_elem<compare_fn::ne>(a, b, e, y, n);
    case compare_fn::lt:
      return compare_by_elem<compare_fn::lt>(a, b, e, y, n);
    case compare_fn::le:
      return compare_by_elem<compare_fn::le>(a, b, e, y, n);
    case compare_fn::gt:
      return compare_by_elem<compare_fn::gt>(a, b, e, y, n);
    case compare_fn::ge:
      return compare_by_elem<compare_fn::ge>(a, b, e, y, n);
  }
}

// y[i] = cond[i] != 0 ? a[i] : b[i] over lanes of U (the element's width; U = uint8_t needs no
// widening of the condition).
template <class U>
void select_rows(const uint8_t* HWY_RESTRICT cond, const U* HWY_RESTRICT a, const U* HWY_RESTRICT b, U* HWY_RESTRICT y,
                 int64_t n) {
  const hn::ScalableTag<U> du;
  const hn::Rebind<uint8_t, decltype(du)> d8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(du));
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    hn::Vec<decltype(du)> k;
    if constexpr (sizeof(U) == 1) {
      k = hn::LoadU(du, cond + i);
    } else {
      k = hn::PromoteTo(du, hn::LoadU(d8, cond + i));
    }
    const auto m = hn::Ne(k, hn::Zero(du));
    hn::StoreU(hn::IfThenElse(m, hn::LoadU(du, a + i), hn::LoadU(du, b + i)), du, y + i);
  }
  for (; i < n; ++i) y[i] = cond[i] != 0 ? a[i] : b[i];
}

void Select(const uint8_t* HWY_RESTRICT cond, const void* HWY_RESTRICT a, const void* HWY_RESTRICT b, int bytes,
            void* HWY_RESTRICT y, int64_t n) {
  switch (bytes) {
    case 1:
      return select_rows(cond, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b), static_cast<uint8_t*>(y),
                         n);
    case 2:
      return select_rows(cond, static_cast<const uint16_t*>(a), static_cast<const uint16_t*>(b),
                         static_cast<uint16_t*>(y), n);
    case 4:
      return select_rows(cond, static_cast<const uint32_t*>(a), static_cast<const uint32_t*>(b),
                         static_cast<uint32_t*>(y), n);
    default: {
      // 8-byte lanes: a branch-free scalar select (Highway has no u8 -> u64 promotion on every
      // target); still one pass and no mispredicted branch per element.
      const auto* pa = static_cast<const uint64_t*>(a);
      const auto* pb = static_cast<const uint64_t*>(b);
      auto* py = static_cast<uint64_t*>(y);
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t keep = uint64_t{0} - static_cast<uint64_t>(cond[i] != 0);
        py[i] = (pa[i] & keep) | (pb[i] & ~keep);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace xd::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd::cpu::simd {

HWY_EXPORT(Compare);
HWY_EXPORT(Select);

void compare(compare_fn f, const void* a, const void* b, elem e, uint8_t* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(Compare)(f, a, b, e, y, n);
}
void select(const uint8_t* cond, const void* a, const void* b, int bytes, void* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(Select)(cond, a, b, bytes, y, n);
}

}  // namespace xd::cpu::simd
#endif  // HWY_ONCE
