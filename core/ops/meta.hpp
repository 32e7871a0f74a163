// Checks shared by the op meta functions. Each throws the typed error with a message that names
// the op, the argument, what was expected and what was given.
#pragma once

#include <xd/dtype_set.hpp>
#include <xd/error.hpp>
#include <xd/tensor.hpp>

#include "dtype/dtype_check.hpp"
#include "tensor/shape.hpp"
#include "tensor/tensor_impl.hpp"

#include <initializer_list>
#include <string>

namespace xd::detail {

// The named sets of include/xd/dtype_set.hpp, under the short names the meta functions use.
inline constexpr DtypeSet kFloat = dtypes::compute_floating;  // f64 f32 f16 bf16
inline constexpr DtypeSet kNumeric = dtypes::numeric;         // + i8 u8 i32 i64
inline constexpr DtypeSet kNumericBool = dtypes::numeric_bool;
inline constexpr DtypeSet kAll = dtypes::all;

inline std::string dtype_set_str(DtypeSet set) {
  std::string s;
  set.for_each([&](xd_dtype d) { s += std::string(s.empty() ? "" : ", ") + dtype_name(static_cast<Dtype>(d)); });
  return s;
}

inline void check_dtype(const char* op, const char* arg, Dtype d, DtypeSet set) {
  check_dtype_value(d, op);
  if (!set.contains(d))
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
