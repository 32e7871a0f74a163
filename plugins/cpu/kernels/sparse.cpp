// Sparse CSR kernels (plugin_abi.h: XD_OP_CSR_ADDMM, XD_OP_CSR_TO_DENSE), in the batched form the
// host always passes. A real CSR product, never a densified one: each output row walks its row's
// entries in order and adds value * (row col of b) into an N-wide accumulator in float (double
// for f64), then applies out = alpha*acc + beta*input and rounds once. The order of the sum is
// the row's entry order whatever the thread count. OpenMP splits the B*M rows.
#include "kernels/common.hpp"

#include <algorithm>
#include <vector>

namespace xd::cpu {

namespace {

struct csr_views {
  int64_t batch = 0, m = 0, nnz = 0;
  const char* crow = nullptr;
  const char* col = nullptr;
  const char* values = nullptr;
  int32_t index_dtype = XD_DTYPE_I64;
};

// The three components, contiguous [B, M+1], [B, nnz], [B, nnz] (the host guarantees it).
csr_views csr_of(const xd_kernel_call* c, int first, int32_t value_dtype) {
  const xd_view& crow = input(c, first);
  const xd_view& col = input(c, first + 1);
  const xd_view& val = input(c, first + 2);
  if (crow.ndim != 2 || col.ndim != 2 || val.ndim != 2) invalid("CSR components must arrive batched (rank 2)");
  if (crow.dtype != XD_DTYPE_I32 && crow.dtype != XD_DTYPE_I64) invalid("CSR indices must be i32 or i64");
  if (col.dtype != crow.dtype) invalid("CSR crow and col indices must share a dtype");
  check_dtype(val, static_cast<xd_dtype>(value_dtype), "CSR values");
  csr_views v;
  v.batch = crow.sizes[0];
  v.m = crow.sizes[1] - 1;
  v.nnz = col.sizes[1];
  if (v.m < 0 || col.sizes[0] != v.batch || val.sizes[0] != v.batch || val.sizes[1] != v.nnz)
    invalid("CSR component shapes do not agree");
  // Strides of size-1 and empty dims are whatever the allocator chose; only the others matter.
  for (const xd_view* x : {&crow, &col, &val})
    if ((x->sizes[1] > 1 && x->strides[1] != 1) || (x->sizes[0] > 1 && x->sizes[1] > 0 && x->strides[0] != x->sizes[1]))
      invalid("CSR components must be contiguous");
  v.crow = data(crow);
  v.col = data(col);
  v.values = data(val);
  v.index_dtype = crow.dtype;
  return v;
}

template <class I>
struct index_reader {
  const I* crow;
  const I* col;
  int64_t row_stride, nz_stride;
  int64_t start(int64_t b, int64_t i) const { return static_cast<int64_t>(crow[b * row_stride + i]); }
  int64_t column(int64_t b, int64_t p) const { return static_cast<int64_t>(col[b * nz_stride + p]); }
};

template <class T, class I>
void csr_addmm(const xd_kernel_call* c, const csr_views& s) {
  using C = compute_t<T>;
  constexpr int64_t sz = sizeof(T);
  const xd_view* in = optional_input(c, 0);
  const xd_view& b = input(c, 4);
  const xd_view& out = output(c, 0);
  const auto& blas = need_attrs<xd_attrs_blas>(c);
  if (b.ndim != 3 || out.ndim != 3) invalid("csr_addmm: b and out must arrive batched (rank 3)");
  const int64_t n = out.sizes[2], k = b.sizes[1];
  if (out.sizes[0] != s.batch || out.sizes[1] != s.m || b.sizes[0] != s.batch || b.sizes[2] != n)
    invalid("csr_addmm: shapes do not agree");
  if (b.dtype != out.dtype || (in != nullptr && (in->dtype != out.dtype || in->ndim != 3)))
    invalid("csr_addmm: operands and output must share a dtype");
  (void)k;
  const index_reader<I> idx{reinterpret_cast<const I*>(s.crow), reinterpret_cast<const I*>(s.col), s.m + 1, s.nnz};
  const T* vals = reinterpret_cast<const T*>(s.values);
  char* bp = data(b);
  char* ip = in != nullptr ? data(*in) : nullptr;
  char* op = data(out);
  const C alpha = static_cast<C>(blas.alpha), beta = static_cast<C>(blas.beta);
  const bool b_dense_row = std::is_same_v<T, C> && b.strides[2] == 1;
  const int64_t rows = s.batch * s.m;
  const int64_t per_row = std::max<int64_t>(1, s.m > 0 ? (s.nnz / s.m + 1) * n : n);
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / per_row);
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<C> acc(static_cast<size_t>(n));
    for (int64_t r = begin; r < end; ++r) {
      const int64_t bi = r / s.m, i = r % s.m;
      std::fill(acc.begin(), acc.end(), C{0});
      const int64_t p1 = idx.start(bi, i + 1);
      for (int64_t p = idx.start(bi, i); p < p1; ++p) {
        const C v = load(vals[bi * s.nnz + p]);
        const int64_t col = idx.column(bi, p);
        const int64_t base = bi * b.strides[0] + col * b.strides[1];
        if (b_dense_row) {
          const C* brow = reinterpret_cast<const C*>(bp) + base;
          for (int64_t j = 0; j < n; ++j) acc[static_cast<size_t>(j)] += v * brow[j];
        } else {
          for (int64_t j = 0; j < n; ++j)
            acc[static_cast<size_t>(j)] += v * load(at<const T>(bp, (base + j * b.strides[2]) * sz));
        }
      }
      for (int64_t j = 0; j < n; ++j) {
        C x = alpha * acc[static_cast<size_t>(j)];
        if (ip != nullptr)
          x += beta * load(at<const T>(ip, (bi * in->strides[0] + i * in->strides[1] + j * in->strides[2]) * sz));
        at<T>(op, (bi * out.strides[0] + i * out.strides[1] + j * out.strides[2]) * sz) = cast<T>(x);
      }
    }
  });
}

