#include <xd/dtype.hpp>
#include <xd/dtype_set.hpp>
#include <xd/error.hpp>

#include "dtype/dtype_check.hpp"

#include <string>

namespace xd {

namespace {
constexpr const char* kNames[kNumDtypes] = {"f64", "f32", "f16", "bf16", "i8", "u8",
                                            "i32", "i64", "bool", "f8e4m3fn", "f8e5m2"};
}  // namespace

size_t itemsize(Dtype d) noexcept { return static_cast<size_t>(dtype_size(d)); }
const char* dtype_name(Dtype d) noexcept {
  const int i = static_cast<int>(d);
  return (i >= 0 && i < kNumDtypes) ? kNames[i] : "invalid";
}

Dtype parse_dtype(std::string_view name) {
  for (int i = 0; i < kNumDtypes; ++i)
    if (name == kNames[i]) return static_cast<Dtype>(i);
  std::string valid;
  for (int i = 0; i < kNumDtypes; ++i) valid += std::string(i ? ", " : "") + kNames[i];
  throw ValueError("unknown dtype '" + std::string(name) + "'; expected one of: " + valid);
}

namespace detail {
void throw_invalid_dtype(Dtype d, const char* op) {
  std::string valid;
  for (int i = 0; i < kNumDtypes; ++i) valid += std::string(i ? ", " : "") + kNames[i];
  throw DtypeError(std::string(op) + ": dtype value " + std::to_string(static_cast<int32_t>(d)) +
                   " is not an xd::Dtype (expected one of: " + valid + ")");
}
}  // namespace detail

bool is_fp8(Dtype d) noexcept { return dtypes::fp8.contains(d); }
bool is_floating(Dtype d) noexcept { return dtypes::floating.contains(d); }
bool is_integral(Dtype d) noexcept { return dtypes::integral.contains(d); }

}  // namespace xd
