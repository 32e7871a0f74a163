// The C++ prelude of generated CPU kernels: every name of docs/compiler.md's "Names every prelude
// defines" table, for the C++ column. This file is not compiled into the plugin: the build embeds
// it (embed_prelude.cmake) with the include of xd/numeric.hpp below replaced by that
// header's text, so that the generated kernels convert with exactly the code the reference uses
// and compile stand-alone, without xdispatch's headers, wherever the plugin is installed.
//
// Flags it is built with (codegen/toolchain.cpp): -O3 -march=native -fopenmp-simd
// -fno-math-errno -fno-trapping-math, never -ffast-math: NaN and Inf must keep their meaning.
#include <xd/numeric.hpp>

#include <math.h>
#include <stdint.h>

typedef unsigned long ulong;
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;

#define XD_KERNEL extern "C" __attribute__((visibility("default")))

// ---------------------------------------------------------------- storage types
typedef float xd_T_f32;
typedef double xd_T_f64;
typedef uint16_t xd_T_f16;
typedef uint16_t xd_T_bf16;
typedef uint8_t xd_T_e4m3;
typedef uint8_t xd_T_e5m2;
typedef int8_t xd_T_i8;
typedef uint8_t xd_T_u8;
typedef int32_t xd_T_i32;
typedef long xd_T_i64;
typedef uint8_t xd_T_b8;

// ---------------------------------------------------------------- constants by their bits
constexpr float xd_bits_f(uint32_t u) { return __builtin_bit_cast(float, u); }
constexpr double xd_bits_d(uint64_t u) { return __builtin_bit_cast(double, u); }

// ---------------------------------------------------------------- math
// glibc's libmvec has SSE, AVX, AVX2 and AVX-512 versions of these; declaring them `simd` (what
// glibc's own bits/math-vector.h does, but only under -ffast-math) lets GCC call them from loops
// marked `#pragma omp simd`. The kernel is linked with -lmvec. Elsewhere: plain libm.
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__)
#define XD_SIMD_MATH __attribute__((simd("notinbranch")))
extern "C" {
float expf(float) noexcept XD_SIMD_MATH;
float logf(float) noexcept XD_SIMD_MATH;
float tanhf(float) noexcept XD_SIMD_MATH;
float erff(float) noexcept XD_SIMD_MATH;
float powf(float, float) noexcept XD_SIMD_MATH;
double exp(double) noexcept XD_SIMD_MATH;
double log(double) noexcept XD_SIMD_MATH;
double tanh(double) noexcept XD_SIMD_MATH;
double erf(double) noexcept XD_SIMD_MATH;
double pow(double, double) noexcept XD_SIMD_MATH;
}
#undef XD_SIMD_MATH
#endif

// sqrt, fabs and copysign are instructions; __builtin_isnan survives every flag used here.
#define xd_exp_f(x) expf(x)
#define xd_log_f(x) logf(x)
#define xd_sqrt_f(x) __builtin_sqrtf(x)
#define xd_tanh_f(x) tanhf(x)
#define xd_erf_f(x) erff(x)
#define xd_fabs_f(x) __builtin_fabsf(x)
#define xd_pow_f(x, y) powf((x), (y))
#define xd_copysign_f(x, y) __builtin_copysignf((x), (y))
#define xd_isnan_f(x) __builtin_isnan(x)
#define xd_exp_d(x) exp(x)
#define xd_log_d(x) log(x)
#define xd_sqrt_d(x) __builtin_sqrt(x)
#define xd_tanh_d(x) tanh(x)
#define xd_erf_d(x) erf(x)
#define xd_fabs_d(x) __builtin_fabs(x)
#define xd_pow_d(x, y) pow((x), (y))
#define xd_copysign_d(x, y) __builtin_copysign((x), (y))
#define xd_isnan_d(x) __builtin_isnan(x)

