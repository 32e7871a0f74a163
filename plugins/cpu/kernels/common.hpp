// What every kernel file needs: access to a call's views and attributes with the checks that
// keep a malformed call an error instead of a crash, and typed registration over dtype lists.
#pragma once

#include "kernels/parallel.hpp"
#include "kernels/strided.hpp"
#include "kernels/types.hpp"

#include <xd/plugin.hpp>
#include <xd/plugin_abi.h>

#include <string>
#include <type_traits>

namespace xd::cpu {

[[noreturn]] inline void invalid(const std::string& message) {
  throw plugin::error(XD_ERR_INVALID_ARGUMENT, "cpu: " + message);
}

// Runs a kernel body; exceptions become a status plus a message through the host.
template <class F>
xd_status kernel_guard(const xd_kernel_call* call, F&& body) noexcept {
  return plugin::guarded(call->host, std::forward<F>(body));
}

inline const xd_view& input(const xd_kernel_call* c, int i) {
  if (i >= c->num_inputs || c->inputs[i].ndim < 0)
    invalid("kernel for op " + std::to_string(c->op) + " needs input " + std::to_string(i));
  return c->inputs[i];
}
inline const xd_view& output(const xd_kernel_call* c, int i) {
  if (i >= c->num_outputs || c->outputs[i].ndim < 0)
    invalid("kernel for op " + std::to_string(c->op) + " needs output " + std::to_string(i));
  return c->outputs[i];
}
// An optional tensor: nullptr when it is absent (ndim == -1) or beyond the count given.
inline const xd_view* optional_input(const xd_kernel_call* c, int i) {
  return i < c->num_inputs && c->inputs[i].ndim >= 0 ? &c->inputs[i] : nullptr;
}
inline const xd_view* optional_output(const xd_kernel_call* c, int i) {
  return i < c->num_outputs && c->outputs[i].ndim >= 0 ? &c->outputs[i] : nullptr;
}

// The attribute struct, or nullptr when the host passed none. A struct shorter than this
// plugin's is rejected rather than read past its end.
template <class A>
const A* find_attrs(const xd_kernel_call* c) {
  if (c->attrs == nullptr) return nullptr;
  const A* a = static_cast<const A*>(c->attrs);
  if (a->struct_size < sizeof(A))
    invalid("attribute struct of op " + std::to_string(c->op) + " is too small (" +
            std::to_string(a->struct_size) + " bytes, expected " + std::to_string(sizeof(A)) + ")");
  return a;
}
template <class A>
const A& need_attrs(const xd_kernel_call* c) {
  const A* a = find_attrs<A>(c);
  if (a == nullptr) invalid("op " + std::to_string(c->op) + " was called without its attribute struct");
  return *a;
}

inline char* data(const xd_view& v) { return static_cast<char*>(v.handle) + v.offset; }

inline int64_t numel(const xd_view& v) {
  int64_t n = 1;
  for (int d = 0; d < v.ndim; ++d) n *= v.sizes[d];
  return n;
}

// Strides of an absent operand: all zero, so it stays on its (unused) base pointer.
inline const int64_t* zero_strides() {
  static const int64_t zeros[kMaxDims] = {};
  return zeros;
}

inline void check_dtype(const xd_view& v, xd_dtype expected, const char* what) {
  if (v.dtype != expected)
    invalid(std::string(what) + " has dtype " + std::to_string(v.dtype) + ", expected " + std::to_string(expected));
}

// ---------------------------------------------------------------- registration over dtype lists
template <xd_dtype... Ds>
struct dtypes {};

using floating_dtypes = dtypes<XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16>;
using numeric_dtypes = dtypes<XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16, XD_DTYPE_I8, XD_DTYPE_U8,
                              XD_DTYPE_I32, XD_DTYPE_I64>;
using numeric_bool_dtypes = dtypes<XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16, XD_DTYPE_I8,
                                   XD_DTYPE_U8, XD_DTYPE_I32, XD_DTYPE_I64, XD_DTYPE_BOOL>;
using all_dtypes = dtypes<XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16, XD_DTYPE_I8, XD_DTYPE_U8,
                          XD_DTYPE_I32, XD_DTYPE_I64, XD_DTYPE_BOOL, XD_DTYPE_F8E4M3FN, XD_DTYPE_F8E5M2>;

// Registers K::run<T> for every dtype in the list. K is a struct with
// `template <class T> static xd_status run(const xd_kernel_call*)`.
template <class K, xd_dtype... Ds>
void add_kernels(plugin::registrar& r, xd_op op, const char* name, dtypes<Ds...>, int32_t priority = 0,
                 xd_kernel_supports_fn supports = nullptr) {
  (r.add(op, Ds, &K::template run<typename dtype_info<Ds>::type>, name, supports, nullptr, priority), ...);
}

// Calls f(std::type_identity<T>{}) with the storage type of a runtime dtype.
template <class F>
decltype(auto) visit_dtype(int32_t dtype, F&& f) {
  switch (dtype) {
    case XD_DTYPE_F64: return f(std::type_identity<double>{});
    case XD_DTYPE_F32: return f(std::type_identity<float>{});
    case XD_DTYPE_F16: return f(std::type_identity<::xd::half>{});
    case XD_DTYPE_BF16: return f(std::type_identity<::xd::bfloat16>{});
    case XD_DTYPE_I8: return f(std::type_identity<int8_t>{});
    case XD_DTYPE_U8: return f(std::type_identity<uint8_t>{});
    case XD_DTYPE_I32: return f(std::type_identity<int32_t>{});
    case XD_DTYPE_I64: return f(std::type_identity<int64_t>{});
    case XD_DTYPE_BOOL: return f(std::type_identity<boolean>{});
    case XD_DTYPE_F8E4M3FN: return f(std::type_identity<::xd::float8_e4m3fn>{});
    case XD_DTYPE_F8E5M2: return f(std::type_identity<::xd::float8_e5m2>{});
    default: invalid("unknown dtype " + std::to_string(dtype));
  }
}

// Like visit_dtype, restricted to the floating dtypes (f64, f32, f16, bf16).
template <class F>
decltype(auto) visit_floating(int32_t dtype, F&& f) {
  switch (dtype) {
    case XD_DTYPE_F64: return f(std::type_identity<double>{});
    case XD_DTYPE_F32: return f(std::type_identity<float>{});
    case XD_DTYPE_F16: return f(std::type_identity<::xd::half>{});
    case XD_DTYPE_BF16: return f(std::type_identity<::xd::bfloat16>{});
    default: invalid("expected a floating dtype, got " + std::to_string(dtype));
  }
}

}  // namespace xd::cpu
