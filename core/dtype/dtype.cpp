#include <xd/dtype.hpp>
#include <xd/error.hpp>

#include <string>

namespace xd {

namespace {
constexpr const char* kNames[kNumDtypes] = {"f64", "f32", "f16", "bf16", "i8", "u8",
                                            "i32", "i64", "bool", "f8e4m3fn", "f8e5m2"};
constexpr size_t kSizes[kNumDtypes] = {8, 4, 2, 2, 1, 1, 4, 8, 1, 1, 1};
}  // namespace

size_t itemsize(Dtype d) noexcept { return kSizes[static_cast<int>(d)]; }
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

bool is_fp8(Dtype d) noexcept { return d == Dtype::f8e4m3fn || d == Dtype::f8e5m2; }
bool is_floating(Dtype d) noexcept {
  return d == Dtype::f64 || d == Dtype::f32 || d == Dtype::f16 || d == Dtype::bf16 || is_fp8(d);
}
bool is_integral(Dtype d) noexcept {
  return d == Dtype::i8 || d == Dtype::u8 || d == Dtype::i32 || d == Dtype::i64;
}

}  // namespace xd
