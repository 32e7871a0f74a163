// Shared helpers of the OpenCL backend tests: every test runs an op on the opencl device and on
// the CPU reference with the same inputs and compares, through the public API only.
//
// The program cache of these tests lives in the build tree (XD_TEST_CACHE_DIR), set before the
// library starts, so a cold run builds each program once and later test processes load it.
#pragma once

#include "support/dtype_sets.hpp"

#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace xdo {

using xd::Dtype;
using xd::Tensor;
using Shape = std::vector<int64_t>;

// Runs before main: the tests' own cache folder unless the caller chose one.
inline const bool kCacheDirSet = [] {
#ifdef XD_TEST_CACHE_DIR
  setenv("XD_CACHE_DIR", XD_TEST_CACHE_DIR, 0);
#endif
  return true;
}();

inline xd::Device ocl() { return xd::Device::parse("opencl"); }
inline xd::Device cpu() { return xd::cpu(); }
inline bool has_fp64() { return ocl().properties().supports_f64; }

using xd::test::float_dtypes;
using xd::test::int_dtypes;
using xd::test::numeric_dtypes;
using xd::test::all_dtypes;
using xd::test::numel_of;
// The dtypes the device can run (f64 needs cl_khr_fp64).
inline std::vector<Dtype> usable(const std::vector<Dtype>& ds) {
  std::vector<Dtype> out;
  for (Dtype d : ds)
    if (d != Dtype::f64 || has_fp64()) out.push_back(d);
  return out;
}

// Host bytes of `values` in dtype d, with the library's own conversions (numeric.hpp).
inline std::vector<uint8_t> encode(const std::vector<double>& values, Dtype d) {
  std::vector<uint8_t> out(values.size() * xd::itemsize(d));
  uint8_t* p = out.data();
  for (size_t i = 0; i < values.size(); ++i) {
    const double x = values[i];
    auto put = [&](auto v) { std::memcpy(p + i * sizeof v, &v, sizeof v); };
    switch (d) {
      case Dtype::f64: put(x); break;
      case Dtype::f32: put(static_cast<float>(x)); break;
      case Dtype::f16: put(xd::half(static_cast<float>(x)).bits); break;
      case Dtype::bf16: put(xd::bfloat16(static_cast<float>(x)).bits); break;
      case Dtype::f8e4m3fn: put(xd::float8_e4m3fn(static_cast<float>(x)).bits); break;
      case Dtype::f8e5m2: put(xd::float8_e5m2(static_cast<float>(x)).bits); break;
      case Dtype::i8: put(static_cast<int8_t>(static_cast<int64_t>(x))); break;
      case Dtype::u8: put(static_cast<uint8_t>(static_cast<int64_t>(x))); break;
      case Dtype::i32: put(static_cast<int32_t>(static_cast<int64_t>(x))); break;
      case Dtype::i64: put(static_cast<int64_t>(x)); break;
      case Dtype::boolean: put(static_cast<uint8_t>(x != 0 ? 1 : 0)); break;
    }
  }
  return out;
}

// A CPU tensor holding `values` rounded to d.
inline Tensor make(const std::vector<double>& values, const Shape& sizes, Dtype d) {
  const auto bytes = encode(values, d);
  return xd::from_host(bytes.data(), d, sizes, cpu());
}

// `n` values uniform in [lo, hi); integers and bool are floored.
inline std::vector<double> random_values(size_t n, double lo, double hi, Dtype d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = xd::is_integral(d) || d == Dtype::boolean ? std::floor(dist(rng)) : dist(rng);
  return v;
}

inline Tensor random_tensor(const Shape& sizes, Dtype d, uint32_t seed, double lo = -4, double hi = 4) {
  if (d == Dtype::boolean) return make(random_values(static_cast<size_t>(numel_of(sizes)), 0, 2, d, seed), sizes, d);
  if (d == Dtype::u8) lo = std::max(lo, 0.0), hi = std::max(hi, 8.0);
  return make(random_values(static_cast<size_t>(numel_of(sizes)), lo, hi, d, seed), sizes, d);
}

// The elements of t (any device) in row-major order, as doubles.
inline std::vector<double> read(const Tensor& t) {
  const Tensor c = t.to(cpu());
  switch (c.dtype()) {
    case Dtype::f64: return c.to_vector<double>();
    case Dtype::boolean: {
      const std::vector<bool> b = c.to_vector<bool>();
      return std::vector<double>(b.begin(), b.end());
    }
    case Dtype::i64: {
      const auto v = c.to_vector<int64_t>();
      return std::vector<double>(v.begin(), v.end());
    }
    default: return c.to(Dtype::f64).to_vector<double>();
  }
}

struct Tol {
  double rtol;
  double atol;
};
// Correctly rounded operations agree bit for bit.
inline constexpr Tol kExact{0, 0};
// Library math (exp, log, tanh, erf, pow) may differ by a few units in the last place, and a
// different rounding of the f32 intermediate can flip the final f16/bf16 rounding by one unit.
inline Tol math_tol(Dtype d) {
  switch (d) {
    case Dtype::f64: return {1e-13, 1e-300};
    case Dtype::f32: return {4e-6, 1e-30};
    case Dtype::f16: return {1e-3, 1e-7};
    case Dtype::bf16: return {8e-3, 1e-30};
    default: return kExact;
  }
}
// Sums accumulated in another order or precision (f32 accumulation against the reference's f64).
inline Tol sum_tol(Dtype d) {
  switch (d) {
    case Dtype::f64: return {1e-12, 1e-12};
    case Dtype::f32: return {2e-5, 1e-5};
    case Dtype::f16: return {2e-3, 1e-3};
    case Dtype::bf16: return {1.6e-2, 1e-2};
    default: return kExact;
  }
}

// NaN matches NaN, infinities match exactly, signed zeros are compared when the tolerance is exact.
inline ::testing::AssertionResult all_close(const std::vector<double>& actual, const std::vector<double>& expected,
                                            Tol t) {
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
    } else if (t.rtol == 0 && t.atol == 0) {
      ok = a == e && std::signbit(a) == std::signbit(e);
    } else {
      ok = std::fabs(a - e) <= t.atol + t.rtol * std::fabs(e);
    }
    if (!ok && ++bad <= 8) msg << "\n  [" << i << "] opencl " << a << ", cpu " << e;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << actual.size() << " elements differ (rtol " << t.rtol
                                       << ", atol " << t.atol << "):" << msg.str();
}

// Runs `op` on CPU tensors and on their copies on the opencl device and compares the results:
// same shape, same dtype, values within `t`.
inline ::testing::AssertionResult same_as_cpu(const std::vector<Tensor>& cpu_inputs,
                                              const std::function<Tensor(const std::vector<Tensor>&)>& op, Tol t) {
  std::vector<Tensor> dev_inputs;
  for (const Tensor& x : cpu_inputs) dev_inputs.push_back(x.to(ocl()));
  const Tensor want = op(cpu_inputs);
  const Tensor got = op(dev_inputs);
  if (got.device() != ocl()) return ::testing::AssertionFailure() << "the result is on " << got.device().str();
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure() << "dtype " << xd::dtype_name(got.dtype()) << ", cpu gives "
                                         << xd::dtype_name(want.dtype());
  if (std::vector<int64_t>(got.sizes().begin(), got.sizes().end()) !=
      std::vector<int64_t>(want.sizes().begin(), want.sizes().end()))
    return ::testing::AssertionFailure() << "shapes differ";
  return all_close(read(got), read(want), t);
}

inline std::string name_of(Dtype d) { return xd::dtype_name(d); }

}  // namespace xdo
