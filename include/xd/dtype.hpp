// Element types. Values equal the ABI's xd_dtype.
#pragma once

#include <xd/numeric.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace xd {

enum class Dtype : int32_t {
  f64 = 0,
  f32 = 1,
  f16 = 2,
  bf16 = 3,
  i8 = 4,
  u8 = 5,
  i32 = 6,
  i64 = 7,
  boolean = 8,
  f8e4m3fn = 9,
  f8e5m2 = 10,
};

inline constexpr int kNumDtypes = 11;

// Bytes per element.
size_t itemsize(Dtype d) noexcept;
// The name used everywhere in text: f64 f32 f16 bf16 i8 u8 i32 i64 bool f8e4m3fn f8e5m2.
const char* dtype_name(Dtype d) noexcept;
// Parses one of those names; throws ValueError listing the valid names.
Dtype parse_dtype(std::string_view name);
bool is_floating(Dtype d) noexcept;  // f64 f32 f16 bf16 and both fp8 formats
bool is_fp8(Dtype d) noexcept;
bool is_integral(Dtype d) noexcept;  // i8 u8 i32 i64 (bool is not integral)

// Maps a C++ element type to its Dtype: double float half bfloat16 int8_t uint8_t int32_t int64_t
// bool float8_e4m3fn float8_e5m2.
template <class T>
constexpr Dtype dtype_of();
template <> constexpr Dtype dtype_of<double>() { return Dtype::f64; }
template <> constexpr Dtype dtype_of<float>() { return Dtype::f32; }
template <> constexpr Dtype dtype_of<half>() { return Dtype::f16; }
template <> constexpr Dtype dtype_of<bfloat16>() { return Dtype::bf16; }
template <> constexpr Dtype dtype_of<int8_t>() { return Dtype::i8; }
template <> constexpr Dtype dtype_of<uint8_t>() { return Dtype::u8; }
template <> constexpr Dtype dtype_of<int32_t>() { return Dtype::i32; }
template <> constexpr Dtype dtype_of<int64_t>() { return Dtype::i64; }
template <> constexpr Dtype dtype_of<bool>() { return Dtype::boolean; }
template <> constexpr Dtype dtype_of<float8_e4m3fn>() { return Dtype::f8e4m3fn; }
template <> constexpr Dtype dtype_of<float8_e5m2>() { return Dtype::f8e5m2; }

}  // namespace xd
