// INDEX_SELECT: out[.., i, ..] = a[.., index[i], ..] along one dim, any dtype, any strides of
// all three views. A bitwise move of sizeof(T) bytes, so NaN payloads and fp8 bits survive. The
// host has checked every index; one outside [0, size(dim)) (a direct plugin call) writes zero
// bytes instead of reading outside a, as plugin_abi.h requires.
#include "kernels/common.hpp"

#include <cstring>

namespace xd::cpu {
namespace {

struct index_select_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const xd_view& a = input(c, 0);
      const xd_view& index = input(c, 1);
      const xd_view& out = output(c, 0);
      check_dtype(index, XD_DTYPE_I64, "index_select index");
      const int dim = need_attrs<xd_attrs_dim>(c).dim;
      if (a.ndim < 1 || a.ndim > kMaxDims || out.ndim != a.ndim || dim < 0 || dim >= a.ndim || index.ndim != 1)
        invalid("index_select: malformed views");
      for (int d = 0; d < a.ndim; ++d)
        if (out.sizes[d] != (d == dim ? index.sizes[0] : a.sizes[d])) invalid("index_select: output shape");
      const int64_t n = numel(out);
      const int64_t limit = a.sizes[dim];
      const char* pa = data(a);
      const char* pi = data(index);
      char* po = data(out);
      parallel_for(n, kElementGrain, [&](int64_t begin, int64_t end) {
        for (int64_t lin = begin; lin < end; ++lin) {
          // Row-major position of `lin` in out, turned into element offsets of out and of a.
          int64_t rest = lin, off_out = 0, off_a = 0;
          bool ok = true;
          for (int d = out.ndim - 1; d >= 0; --d) {
            const int64_t i = rest % out.sizes[d];
            rest /= out.sizes[d];
            off_out += i * out.strides[d];
            if (d == dim) {
              int64_t j;
              std::memcpy(&j, pi + i * index.strides[0] * 8, 8);
              ok = j >= 0 && j < limit;
              off_a += (ok ? j : 0) * a.strides[d];
            } else {
              off_a += i * a.strides[d];
            }
          }
          char* dst = po + off_out * static_cast<int64_t>(sizeof(T));
          if (ok)
            std::memcpy(dst, pa + off_a * static_cast<int64_t>(sizeof(T)), sizeof(T));
          else
            std::memset(dst, 0, sizeof(T));
        }
      });
    });
  }
};

// GATHER: out[p] = a[p with p[dim] = index[p]]; out and index share a shape, no larger than a's
// outside dim. The same bitwise move and the same zero for an index the host did not check.
struct gather_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const xd_view& a = input(c, 0);
      const xd_view& index = input(c, 1);
      const xd_view& out = output(c, 0);
      check_dtype(index, XD_DTYPE_I64, "gather index");
      const int dim = need_attrs<xd_attrs_dim>(c).dim;
      if (a.ndim < 1 || a.ndim > kMaxDims || out.ndim != a.ndim || index.ndim != a.ndim || dim < 0 || dim >= a.ndim)
        invalid("gather: malformed views");
      for (int d = 0; d < a.ndim; ++d)
        if (out.sizes[d] != index.sizes[d] || (d != dim && out.sizes[d] > a.sizes[d])) invalid("gather: output shape");
      const int64_t n = numel(out);
      const int64_t limit = a.sizes[dim];
      const char* pa = data(a);
      const char* pi = data(index);
      char* po = data(out);
      parallel_for(n, kElementGrain, [&](int64_t begin, int64_t end) {
        for (int64_t lin = begin; lin < end; ++lin) {
          int64_t rest = lin, off_out = 0, off_index = 0, off_a = 0;
          for (int d = out.ndim - 1; d >= 0; --d) {
            const int64_t i = rest % out.sizes[d];
            rest /= out.sizes[d];
            off_out += i * out.strides[d];
            off_index += i * index.strides[d];
            if (d != dim) off_a += i * a.strides[d];
          }
          int64_t j;
          std::memcpy(&j, pi + off_index * 8, 8);
          char* dst = po + off_out * static_cast<int64_t>(sizeof(T));
          if (j >= 0 && j < limit)
            std::memcpy(dst, pa + (off_a + j * a.strides[dim]) * static_cast<int64_t>(sizeof(T)), sizeof(T));
          else
            std::memset(dst, 0, sizeof(T));
        }
      });
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_index_select =
    typed_kernel<index_select_kernel, dtypes::all>(XD_OP_INDEX_SELECT, "index_select");
extern const plugin::kernel_def def_gather = typed_kernel<gather_kernel, dtypes::all>(XD_OP_GATHER, "gather");

}  // namespace xd::cpu
