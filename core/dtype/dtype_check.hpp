// Rejects Dtype values outside the enum. Dtype has a fixed underlying type, so any int32 value
// converts to it in legal C++ (static_cast<xd::Dtype>(42)); every public entry that takes a dtype
// checks it before the value indexes a table (itemsize, the dispatch table, kernel names).
#pragma once

#include <xd/dtype.hpp>

#include <cstdint>

namespace xd::detail {

// DtypeError: "<op>: dtype value 42 is not an xd::Dtype (expected one of: f64, ...)".
[[noreturn]] void throw_invalid_dtype(Dtype d, const char* op);

inline bool is_valid_dtype(Dtype d) {
  return static_cast<uint32_t>(static_cast<int32_t>(d)) < static_cast<uint32_t>(kNumDtypes);
}

inline void check_dtype_value(Dtype d, const char* op) {
  if (!is_valid_dtype(d)) [[unlikely]]
    throw_invalid_dtype(d, op);
}

}  // namespace xd::detail