template <class T, class I>
void csr_to_dense(const xd_kernel_call* c, const csr_views& s) {
  constexpr int64_t sz = sizeof(T);
  const xd_view& out = output(c, 0);
  if (out.ndim != 3 || out.sizes[0] != s.batch || out.sizes[1] != s.m) invalid("csr_to_dense: output shape");
  const int64_t k = out.sizes[2];
  const index_reader<I> idx{reinterpret_cast<const I*>(s.crow), reinterpret_cast<const I*>(s.col), s.m + 1, s.nnz};
  const T* vals = reinterpret_cast<const T*>(s.values);
  char* op = data(out);
  parallel_for(s.batch * s.m, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(k, 1)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t bi = r / s.m, i = r % s.m;
                   const int64_t row = bi * out.strides[0] + i * out.strides[1];
                   for (int64_t j = 0; j < k; ++j)
                     at<T>(op, (row + j * out.strides[2]) * sz) = cast<T>(compute_t<T>{0});
                   // Columns of a row are distinct (checked by the host), so each element is written once.
                   for (int64_t p = idx.start(bi, i); p < idx.start(bi, i + 1); ++p)
                     at<T>(op, (row + idx.column(bi, p) * out.strides[2]) * sz) = vals[bi * s.nnz + p];
                 }
               });
}

struct csr_addmm_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const csr_views s = csr_of(c, 1, output(c, 0).dtype);
      if (s.index_dtype == XD_DTYPE_I32)
        csr_addmm<T, int32_t>(c, s);
      else
        csr_addmm<T, int64_t>(c, s);
    });
  }
};

struct csr_to_dense_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const csr_views s = csr_of(c, 0, output(c, 0).dtype);
      if (s.index_dtype == XD_DTYPE_I32)
        csr_to_dense<T, int32_t>(c, s);
      else
        csr_to_dense<T, int64_t>(c, s);
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_csr_addmm = typed_kernel<csr_addmm_kernel, dtypes::compute_floating>(XD_OP_CSR_ADDMM, "csr_addmm");
extern const plugin::kernel_def def_csr_to_dense = typed_kernel<csr_to_dense_kernel, dtypes::compute_floating>(XD_OP_CSR_TO_DENSE, "csr_to_dense");

}  // namespace xd::cpu
