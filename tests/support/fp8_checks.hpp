// fp8 conversion checks run on any device (the CPU and OpenCL tests call them): every bit pattern
// decodes to the independent table of fp8_reference.hpp, every value encodes back to its pattern,
// midpoints round to even, and the saturating cast clamps where the standard cast overflows.
// Tensors are built from raw bytes (from_host) and read back as raw bytes, so the cast kernels of
// `dev` are the only conversions involved.
#pragma once

#include <xd/xd.hpp>

#include "support/fp8_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace xd::test {

inline std::vector<float> floats_of(const Tensor& t) {
  const std::vector<uint8_t> b = t.to(cpu()).to_bytes();
  std::vector<float> f(b.size() / 4);
  if (!f.empty()) std::memcpy(f.data(), b.data(), f.size() * 4);
  return f;
}

inline Tensor f32_tensor(const std::vector<float>& v, Device dev) {
  return from_host(v.data(), Dtype::f32, {static_cast<int64_t>(v.size())}, dev);
}

inline bool same_value(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

// fp8 -> f32 on `dev` for all 256 patterns.
inline ::testing::AssertionResult fp8_decodes_like_the_table(Dtype d, Device dev) {
  std::vector<uint8_t> bits(256);
  for (int b = 0; b < 256; ++b) bits[static_cast<size_t>(b)] = static_cast<uint8_t>(b);
  const std::vector<float> got = floats_of(from_host(bits.data(), d, {256}, dev).to(Dtype::f32));
  const auto table = fp8_reference_table(d);
  for (int b = 0; b < 256; ++b)
    if (!same_value(got[static_cast<size_t>(b)], table[static_cast<size_t>(b)]))
      return ::testing::AssertionFailure()
             << dtype_name(d) << " pattern 0x" << std::hex << b << std::dec << " decodes to "
             << got[static_cast<size_t>(b)] << ", the format says " << table[static_cast<size_t>(b)];
  return ::testing::AssertionSuccess();
}

// f32 -> fp8 on `dev`: each table value back to its own pattern (a NaN to a NaN pattern), and the
// midpoint of two neighbouring finite values to the one with the even mantissa.
inline ::testing::AssertionResult fp8_encodes_back(Dtype d, Device dev) {
  const auto table = fp8_reference_table(d);
  std::vector<float> in;
  std::vector<int> want;  // the expected pattern; -1: any NaN pattern
  for (int b = 0; b < 256; ++b) {
    in.push_back(static_cast<float>(table[static_cast<size_t>(b)]));
    want.push_back(std::isnan(table[static_cast<size_t>(b)]) ? -1 : b);
  }
  for (int b = 0; b < 255; ++b) {
    const double lo = table[static_cast<size_t>(b)], hi = table[static_cast<size_t>(b + 1)];
    if ((b & 0x7f) == 0x7f || !std::isfinite(lo) || !std::isfinite(hi)) continue;  // across the sign or into Inf/NaN
    in.push_back(static_cast<float>((lo + hi) / 2));  // exact in f32: a few significant bits
    want.push_back((b & 1) == 0 ? b : b + 1);
  }
  const std::vector<uint8_t> got = f32_tensor(in, dev).to(d).to(cpu()).to_bytes();
  for (size_t i = 0; i < in.size(); ++i) {
    const bool ok = want[i] < 0 ? std::isnan(table[got[i]]) : got[i] == want[i];
    if (!ok)
      return ::testing::AssertionFailure() << dtype_name(d) << ": " << in[i] << " encodes to pattern " << int{got[i]}
                                           << ", expected " << want[i] << " (-1: a NaN)";
  }
  return ::testing::AssertionSuccess();
}

// cast(x, d, saturate) from `src` (f32 or bf16) on `dev` against hand-worked results, and the
// standard cast's overflow beside it.
inline ::testing::AssertionResult fp8_saturates(Dtype d, Dtype src, Device dev) {
  const double m = d == Dtype::f8e4m3fn ? 448.0 : 57344.0;
  const double inf = INFINITY, nan = NAN;
  // 2m is beyond the rounding range in both formats; 1e30 is finite in f32 and bf16.
  const std::vector<float> in = {0.0f,          -0.0f, 1.0f,   -1.5f,      float(m),    float(-m), float(2 * m),
                                 float(-2 * m), 1e30f, -1e30f, float(inf), float(-inf), float(nan)};
  const std::vector<double> sat = {0.0, -0.0, 1.0, -1.5, m, -m, m, -m, m, -m, m, -m, nan};
  const double over = d == Dtype::f8e4m3fn ? nan : inf;  // what the standard cast gives beyond max
  const std::vector<double> std_cast = {0.0, -0.0, 1.0, -1.5, m, -m, over, -over, over, -over, over, -over, nan};
  const Tensor x = f32_tensor(in, dev).to(src);
  const auto table = fp8_reference_table(d);
  for (int mode = 0; mode < 2; ++mode) {
    const std::vector<uint8_t> got =
        cast(x, d, mode == 0 ? CastMode::saturate : CastMode::standard).to(cpu()).to_bytes();
    const std::vector<double>& want = mode == 0 ? sat : std_cast;
    for (size_t i = 0; i < in.size(); ++i)
      if (!same_value(table[got[i]], want[i]) && !(std::isnan(want[i]) && std::isnan(table[got[i]])))
        return ::testing::AssertionFailure()
               << (mode == 0 ? "saturating" : "standard") << " cast of " << in[i] << " (" << dtype_name(src) << ") to "
               << dtype_name(d) << " gives " << table[got[i]] << ", expected " << want[i];
  }
  return ::testing::AssertionSuccess();
}

}  // namespace xd::test
