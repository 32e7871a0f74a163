// The value of every fp8 bit pattern, computed from the OCP FP8 format definitions alone (not from
// the library's numeric.hpp), so that the conversion tests compare against an independent table.
//   e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities; S.1111.111 is NaN; the
//           largest finite value is S.1111.110 = 448.
//   e5m2:   1 sign, 5 exponent (bias 15), 2 mantissa bits; IEEE-like: exponent 11111 is Inf
//           (mantissa 0) or NaN; the largest finite value is S.11110.11 = 57344.
// Exponent field 0 encodes subnormals: mantissa * 2^(1 - bias - mantissa bits).
#pragma once

#include <xd/dtype.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace xd::test {

inline double fp8_reference_value(uint8_t bits, Dtype d) {
  const bool e5 = d == Dtype::f8e5m2;
  const int mant_bits = e5 ? 2 : 3;
  const int exp_bits = e5 ? 5 : 4;
  const int bias = e5 ? 15 : 7;
  const int field = (bits >> mant_bits) & ((1 << exp_bits) - 1);
  const int mant = bits & ((1 << mant_bits) - 1);
  const double sign = (bits & 0x80) ? -1.0 : 1.0;
  const int top = (1 << exp_bits) - 1;
  if (e5 && field == top)
    return mant == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (!e5 && field == top && mant == 7) return std::numeric_limits<double>::quiet_NaN();
  const double frac = static_cast<double>(mant) / static_cast<double>(1 << mant_bits);
  if (field == 0) return sign * frac * std::pow(2.0, 1 - bias);
  return sign * (1.0 + frac) * std::pow(2.0, field - bias);
}

// All 256 values of `d`, index = bit pattern.
inline std::array<double, 256> fp8_reference_table(Dtype d) {
  std::array<double, 256> t{};
  for (int b = 0; b < 256; ++b) t[static_cast<size_t>(b)] = fp8_reference_value(static_cast<uint8_t>(b), d);
  return t;
}

}  // namespace xd::test
