// Element types of the CPU backend: the C++ storage type of each xd_dtype, the type each is
// computed in, and the one set of conversions every kernel uses. Keeping every cast here means
// the reference has exactly one answer for "what does f32 -> u8 of -3.7 give", which the other
// backends are then checked against.
#pragma once

#include <xd/numeric.hpp>
#include <xd/plugin_abi.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace xd::cpu {

// XD_DTYPE_BOOL storage: one byte, 0 or 1. A distinct type rather than `bool` because loading a
// `bool` whose byte is neither 0 nor 1 is undefined behaviour (a poisoned or foreign buffer), and
// so that overloads can tell it from uint8_t.
struct boolean {
  uint8_t v = 0;
};
static_assert(sizeof(boolean) == 1);

// Compute types: f16/bf16/fp8 in float, f64 in double, every integer and bool in int64_t.
template <xd_dtype D>
struct dtype_info;
#define XD_CPU_DTYPE(D, T, C)          \
  template <>                          \
  struct dtype_info<D> {               \
    using type = T;                    \
    using compute = C;                 \
    static constexpr xd_dtype id = D;  \
  };
XD_CPU_DTYPE(XD_DTYPE_F64, double, double)
XD_CPU_DTYPE(XD_DTYPE_F32, float, float)
XD_CPU_DTYPE(XD_DTYPE_F16, ::xd::half, float)
XD_CPU_DTYPE(XD_DTYPE_BF16, ::xd::bfloat16, float)
XD_CPU_DTYPE(XD_DTYPE_I8, int8_t, int64_t)
XD_CPU_DTYPE(XD_DTYPE_U8, uint8_t, int64_t)
XD_CPU_DTYPE(XD_DTYPE_I32, int32_t, int64_t)
XD_CPU_DTYPE(XD_DTYPE_I64, int64_t, int64_t)
XD_CPU_DTYPE(XD_DTYPE_BOOL, boolean, int64_t)
XD_CPU_DTYPE(XD_DTYPE_F8E4M3FN, ::xd::float8_e4m3fn, float)
XD_CPU_DTYPE(XD_DTYPE_F8E5M2, ::xd::float8_e5m2, float)
#undef XD_CPU_DTYPE

// The reverse map, storage type -> compute type.
template <class T>
struct type_info;
#define XD_CPU_TYPE(D) \
  template <>          \
  struct type_info<dtype_info<D>::type> : dtype_info<D> {};
XD_CPU_TYPE(XD_DTYPE_F64)
XD_CPU_TYPE(XD_DTYPE_F32)
XD_CPU_TYPE(XD_DTYPE_F16)
XD_CPU_TYPE(XD_DTYPE_BF16)
XD_CPU_TYPE(XD_DTYPE_I8)
XD_CPU_TYPE(XD_DTYPE_U8)
XD_CPU_TYPE(XD_DTYPE_I32)
XD_CPU_TYPE(XD_DTYPE_I64)
XD_CPU_TYPE(XD_DTYPE_BOOL)
XD_CPU_TYPE(XD_DTYPE_F8E4M3FN)
XD_CPU_TYPE(XD_DTYPE_F8E5M2)
#undef XD_CPU_TYPE

template <class T>
using compute_t = typename type_info<T>::compute;

template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<compute_t<T>>;

// Storage -> compute.
template <class T>
inline compute_t<T> load(T x) {
  if constexpr (std::is_same_v<T, boolean>) {
    return x.v != 0 ? 1 : 0;
  } else {
    return static_cast<compute_t<T>>(x);
  }
}

// Float -> integer, as every backend must do it: NaN -> 0, then clamp to the target's range,
// then truncate toward zero. C++ leaves an out-of-range conversion undefined (x86 yields
// INT_MIN garbage), so the reference defines one result instead. The bounds compare in double:
// for int64 the upper bound rounds to 2^63, and every double below it truncates into range.
template <class I>
inline I saturate_cast(double x) {
  static_assert(std::is_integral_v<I>);
  if (std::isnan(x)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<I>::max());
  if (x <= lo) return std::numeric_limits<I>::min();
  if (x >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}

// Compute-domain value (double, float or int64_t) -> storage type `To`.
//  - to bool: x != 0 (NaN is true, as in PyTorch);
//  - to f16/bf16/fp8: through float, round to nearest even, non-saturating (overflow gives Inf,
//    or NaN for e4m3fn). f64 -> f16 therefore rounds twice, exactly like PyTorch's casts;
//  - float to integer: saturate_cast above; integer to integer: modular (defined in C++20).
template <class To, class From>
inline To cast(From x) {
  static_assert(std::is_arithmetic_v<From>);
  if constexpr (std::is_same_v<To, boolean>) {
    return boolean{static_cast<uint8_t>(x != 0 ? 1 : 0)};
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(x);
  } else if constexpr (std::is_integral_v<To>) {
    if constexpr (std::is_floating_point_v<From>) {
      return saturate_cast<To>(static_cast<double>(x));
    } else {
      return static_cast<To>(x);
    }
  } else {
    return To(static_cast<float>(x));
  }
}

// Storage -> storage. The same type is copied bit for bit (a NaN keeps its payload).
template <class To, class From>
inline To convert(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else {
    return cast<To>(load(x));
  }
}

template <class C>
inline bool is_nan(C x) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

// Two's-complement wrapping arithmetic for integer dtypes: signed overflow is undefined in C++,
// while PyTorch (and every GPU) wraps. Unsigned arithmetic wraps by definition and the
// conversion back is modular since C++20.
inline int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
inline int64_t wrap_neg(int64_t a) { return static_cast<int64_t>(0u - static_cast<uint64_t>(a)); }

}  // namespace xd::cpu
