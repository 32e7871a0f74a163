// CUMSUM and TOPK along one dim, the reference semantics (include/xd/plugin_abi.h gives the
// contracts). Rows are every dim but `dim`, walked as softmax walks them.
#include "kernels/common.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace xd::cpu {
namespace {

// CUMSUM: a running sum in the compute type (float for f16/bf16, the dtype itself for f32/f64,
// int64 wrapping for integers), in index order, each output rounded once from it.
struct cumsum_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      using C = compute_t<T>;
      const xd_view& in = input(c, 0);
      const xd_view& out = output(c, 0);
      check_dtype(out, in.dtype, "cumsum output");
      const int dim = checked_row_dim(c, in, out, "cumsum");
      const int64_t len = in.sizes[dim];
      const int64_t step_in = in.strides[dim] * static_cast<int64_t>(sizeof(T));
      const int64_t step_out = out.strides[dim] * static_cast<int64_t>(sizeof(T));
      if (len == 0) return;
      auto row = [&](char* y, char* x) {
        C acc = 0;
        for (int64_t j = 0; j < len; ++j) {
          const C v = load(at<const T>(x, j * step_in));
          if constexpr (std::is_integral_v<C>)
            acc = wrap_add(acc, v);
          else
            acc += v;
          at<T>(y, j * step_out) = cast<T>(acc);
        }
      };
      for_each_row_along<T>(out, in, dim, std::max<int64_t>(1, kElementGrain / len), row);
    });
  }
};

// TOPK: the k first elements of the row in the order "comes before": for largest, NaN first,
// then larger values; for smallest, smaller values, NaN last; equal values (-0 == +0, NaN ==
// NaN) by smaller index. That order is total, so the result is one (the XPU kernels give the
// same). The k are always written sorted (sorted = 0 allows any order).
struct topk_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      using C = compute_t<T>;
      const xd_view& in = input(c, 0);
      const xd_view& values = output(c, 0);
      const xd_view& indices = output(c, 1);
      check_dtype(values, in.dtype, "topk values");
      check_dtype(indices, XD_DTYPE_I64, "topk indices");
      const xd_attrs_topk& attrs = need_attrs<xd_attrs_topk>(c);
      const int dim = attrs.dim;
      if (in.ndim < 1 || dim < 0 || dim >= std::min(in.ndim, kMaxDims)) invalid("topk: malformed views or dim");
      const int64_t len = in.sizes[dim], k = attrs.k;
      if (k < 0 || k > len) invalid("topk: k " + std::to_string(k) + " out of range");
      for (const xd_view* v : {&values, &indices})
        for (int d = 0; d < in.ndim; ++d)
          if (v->ndim != in.ndim || v->sizes[d] != (d == dim ? k : in.sizes[d])) invalid("topk: output shape");
      const int64_t step_in = in.strides[dim] * static_cast<int64_t>(sizeof(T));
      const int64_t step_v = values.strides[dim] * static_cast<int64_t>(sizeof(T));
      const int64_t step_i = indices.strides[dim] * 8;
      const strided_layout<3> rows(in.ndim, in.sizes, {values.strides, indices.strides, in.strides},
                                   {static_cast<int64_t>(sizeof(T)), 8, static_cast<int64_t>(sizeof(T))},
                                   uint64_t{1} << dim);
      if (k == 0) return;
      const bool largest = attrs.largest != 0;
      auto row = [&](char* pv, char* pi, char* x, std::vector<int64_t>& order) {
        auto value = [&](int64_t j) { return load(at<const T>(x, j * step_in)); };
        auto before = [&](int64_t i, int64_t j) {
          const C a = value(i), b = value(j);
          if (is_nan(a) || is_nan(b)) {
            if (is_nan(a) && is_nan(b)) return i < j;
            return largest ? is_nan(a) : is_nan(b);
          }
          if (a != b) return largest ? a > b : a < b;
          return i < j;
        };
        order.resize(static_cast<size_t>(len));
        for (int64_t j = 0; j < len; ++j) order[static_cast<size_t>(j)] = j;
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        for (int64_t r = 0; r < k; ++r) {
          const int64_t j = order[static_cast<size_t>(r)];
          std::memcpy(pv + r * step_v, x + j * step_in, sizeof(T));  // the element itself, bit for bit
          std::memcpy(pi + r * step_i, &j, 8);
        }
      };
      const int64_t grain = std::max<int64_t>(1, kElementGrain / 16 / len);
      parallel_for(rows.numel(), grain, [&](int64_t begin, int64_t end) {
        std::vector<int64_t> order;
        rows.for_each_run({data(values), data(indices), data(in)}, begin, end,
                          [&](const std::array<char*, 3>& p, int64_t n, const std::array<int64_t, 3>& s) {
                            for (int64_t i = 0; i < n; ++i)
                              row(p[0] + i * s[0], p[1] + i * s[1], p[2] + i * s[2], order);
                          });
      });
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_cumsum = typed_kernel<cumsum_kernel, dtypes::numeric>(XD_OP_CUMSUM, "cumsum");
extern const plugin::kernel_def def_topk = typed_kernel<topk_kernel, dtypes::numeric>(XD_OP_TOPK, "topk");

}  // namespace xd::cpu
