// What every kernel file needs: access to a call's views and attributes with the checks that
// keep a malformed call an error instead of a crash, and typed registration over dtype lists.
#pragma once

#include "kernels/parallel.hpp"
#include "kernels/strided.hpp"
#include "kernels/types.hpp"

#include <xd/plugin.hpp>
#include <xd/plugin_abi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace xd::cpu {

// The plugin toolbox's checked call accessors and errors (include/xd/plugin.hpp), by their short
// names inside the kernels.
using plugin::check_dtype;
using plugin::find_attrs;
using plugin::input;
using plugin::invalid;
using plugin::need_attrs;
using plugin::numel;
using plugin::optional_input;
using plugin::optional_output;
using plugin::output;

// Runs a kernel body; exceptions become a status plus a message through the host.
template <class F>
xd_status kernel_guard(const xd_kernel_call* call, F&& body) noexcept {
  return plugin::guarded(call->host, std::forward<F>(body));
}

inline char* data(const xd_view& v) { return static_cast<char*>(v.handle) + v.offset; }

// Strides of an absent operand: all zero, so it stays on its (unused) base pointer.
inline const int64_t* zero_strides() {
  static const int64_t zeros[kMaxDims] = {};
  return zeros;
}

// ---------------------------------------------------------------- rows along one dim
// The attribute dim (xd_attrs_dim) of an op whose output has its input's shape (softmax, cumsum),
// checked; the errors name `op`.
inline int checked_row_dim(const xd_kernel_call* c, const xd_view& in, const xd_view& out, const char* op) {
  if (!plugin::same_sizes(out, in.ndim, in.sizes)) invalid(std::string(op) + " output must have the input's shape");
  const int dim = need_attrs<xd_attrs_dim>(c).dim;
  if (dim < 0 || dim >= std::min(in.ndim, kMaxDims))
    invalid(std::string(op) + " dim " + std::to_string(dim) + " out of range");
  return dim;
}

// row(y, x) once per row of `out` and `in` (one shape, elements of T) along `dim`, x and y at the
// row's first element; every other dim is walked, in parallel tasks of at least `grain` rows.
// Along the row the caller steps by the views' strides[dim].
template <class T, class Row>
void for_each_row_along(const xd_view& out, const xd_view& in, int dim, int64_t grain, Row&& row) {
  constexpr int64_t sz = sizeof(T);
  const strided_layout<2> rows(in.ndim, in.sizes, {out.strides, in.strides}, {sz, sz}, uint64_t{1} << dim);
  parallel_for(rows.numel(), grain, [&](int64_t begin, int64_t end) {
    rows.for_each_run({data(out), data(in)}, begin, end,
                      [&](const std::array<char*, 2>& p, int64_t n, const std::array<int64_t, 2>& st) {
                        for (int64_t i = 0; i < n; ++i) row(p[0] + i * st[0], p[1] + i * st[1]);
                      });
  });
}

// ---------------------------------------------------------------- registration
// A kernel_def (plugin.hpp) for K::run<T>, instantiated for every dtype of S: the entry of the
// registration list (kernel_list.cpp) that a kernel file defines beside its kernel. K is a struct
// with `template <class T> static xd_status run(const xd_kernel_call*)`.
namespace typed_detail {
template <class K, DtypeSet S, int D>
constexpr xd_kernel_fn instance() {
  if constexpr (S.contains(D)) {
    return &K::template run<typename dtype_info<static_cast<xd_dtype>(D)>::type>;
  } else {
    return nullptr;
  }
}
template <class K, DtypeSet S>
xd_kernel_fn for_dtype(xd_dtype d) {
  return [&]<int... D>(std::integer_sequence<int, D...>) {
    xd_kernel_fn fn = nullptr;
    ((fn = (d == D ? instance<K, S, D>() : fn)), ...);
    return fn;
  }(std::make_integer_sequence<int, XD_DTYPE_COUNT_V1>{});
}
}  // namespace typed_detail

template <class K, DtypeSet S>
constexpr plugin::kernel_def typed_kernel(xd_op op, const char* name, xd_kernel_check_fn check = nullptr) {
  return plugin::kernel_def{op, name, S, nullptr, &typed_detail::for_dtype<K, S>, check};
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
