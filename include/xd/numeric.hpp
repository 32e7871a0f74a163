// Storage types for the narrow floating-point formats, header-only so that plugins share the
// core's exact conversions: f16 (IEEE binary16), bf16, fp8 e4m3fn and e5m2 (OCP FP8).
//
// Conversions from float round to nearest, ties to even. Out-of-range values become Inf where
// the format has one (f16, bf16, e5m2) and NaN for e4m3fn, as PyTorch's casts do; the
// `*_saturate` encoders clamp to the largest finite value instead. NaN stays NaN.
// All functions are pure and thread-safe.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace xd {

namespace numeric_detail {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// A binary floating-point format with `E` exponent bits and `M` mantissa bits.
// `IeeeSpecials`: the all-ones exponent encodes Inf/NaN (f16, e5m2). Otherwise (e4m3fn) there is
// no Inf and only the all-ones pattern S.1111.111 is NaN.
template <int E, int M, bool IeeeSpecials>
struct small_float {
  static constexpr int bias = (1 << (E - 1)) - 1;
  static constexpr int emin = 1 - bias;
  static constexpr uint32_t sign_bit = 1u << (E + M);
  static constexpr uint32_t max_finite = IeeeSpecials ? (((1u << E) - 2) << M) | ((1u << M) - 1)
                                                      : (((1u << E) - 1) << M) | ((1u << M) - 2);
  static constexpr uint32_t inf_bits = ((1u << E) - 1) << M;
  static constexpr uint32_t nan_bits = IeeeSpecials ? (inf_bits | (1u << (M - 1)))
                                                    : (((1u << E) - 1) << M) | ((1u << M) - 1);

  static uint32_t encode(float f, bool saturate) {
    const uint32_t sign = (float_bits(f) >> 31) ? sign_bit : 0u;
    if (std::isnan(f)) return sign | nan_bits;
    if (std::isinf(f)) {
      if (saturate) return sign | max_finite;
      return sign | (IeeeSpecials ? inf_bits : nan_bits);
    }
    const double a = std::fabs(static_cast<double>(f));
    if (a == 0.0) return sign;
    int ex = 0;
    std::frexp(a, &ex);  // a = m * 2^ex, m in [0.5, 1)
    int e = ex - 1;      // a = 1.xxx * 2^e
    uint32_t bits;
    if (e < emin) {
      // Subnormal: a multiple of 2^(emin - M). Rounding up to 2^M lands exactly on the smallest
      // normal's encoding.
      const double q = std::nearbyint(std::ldexp(a, M - emin));
      bits = static_cast<uint32_t>(q);
    } else {
      double q = std::nearbyint(std::ldexp(a, M - e));  // in [2^M, 2^(M+1)]
      if (q >= static_cast<double>(1u << (M + 1))) {
        q = static_cast<double>(1u << M);
        ++e;
      }
      const int64_t field = static_cast<int64_t>(e) + bias;
      if (field >= (1 << E)) return sign | (saturate ? max_finite : (IeeeSpecials ? inf_bits : nan_bits));
      bits = (static_cast<uint32_t>(field) << M) | (static_cast<uint32_t>(q) - (1u << M));
    }
    if (bits > max_finite) return sign | (saturate ? max_finite : (IeeeSpecials ? inf_bits : nan_bits));
    return sign | bits;
  }

  static float decode(uint32_t bits) {
    const bool neg = (bits & sign_bit) != 0;
    const uint32_t field = (bits >> M) & ((1u << E) - 1);
    const uint32_t mant = bits & ((1u << M) - 1);
    double v;
    if (IeeeSpecials && field == (1u << E) - 1) {
      v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    } else if (!IeeeSpecials && (bits & ~sign_bit) == nan_bits) {
      v = std::numeric_limits<double>::quiet_NaN();
    } else if (field == 0) {
      v = std::ldexp(static_cast<double>(mant), emin - M);
    } else {
      v = std::ldexp(static_cast<double>(mant + (1u << M)), static_cast<int>(field) - bias - M);
    }
    return static_cast<float>(neg ? -v : v);
  }
};

using f16_format = small_float<5, 10, true>;
using e4m3fn_format = small_float<4, 3, false>;
using e5m2_format = small_float<5, 2, true>;

inline float f16_to_float(uint16_t h) {
  // Bit-exact fast path: rebias normal numbers; subnormals through the generic decoder.
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t field = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (field == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (field == 0) return f16_format::decode(h);
  return bits_float(sign | ((field + 112u) << 23) | (mant << 13));
}

inline uint16_t float_to_f16(float f) {
  // Fast path for values that stay normal in f16, RNE on the dropped 13 bits.
  const uint32_t u = float_bits(f);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x38800000u && abs < 0x477ff000u) {  // [2^-14, 65520): normal f16 after rounding
    const uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t r = abs - 0x38000000u;  // rebias 127 -> 15 in the exponent field
    r += 0x0fffu + ((r >> 13) & 1u);
    return static_cast<uint16_t>(sign | (r >> 13));
  }
  return static_cast<uint16_t>(f16_format::encode(f, false));
}

inline float bf16_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

inline uint16_t float_to_bf16(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

inline uint16_t float_to_bf16_saturate(float f) {
  const uint16_t b = float_to_bf16(f);
  if ((b & 0x7fffu) == 0x7f80u && !std::isinf(f)) return static_cast<uint16_t>((b & 0x8000u) | 0x7f7fu);
  if (std::isinf(f)) return static_cast<uint16_t>((b & 0x8000u) | 0x7f7fu);
  return b;
}

}  // namespace numeric_detail

// Each type is a 16- or 8-bit storage wrapper with explicit conversion to and from float.
struct half {
  uint16_t bits = 0;
  half() = default;
  explicit half(float f) : bits(numeric_detail::float_to_f16(f)) {}
  static half from_bits(uint16_t b) { half h; h.bits = b; return h; }
  operator float() const { return numeric_detail::f16_to_float(bits); }
};

struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  explicit bfloat16(float f) : bits(numeric_detail::float_to_bf16(f)) {}
  static bfloat16 from_bits(uint16_t b) { bfloat16 h; h.bits = b; return h; }
  operator float() const { return numeric_detail::bf16_to_float(bits); }
};

struct float8_e4m3fn {
  uint8_t bits = 0;
  float8_e4m3fn() = default;
  explicit float8_e4m3fn(float f)
      : bits(static_cast<uint8_t>(numeric_detail::e4m3fn_format::encode(f, false))) {}
  static float8_e4m3fn from_bits(uint8_t b) { float8_e4m3fn h; h.bits = b; return h; }
  static float8_e4m3fn saturate(float f) {
    return from_bits(static_cast<uint8_t>(numeric_detail::e4m3fn_format::encode(f, true)));
  }
  operator float() const { return numeric_detail::e4m3fn_format::decode(bits); }
};

struct float8_e5m2 {
  uint8_t bits = 0;
  float8_e5m2() = default;
  explicit float8_e5m2(float f)
      : bits(static_cast<uint8_t>(numeric_detail::e5m2_format::encode(f, false))) {}
  static float8_e5m2 from_bits(uint8_t b) { float8_e5m2 h; h.bits = b; return h; }
  static float8_e5m2 saturate(float f) {
    return from_bits(static_cast<uint8_t>(numeric_detail::e5m2_format::encode(f, true)));
  }
  operator float() const { return numeric_detail::e5m2_format::decode(bits); }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);
static_assert(sizeof(float8_e4m3fn) == 1 && sizeof(float8_e5m2) == 1);

}  // namespace xd
