#include "sparse.hpp"

#include "launchers.hpp"
#include "layout.hpp"

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

void check_contiguous_rows(const xd_view& v, const char* what) {
  if (v.ndim != 2) plugin::invalid(std::string(what) + " must arrive batched (rank 2)");
  // Strides of size-1 and empty dims are whatever the allocator chose; only the others matter.
  if ((v.sizes[1] > 1 && v.strides[1] != 1) || (v.sizes[0] > 1 && v.sizes[1] > 0 && v.strides[0] != v.sizes[1]))
    plugin::invalid(std::string(what) + " must be contiguous");
}

}  // namespace

csr_call make_csr(const xd_kernel_call* c, int64_t max_group) {
  const bool mm = c->op == XD_OP_CSR_ADDMM;
  if (!mm && c->op != XD_OP_CSR_TO_DENSE) plugin::invalid("not a CSR op: " + std::to_string(c->op));
  const int first = mm ? 1 : 0;
  csr_call k;
  k.crow = &plugin::input(c, first);
  k.col = &plugin::input(c, first + 1);
  k.values = &plugin::input(c, first + 2);
  k.out = &plugin::output(c, 0);
  check_contiguous_rows(*k.crow, "CSR crow_indices");
  check_contiguous_rows(*k.col, "CSR col_indices");
  check_contiguous_rows(*k.values, "CSR values");
  if (k.crow->dtype != XD_DTYPE_I32 && k.crow->dtype != XD_DTYPE_I64)
    plugin::invalid("CSR indices must be i32 or i64");
  if (k.col->dtype != k.crow->dtype) plugin::invalid("CSR crow and col indices must share a dtype");
  if (k.values->dtype != k.out->dtype) plugin::invalid("CSR values and the output must share a dtype");
  if (k.out->ndim != 3) plugin::invalid("CSR output must arrive batched (rank 3)");
  csr_args& a = k.args;
  a.batch = k.crow->sizes[0];
  a.m = k.crow->sizes[1] - 1;
  a.nnz = k.col->sizes[1];
  a.n = k.out->sizes[2];
  if (k.col->sizes[0] != a.batch || k.values->sizes[0] != a.batch || k.values->sizes[1] != a.nnz ||
      k.out->sizes[0] != a.batch || k.out->sizes[1] != a.m)
    plugin::invalid("CSR component and output shapes do not agree");
  a.crow_off = element_offset(*k.crow);
  a.col_off = element_offset(*k.col);
  a.val_off = element_offset(*k.values);
  a.idx64 = k.crow->dtype == XD_DTYPE_I64 ? 1 : 0;
  a.c_off = element_offset(*k.out);
  a.c_b = k.out->strides[0], a.c_m = k.out->strides[1], a.c_n = k.out->strides[2];
  a.alpha_d = bits_of(1.0), a.alpha_f = 1.0f;
  // With no entries the component buffers may be empty allocations; the kernels never read them,
  // but an argument still needs a valid buffer: crow's (M + 1 >= 1 entries) stands in.
  if (a.nnz == 0) k.col = k.values = k.crow;
  if (mm) {
    const auto* blas = static_cast<const xd_attrs_blas*>(c->attrs);
    if (blas == nullptr || blas->struct_size < sizeof(xd_attrs_blas)) plugin::invalid("csr_addmm needs xd_attrs_blas");
    k.b = &plugin::input(c, 4);
    if (k.b->ndim != 3 || k.b->sizes[0] != a.batch || k.b->sizes[2] != a.n || k.b->dtype != k.out->dtype)
      plugin::invalid("csr_addmm: b must be [B, K, N] in the output's dtype");
    a.b_off = element_offset(*k.b);
    a.b_b = k.b->strides[0], a.b_k = k.b->strides[1], a.b_n = k.b->strides[2];
    if (k.b->sizes[1] == 0) k.b = k.crow;  // K == 0: no entries, b is never read
    a.alpha_d = bits_of(blas->alpha), a.alpha_f = static_cast<float>(blas->alpha);
    a.beta_d = bits_of(blas->beta), a.beta_f = static_cast<float>(blas->beta);
    const xd_view* in = plugin::optional_input(c, 0);
    if (in != nullptr && blas->beta != 0.0) {
      if (in->ndim != 3 || in->dtype != k.out->dtype || in->sizes[0] != a.batch || in->sizes[1] != a.m ||
          in->sizes[2] != a.n)
        plugin::invalid("csr_addmm: input must arrive broadcast to the output's shape, in its dtype");
      k.input = in;
      a.has_input = 1;
      a.i_off = element_offset(*in);
      a.i_b = in->strides[0], a.i_m = in->strides[1], a.i_n = in->strides[2];
    }
    k.group = group_for((a.n + kCsrCols - 1) / kCsrCols, 32, std::min(max_group, kCsrMaxGroup));
    k.col_blocks = (a.n + k.group * kCsrCols - 1) / (k.group * kCsrCols);
    if (k.col_blocks > 65535) plugin::invalid("csr_addmm: N = " + std::to_string(a.n) + " is too wide for one grid");
  } else {
    k.group = group_for(a.n, 32, std::min(max_group, kCsrMaxGroup));
  }
  if (k.input == nullptr) k.input = k.out;  // an unused argument still needs a buffer
  return k;
}

xd_status run_csr(const xd_kernel_call* c) {
  return guard(c, [&] {
    const device_info& dev = device_of(c);
    const csr_call k = make_csr(c, dev.max_work_group);
    const bool mm = c->op == XD_OP_CSR_ADDMM;
    const int64_t rows = k.args.batch * k.args.m;
    const int64_t local[3] = {k.group, 1, 1};
    for (int64_t row0 = 0; row0 < rows; row0 += kCsrRowsPerLaunch) {
      const int64_t groups[3] = {std::min(kCsrRowsPerLaunch, rows - row0), k.col_blocks, 1};
      launch l(c, {"sparse", k.out->dtype}, mm ? "xd_csr_mm" : "xd_csr_to_dense");
      l.buffer(*k.out).buffer(*k.crow).buffer(*k.col).buffer(*k.values);
      if (mm) l.buffer(*k.b).buffer(*k.input);
      l.value(k.args).value(row0);
      l.run(grid::of_groups(2, local, groups));
    }
  });
}

}  // namespace xd::xpu
