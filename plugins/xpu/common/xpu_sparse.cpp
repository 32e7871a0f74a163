#include "xpu_sparse.hpp"

#include "xpu_call.hpp"
#include "xpu_dtype.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace xd::xpu {

namespace {

int64_t bits_of(double v) {
  int64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The smallest power of two >= want, within [lo, hi] (hi itself rounded down to a power of two).
int64_t group_for(int64_t want, int64_t lo, int64_t hi) {
  int64_t top = 1;
  while (top * 2 <= hi) top *= 2;
  int64_t g = 1;
  while (g < want && g < top) g *= 2;
  return std::min(std::max(g, std::min(lo, top)), top);
}

void check_contiguous_rows(const xd_view& v, const char* what, const char* backend) {
  if (v.ndim != 2) invalid(backend, std::string(what) + " must arrive batched (rank 2)");
  // Strides of size-1 and empty dims are whatever the allocator chose; only the others matter.
  if ((v.sizes[1] > 1 && v.strides[1] != 1) || (v.sizes[0] > 1 && v.sizes[1] > 0 && v.strides[0] != v.sizes[1]))
    invalid(backend, std::string(what) + " must be contiguous");
}

}  // namespace

csr_call make_csr(const xd_kernel_call* c, const char* backend, int64_t max_group) {
  const bool mm = c->op == XD_OP_CSR_ADDMM;
  if (!mm && c->op != XD_OP_CSR_TO_DENSE) invalid(backend, "not a CSR op: " + std::to_string(c->op));
  const int first = mm ? 1 : 0;
  csr_call k;
  k.crow = &input(c, first, backend);
  k.col = &input(c, first + 1, backend);
  k.values = &input(c, first + 2, backend);
  k.out = &output(c, 0, backend);
  check_contiguous_rows(*k.crow, "CSR crow_indices", backend);
  check_contiguous_rows(*k.col, "CSR col_indices", backend);
  check_contiguous_rows(*k.values, "CSR values", backend);
  if (k.crow->dtype != XD_DTYPE_I32 && k.crow->dtype != XD_DTYPE_I64)
    invalid(backend, "CSR indices must be i32 or i64");
  if (k.col->dtype != k.crow->dtype) invalid(backend, "CSR crow and col indices must share a dtype");
  if (k.values->dtype != k.out->dtype) invalid(backend, "CSR values and the output must share a dtype");
  if (k.out->ndim != 3) invalid(backend, "CSR output must arrive batched (rank 3)");
  csr_args& a = k.args;
  a.batch = k.crow->sizes[0];
  a.m = k.crow->sizes[1] - 1;
  a.nnz = k.col->sizes[1];
  a.n = k.out->sizes[2];
  if (k.col->sizes[0] != a.batch || k.values->sizes[0] != a.batch || k.values->sizes[1] != a.nnz ||
      k.out->sizes[0] != a.batch || k.out->sizes[1] != a.m)
    invalid(backend, "CSR component and output shapes do not agree");
  a.crow_off = element_offset(*k.crow, backend);
  a.col_off = element_offset(*k.col, backend);
  a.val_off = element_offset(*k.values, backend);
  a.idx64 = k.crow->dtype == XD_DTYPE_I64 ? 1 : 0;
  a.c_off = element_offset(*k.out, backend);
  a.c_b = k.out->strides[0], a.c_m = k.out->strides[1], a.c_n = k.out->strides[2];
  a.alpha_d = bits_of(1.0), a.alpha_f = 1.0f;
  // With no entries the component buffers may be empty allocations; the kernels never read them,
  // but an argument still needs a valid buffer: crow's (M + 1 >= 1 entries) stands in.
  if (a.nnz == 0) k.col = k.values = k.crow;
  if (mm) {
    const auto* blas = static_cast<const xd_attrs_blas*>(c->attrs);
    if (blas == nullptr || blas->struct_size < sizeof(xd_attrs_blas)) invalid(backend, "csr_addmm needs xd_attrs_blas");
    k.b = &input(c, 4, backend);
    if (k.b->ndim != 3 || k.b->sizes[0] != a.batch || k.b->sizes[2] != a.n || k.b->dtype != k.out->dtype)
      invalid(backend, "csr_addmm: b must be [B, K, N] in the output's dtype");
    a.b_off = element_offset(*k.b, backend);
    a.b_b = k.b->strides[0], a.b_k = k.b->strides[1], a.b_n = k.b->strides[2];
    if (k.b->sizes[1] == 0) k.b = k.crow;  // K == 0: no entries, b is never read
    a.alpha_d = bits_of(blas->alpha), a.alpha_f = static_cast<float>(blas->alpha);
    a.beta_d = bits_of(blas->beta), a.beta_f = static_cast<float>(blas->beta);
    const xd_view* in = optional_input(c, 0);
    if (in != nullptr && blas->beta != 0.0) {
      if (in->ndim != 3 || in->dtype != k.out->dtype || in->sizes[0] != a.batch || in->sizes[1] != a.m ||
          in->sizes[2] != a.n)
        invalid(backend, "csr_addmm: input must arrive broadcast to the output's shape, in its dtype");
      k.input = in;
      a.has_input = 1;
      a.i_off = element_offset(*in, backend);
      a.i_b = in->strides[0], a.i_m = in->strides[1], a.i_n = in->strides[2];
    }
    k.group = group_for((a.n + kCsrCols - 1) / kCsrCols, 32, std::min(max_group, kCsrMaxGroup));
    k.col_blocks = (a.n + k.group * kCsrCols - 1) / (k.group * kCsrCols);
    if (k.col_blocks > 65535) invalid(backend, "csr_addmm: N = " + std::to_string(a.n) + " is too wide for one grid");
  } else {
    k.group = group_for(a.n, 32, std::min(max_group, kCsrMaxGroup));
  }
  if (k.input == nullptr) k.input = k.out;  // an unused argument still needs a buffer
  return k;
}

}  // namespace xd::xpu
