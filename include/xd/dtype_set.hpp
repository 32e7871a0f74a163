// The dtype vocabulary shared by the core, the plugins and the tools: a set of dtypes, the named
// sets every layer registers and checks against, each dtype's size and its kernel-source tag.
// Header-only over plugin_abi.h, so a plugin can use it without linking the core.
//
// One meaning per name:
//  - floating: every floating-point dtype, fp8 included (as torch.is_floating_point);
//  - compute_floating: the floating dtypes kernels do arithmetic in (f64 f32 f16 bf16); fp8 is a
//    storage format that is cast, scaled and multiplied, never added or exponentiated as such;
//  - integral: i8 u8 i32 i64 (bool is not integral);
//  - numeric: compute_floating and integral; numeric_bool adds bool; all is every dtype.
// Thread safety: constants and pure functions only.
#pragma once

#include <xd/plugin_abi.h>

#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace xd {

// A set of dtypes (bit d: xd_dtype d). A literal type, so it can be a template argument.
class DtypeSet {
 public:
  constexpr DtypeSet() = default;
  template <class D>
  constexpr DtypeSet(std::initializer_list<D> dtypes) {
    for (D d : dtypes) bits_ |= bit(static_cast<int32_t>(d));
  }
  static constexpr DtypeSet from_bits(uint32_t bits) {
    DtypeSet s;
    s.bits_ = bits;
    return s;
  }

  template <class D>
  constexpr bool contains(D dtype) const {
    const auto d = static_cast<int32_t>(dtype);
    return d >= 0 && d < XD_DTYPE_COUNT_V1 && (bits_ & bit(d)) != 0;
  }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint32_t bits() const { return bits_; }
  constexpr DtypeSet operator|(DtypeSet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DtypeSet operator&(DtypeSet o) const { return from_bits(bits_ & o.bits_); }
  constexpr DtypeSet without(DtypeSet o) const { return from_bits(bits_ & ~o.bits_); }
  constexpr bool operator==(const DtypeSet&) const = default;

  // Calls f(xd_dtype) for every member, in xd_dtype order.
  template <class F>
  constexpr void for_each(F&& f) const {
    for (int32_t d = 0; d < XD_DTYPE_COUNT_V1; ++d)
      if (contains(d)) f(static_cast<xd_dtype>(d));
  }

  uint32_t bits_ = 0;  // public so that the type is structural (a template argument); use bits()

 private:
  static constexpr uint32_t bit(int32_t d) { return d >= 0 && d < 32 ? (1u << d) : 0u; }
};

namespace dtypes {
inline constexpr DtypeSet fp8 = {XD_DTYPE_F8E4M3FN, XD_DTYPE_F8E5M2};
inline constexpr DtypeSet compute_floating = {XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16};
inline constexpr DtypeSet floating = compute_floating | fp8;
inline constexpr DtypeSet integral = {XD_DTYPE_I8, XD_DTYPE_U8, XD_DTYPE_I32, XD_DTYPE_I64};
inline constexpr DtypeSet numeric = compute_floating | integral;
inline constexpr DtypeSet numeric_bool = numeric | DtypeSet{XD_DTYPE_BOOL};
inline constexpr DtypeSet all = numeric_bool | fp8;
}  // namespace dtypes

// Bytes per element; 0 for a value that is no dtype.
template <class D>
constexpr int64_t dtype_size(D dtype) {
  switch (static_cast<int32_t>(dtype)) {
    case XD_DTYPE_F64:
    case XD_DTYPE_I64:
      return 8;
    case XD_DTYPE_F32:
    case XD_DTYPE_I32:
      return 4;
    case XD_DTYPE_F16:
    case XD_DTYPE_BF16:
      return 2;
    case XD_DTYPE_I8:
    case XD_DTYPE_U8:
    case XD_DTYPE_BOOL:
    case XD_DTYPE_F8E4M3FN:
    case XD_DTYPE_F8E5M2:
      return 1;
    default:
      return 0;
  }
}

// The dtype's tag in kernel sources and program names (-DXD_DT=<tag>: f64 f32 f16 bf16 i8 u8 i32
// i64 b8 e4m3 e5m2); nullptr for a value that is no dtype.
template <class D>
constexpr const char* dtype_tag(D dtype) {
  constexpr const char* kTags[XD_DTYPE_COUNT_V1] = {"f64", "f32", "f16", "bf16", "i8",  "u8",
                                                    "i32", "i64", "b8",  "e4m3", "e5m2"};
  const auto d = static_cast<int32_t>(dtype);
  return d >= 0 && d < XD_DTYPE_COUNT_V1 ? kTags[d] : nullptr;
}

}  // namespace xd
