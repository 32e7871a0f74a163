// Shared helpers for the CPU kernel tests. Everything here goes through the public API only.
//
// Inputs are built with xd::from_host from host values already rounded to the tensor's dtype
// (quantize), and outputs are read back in the tensor's own dtype (read), so that building and
// reading a tensor never runs a cast kernel: the kernel under test is the only one involved.
// Expected values are recomputed in double by plain loops in each test.
#pragma once

#include "support/dtype_sets.hpp"

#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace xdt {

using xd::Dtype;
using Shape = std::vector<int64_t>;

inline xd::Device dev() { return xd::cpu(); }

using xd::test::float_dtypes;
using xd::test::int_dtypes;
using xd::test::numeric_dtypes;
using xd::test::numel_of;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline Shape contiguous_strides(const Shape& s) {
  Shape st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

// Row-major multi-index of flat position `flat` in `shape`.
inline Shape unravel(int64_t flat, const Shape& shape) {
  Shape idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = shape[i] == 0 ? 0 : flat % shape[i];
    flat = shape[i] == 0 ? 0 : flat / shape[i];
  }
  return idx;
}

// Flat row-major position in `in_shape` of the element that NumPy broadcasting maps to the
// output index `out_idx` (in_shape is right-aligned against the output).
inline int64_t broadcast_flat(const Shape& out_idx, const Shape& in_shape) {
  const size_t off = out_idx.size() - in_shape.size();
  int64_t flat = 0;
  for (size_t i = 0; i < in_shape.size(); ++i) {
    const int64_t v = in_shape[i] == 1 ? 0 : out_idx[off + i];
    flat = flat * in_shape[i] + v;
  }
  return flat;
}

// The elements of a strided view of `base` (a flat host array), in row-major order of `sizes`.
inline std::vector<double> gather(const std::vector<double>& base, const Shape& sizes, const Shape& strides,
                                  int64_t offset) {
  std::vector<double> out;
  const int64_t n = numel_of(sizes);
  out.reserve(static_cast<size_t>(n));
  for (int64_t f = 0; f < n; ++f) {
    const Shape idx = unravel(f, sizes);
    int64_t p = offset;
    for (size_t i = 0; i < idx.size(); ++i) p += idx[i] * strides[i];
    out.push_back(base[static_cast<size_t>(p)]);
  }
  return out;
}

// `x` rounded to what a `d` tensor stores (ints truncate toward zero and wrap like a C cast).
inline double quantize(double x, Dtype d) {
  switch (d) {
    case Dtype::f64: return x;
    case Dtype::f32: return static_cast<float>(x);
    case Dtype::f16: return static_cast<float>(xd::half(static_cast<float>(x)));
    case Dtype::bf16: return static_cast<float>(xd::bfloat16(static_cast<float>(x)));
    case Dtype::f8e4m3fn: return static_cast<float>(xd::float8_e4m3fn(static_cast<float>(x)));
    case Dtype::f8e5m2: return static_cast<float>(xd::float8_e5m2(static_cast<float>(x)));
    case Dtype::i8: return static_cast<int8_t>(static_cast<int64_t>(x));
    case Dtype::u8: return static_cast<uint8_t>(static_cast<int64_t>(x));
    case Dtype::i32: return static_cast<int32_t>(static_cast<int64_t>(x));
    case Dtype::i64: return static_cast<double>(static_cast<int64_t>(x));
    case Dtype::boolean: return x != 0 ? 1.0 : 0.0;
  }
  return x;
}

template <class T, class F>
std::vector<T> convert(const std::vector<double>& v, F f) {
  std::vector<T> out;
  out.reserve(v.size());
  for (double x : v) out.push_back(f(x));
  return out;
}

// A tensor on the CPU holding `values` (rounded to `d`) with the given sizes.
inline xd::Tensor make(const std::vector<double>& values, xd::IntList sizes, Dtype d) {
  auto f = [](double x) { return static_cast<float>(x); };
  switch (d) {
    case Dtype::f64: return xd::tensor(values, sizes, dev());
    case Dtype::f32: return xd::tensor(convert<float>(values, f), sizes, dev());
    case Dtype::f16: return xd::tensor(convert<xd::half>(values, [](double x) { return xd::half(static_cast<float>(x)); }), sizes, dev());
    case Dtype::bf16:
      return xd::tensor(convert<xd::bfloat16>(values, [](double x) { return xd::bfloat16(static_cast<float>(x)); }), sizes,
                        dev());
    case Dtype::f8e4m3fn:
      return xd::tensor(
          convert<xd::float8_e4m3fn>(values, [](double x) { return xd::float8_e4m3fn(static_cast<float>(x)); }), sizes,
          dev());
    case Dtype::f8e5m2:
      return xd::tensor(convert<xd::float8_e5m2>(values, [](double x) { return xd::float8_e5m2(static_cast<float>(x)); }),
                        sizes, dev());
    case Dtype::i8:
      return xd::tensor(convert<int8_t>(values, [](double x) { return static_cast<int8_t>(static_cast<int64_t>(x)); }),
                        sizes, dev());
    case Dtype::u8:
      return xd::tensor(convert<uint8_t>(values, [](double x) { return static_cast<uint8_t>(static_cast<int64_t>(x)); }),
                        sizes, dev());
    case Dtype::i32:
      return xd::tensor(convert<int32_t>(values, [](double x) { return static_cast<int32_t>(static_cast<int64_t>(x)); }),
                        sizes, dev());
    case Dtype::i64:
      return xd::tensor(convert<int64_t>(values, [](double x) { return static_cast<int64_t>(x); }), sizes, dev());
    case Dtype::boolean:
      return xd::tensor(convert<uint8_t>(values, [](double x) { return static_cast<uint8_t>(x != 0 ? 1 : 0); }), sizes,
                        Dtype::boolean, dev());
  }
  return {};
}