// ---------------------------------------------------------------- conversions
// The reference's casting rules (plugins/cpu/kernels/types.hpp, XD_OP_COPY): to bool x != 0 (NaN
// is true); float to integer NaN -> 0, then clamp, then truncate; integer to integer wraps; to
// f16, bf16 and fp8 through float, round to nearest even, non-saturating (numeric.hpp).
namespace xd_prelude {
template <class I>
inline I saturate(double x) {
  if (__builtin_isnan(x)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<I>::max());
  if (x <= lo) return std::numeric_limits<I>::min();
  if (x >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}
template <class I>
inline I to_int(float v) {
  return saturate<I>(v);
}
template <class I>
inline I to_int(double v) {
  return saturate<I>(v);
}
// Integer to integer is modular (two's complement), as in the reference.
template <class I>
inline I to_int(long v) {
  return static_cast<I>(v);
}
}  // namespace xd_prelude

inline float xd_dec_f32(xd_T_f32 s) { return s; }
inline double xd_dec_f64(xd_T_f64 s) { return s; }
inline float xd_dec_f16(xd_T_f16 s) { return xd::numeric_detail::f16_to_float(s); }
inline float xd_dec_bf16(xd_T_bf16 s) { return xd::numeric_detail::bf16_to_float(s); }
inline float xd_dec_e4m3(xd_T_e4m3 s) { return xd::numeric_detail::e4m3fn_format::decode(s); }
inline float xd_dec_e5m2(xd_T_e5m2 s) { return xd::numeric_detail::e5m2_format::decode(s); }
inline long xd_dec_i8(xd_T_i8 s) { return s; }
inline long xd_dec_u8(xd_T_u8 s) { return s; }
inline long xd_dec_i32(xd_T_i32 s) { return s; }
inline long xd_dec_i64(xd_T_i64 s) { return s; }
inline long xd_dec_b8(xd_T_b8 s) { return s != 0 ? 1 : 0; }

// xd_from_<k>_<tag> for the compute kinds f (float), d (double) and l (long).
#define XD_PRELUDE_FROM(k, K)                                                                                   \
  inline xd_T_f32 xd_from_##k##_f32(K v) { return static_cast<float>(v); }                                      \
  inline xd_T_f64 xd_from_##k##_f64(K v) { return static_cast<double>(v); }                                     \
  inline xd_T_f16 xd_from_##k##_f16(K v) { return xd::numeric_detail::float_to_f16(static_cast<float>(v)); }    \
  inline xd_T_bf16 xd_from_##k##_bf16(K v) { return xd::numeric_detail::float_to_bf16(static_cast<float>(v)); } \
  inline xd_T_e4m3 xd_from_##k##_e4m3(K v) {                                                                    \
    return static_cast<xd_T_e4m3>(xd::numeric_detail::e4m3fn_format::encode(static_cast<float>(v), false));     \
  }                                                                                                             \
  inline xd_T_e5m2 xd_from_##k##_e5m2(K v) {                                                                    \
    return static_cast<xd_T_e5m2>(xd::numeric_detail::e5m2_format::encode(static_cast<float>(v), false));       \
  }                                                                                                             \
  inline xd_T_i8 xd_from_##k##_i8(K v) { return xd_prelude::to_int<xd_T_i8>(v); }                               \
  inline xd_T_u8 xd_from_##k##_u8(K v) { return xd_prelude::to_int<xd_T_u8>(v); }                               \
  inline xd_T_i32 xd_from_##k##_i32(K v) { return xd_prelude::to_int<xd_T_i32>(v); }                            \
  inline xd_T_i64 xd_from_##k##_i64(K v) { return xd_prelude::to_int<xd_T_i64>(v); }                            \
  inline xd_T_b8 xd_from_##k##_b8(K v) { return v != 0 ? 1 : 0; }
XD_PRELUDE_FROM(f, float)
XD_PRELUDE_FROM(d, double)
XD_PRELUDE_FROM(l, long)
#undef XD_PRELUDE_FROM
