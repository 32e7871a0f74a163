// Scalars (double in the API) converted to a tensor's dtype are checked the way PyTorch's
// c10::checked_convert checks them: a value the dtype cannot hold is a ValueError, never a
// wrapped integer or a silent infinity. Integer dtypes take a finite value in their range
// (fractions truncate toward zero, as a C cast does); u8 also takes -255..-1, which wrap as in
// PyTorch's two's-complement rule for a Python int; floating dtypes take +-Inf and NaN where the
// format has them and finite values up to the format's largest.
#pragma once

#include <xd/dtype.hpp>
#include <xd/error.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace xd::detail {

struct ScalarRange {
  double lowest, highest;
  bool has_inf, has_nan;
};

inline ScalarRange scalar_range(Dtype d) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  switch (d) {
    case Dtype::f64:
      return {-inf, inf, true, true};
    case Dtype::f32:
      return {-3.4028234663852886e38, 3.4028234663852886e38, true, true};
    case Dtype::f16:
      return {-65504.0, 65504.0, true, true};
    case Dtype::bf16:
      return {-3.3895313892515355e38, 3.3895313892515355e38, true, true};
    case Dtype::f8e4m3fn:
      return {-448.0, 448.0, false, true};
    case Dtype::f8e5m2:
      return {-57344.0, 57344.0, true, true};
    case Dtype::i8:
      return {-128.0, 127.0, false, false};
    case Dtype::u8:
      return {-255.0, 255.0, false, false};
    case Dtype::i32:
      return {-2147483648.0, 2147483647.0, false, false};
    case Dtype::i64:
      return {-9223372036854775808.0, 9223372036854775807.0, false, false};
    case Dtype::boolean:
      return {-inf, inf, true, true};  // any value: nonzero is true
  }
  return {0, 0, false, false};
}

inline std::string scalar_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// check_scalar_fits's work for values outside [-127, 127] (and NaN): out of line, as it builds
// messages.
[[gnu::noinline]] inline void check_scalar_fits_slow(const char* op, const char* what, double v, Dtype d) {
  const ScalarRange r = scalar_range(d);
  const auto fail = [&](const std::string& why) {
    throw ValueError(std::string(op) + ": " + what + " " + scalar_text(v) + " cannot be converted to " + dtype_name(d) +
                     " without overflow (" + why + ")");
  };
  if (std::isnan(v)) {
    if (!r.has_nan) fail(std::string(dtype_name(d)) + " has no NaN");
    return;
  }
  if (std::isinf(v)) {
    if (!r.has_inf) fail(std::string(dtype_name(d)) + " has no infinity");
    return;
  }
  // i64's upper bound 2^63-1 is not a double: the comparison is against 2^63, exclusive.
  const bool above = d == Dtype::i64 ? v >= 9223372036854775808.0 : v > r.highest;
  if (v < r.lowest || above)
    fail(std::string(dtype_name(d)) + " holds " + scalar_text(d == Dtype::u8 ? 0.0 : r.lowest) + " .. " +
         scalar_text(r.highest) + (d == Dtype::u8 ? "; -255 .. -1 wrap" : ""));
}

// ValueError "<op>: <what> <v> cannot be converted to <dtype> without overflow (...)" unless `v`
// fits `d`. Every dtype holds [-127, 127] (i8's range, fractions truncating), which takes the
// usual scalars (alpha = 1, clamp bounds) without the range table; NaN fails both comparisons.
inline void check_scalar_fits(const char* op, const char* what, double v, Dtype d) {
  if (v >= -127.0 && v <= 127.0) [[likely]]
    return;
  check_scalar_fits_slow(op, what, v, d);
}

// The integer a scalar gives in an integer (or bool) dtype, after check_scalar_fits.
inline int64_t scalar_to_integer(double v, Dtype d) {
  if (d == Dtype::boolean) return v != 0 ? 1 : 0;
  return static_cast<int64_t>(v);  // in range: checked above; truncates toward zero
}

}  // namespace xd::detail
