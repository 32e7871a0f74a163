// Checks shared by the op meta functions. Each throws the typed error with a message that names
// the op, the argument, what was expected and what was given.
#pragma once

#include <xd/error.hpp>
#include <xd/tensor.hpp>

#include "tensor/shape.hpp"
#include "tensor/tensor_impl.hpp"

#include <initializer_list>
#include <string>

namespace xd::detail {

enum DtypeSet : uint32_t {
  kFloat = (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3),           // f64 f32 f16 bf16
  kNumeric = kFloat | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7),  // + i8 u8 i32 i64
  kNumericBool = kNumeric | (1u << 8),
  kAll = (1u << kNumDtypes) - 1,
};

inline std::string dtype_set_str(uint32_t set) {
  std::string s;
  for (int d = 0; d < kNumDtypes; ++d)
    if (set & (1u << d)) s += std::string(s.empty() ? "" : ", ") + dtype_name(static_cast<Dtype>(d));
  return s;
}

inline void check_dtype(const char* op, const char* arg, Dtype d, uint32_t set) {
  if ((set & (1u << static_cast<int>(d))) == 0)
    throw DtypeError(std::string(op) + ": argument '" + arg + "' has dtype " + dtype_name(d) + ", but " + op +
                     " takes " + dtype_set_str(set) + (set == kFloat ? " (convert with .to(xd::Dtype::f32))" : ""));
}

inline void check_same_dtype(const char* op, const char* a_name, const TensorImpl& a, const char* b_name,
                             const TensorImpl& b) {
  if (a.dtype != b.dtype)
    throw DtypeError(std::string(op) + ": '" + a_name + "' is " + dtype_name(a.dtype) + " but '" + b_name + "' is " +
                     dtype_name(b.dtype) + "; xdispatch does not promote types implicitly, convert one with .to()");
}

inline void check_same_device(const char* op, const char* a_name, const TensorImpl& a, const char* b_name,
                              const TensorImpl& b) {
  if (a.storage->device != b.storage->device)
    throw DeviceError(std::string(op) + ": '" + a_name + "' is on " + a.device().str() + " but '" + b_name + "' is on " +
                      b.device().str() + "; move one with .to(device)");
}

inline void check_ndim(const char* op, const char* arg, const TensorImpl& t, int ndim) {
  if (t.ndim != ndim)
    throw ShapeError(std::string(op) + ": '" + arg + "' must be " + std::to_string(ndim) + "-d, got " +
                     std::to_string(t.ndim) + "-d " + shape_str(t.sizes, t.ndim));
}

}  // namespace xd::detail