inline xd::Tensor make_i64(const std::vector<int64_t>& values, xd::IntList sizes) {
  return xd::tensor(values, sizes, dev());
}

template <class T>
std::vector<double> to_double(const std::vector<T>& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (const T& x : v) out.push_back(static_cast<double>(static_cast<std::conditional_t<std::is_integral_v<T>, T, float>>(x)));
  return out;
}

// The elements of `t` in row-major order, read in t's own dtype (no cast kernel involved).
inline std::vector<double> read(const xd::Tensor& t) {
  switch (t.dtype()) {
    case Dtype::f64: return t.to_vector<double>();
    case Dtype::f32: return to_double(t.to_vector<float>());
    case Dtype::f16: return to_double(t.to_vector<xd::half>());
    case Dtype::bf16: return to_double(t.to_vector<xd::bfloat16>());
    case Dtype::f8e4m3fn: return to_double(t.to_vector<xd::float8_e4m3fn>());
    case Dtype::f8e5m2: return to_double(t.to_vector<xd::float8_e5m2>());
    case Dtype::i8: return to_double(t.to_vector<int8_t>());
    case Dtype::u8: return to_double(t.to_vector<uint8_t>());
    case Dtype::i32: return to_double(t.to_vector<int32_t>());
    case Dtype::i64: return to_double(t.to_vector<int64_t>());
    case Dtype::boolean: {
      const std::vector<bool> b = t.to_vector<bool>();
      return std::vector<double>(b.begin(), b.end());
    }
  }
  return {};
}

// `n` values uniform in [lo, hi), already rounded to `d` (integers and bool: floored first).
inline std::vector<double> random_values(size_t n, double lo, double hi, Dtype d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = quantize(xd::is_integral(d) || d == Dtype::boolean ? std::floor(dist(rng)) : dist(rng), d);
  return v;
}

struct Tol {
  double rtol;
  double atol;
};

inline Tol tol(Dtype d) {
  switch (d) {
    case Dtype::f64: return {1e-12, 1e-12};
    case Dtype::f32: return {1e-5, 1e-6};
    case Dtype::f16: return {1e-3, 1e-4};
    case Dtype::bf16: return {1e-2, 1e-3};
    default: return {0, 0};  // integers and bool: exact
  }
}

// actual ≈ expected elementwise: |a - e| <= atol + rtol * (|e| + scale[i]) where `scale` (optional)
// is a magnitude of the terms that produced e (e.g. sum |a_ik b_kj| for matmul), so that
// cancellation in sums is judged against the size of what was summed. NaN matches NaN only,
// infinities match exactly.
inline ::testing::AssertionResult all_close(const std::vector<double>& actual, const std::vector<double>& expected,
                                            Tol t, const std::vector<double>& scale = {}) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << "size " << actual.size() << " != expected size " << expected.size();
  int bad = 0;
  std::ostringstream msg;
  msg.precision(17);
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    bool ok;
    if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = a == e;
    } else {
      const double s = scale.empty() ? 0.0 : scale[i];
      ok = std::fabs(a - e) <= t.atol + t.rtol * (std::fabs(e) + s);
    }
    if (!ok && ++bad <= 8) msg << "\n  [" << i << "] got " << a << ", expected " << e;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << actual.size() << " elements differ (rtol " << t.rtol
                                       << ", atol " << t.atol << "):" << msg.str();
}

inline ::testing::AssertionResult all_close(const std::vector<double>& actual, const std::vector<double>& expected,
                                            Dtype d, const std::vector<double>& scale = {}) {
  return all_close(actual, expected, tol(d), scale);
}

inline ::testing::AssertionResult all_equal(const std::vector<double>& actual, const std::vector<double>& expected) {
  return all_close(actual, expected, Tol{0, 0});
}

inline Shape shape_of(const xd::Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end()); }
inline Shape strides_of(const xd::Tensor& t) { return Shape(t.strides().begin(), t.strides().end()); }

// Leaves in the caching allocator a freed block of 0xFF bytes (NaN in every float dtype) of `bytes` size, so that the
// next allocation of that size likely reuses it: an element a kernel forgets to write shows up.
inline void poison(size_t bytes) {
  xd::Tensor p = xd::full({static_cast<int64_t>(bytes)}, 255.0, Dtype::u8, dev());
  (void)p.numel();
  xd::synchronize(dev());
}

inline std::string trace(Dtype d) { return std::string("dtype ") + xd::dtype_name(d); }

}  // namespace xdt
