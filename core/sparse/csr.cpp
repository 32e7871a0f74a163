// SparseCsr: creation from components (with the invariant checks), from dense, and to dense.
#include <xd/error.hpp>
#include <xd/sparse.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"
#include "sparse/csr_args.hpp"

#include <algorithm>
#include <cstdint>

namespace xd {

using namespace detail;

struct SparseCsr::Impl {
  Tensor crow, col, values;
  int64_t sizes[3] = {};
  int ndim = 2;
  int64_t nnz = 0;
};

namespace {

constexpr const char* kOp = "sparse_csr_tensor";

[[noreturn]] void shape_error(const std::string& what) { throw ShapeError(std::string(kOp) + ": " + what); }

// The checks that need no index values: sizes, dtypes, devices and component shapes.
void check_components(const TensorImpl& crow, const TensorImpl& col, const TensorImpl& values, IntList size) {
  if (size.size() != 2 && size.size() != 3)
    shape_error("size must be [M, K] or [B, M, K], got " + shape_str(size.data(), static_cast<int>(size.size())));
  for (int64_t s : size)
    if (s < 0) shape_error("size " + shape_str(size.data(), static_cast<int>(size.size())) + " has a negative entry");
  check_same_device(kOp, "crow_indices", crow, "col_indices", col);
  check_same_device(kOp, "crow_indices", crow, "values", values);
  if (crow.dtype != Dtype::i32 && crow.dtype != Dtype::i64)
    throw DtypeError(std::string(kOp) + ": 'crow_indices' has dtype " + dtype_name(crow.dtype) +
                     ", but CSR indices are i32 or i64; convert with .to(xd::Dtype::i64)");
  if (col.dtype != crow.dtype)
    throw DtypeError(std::string(kOp) + ": 'crow_indices' is " + dtype_name(crow.dtype) + " but 'col_indices' is " +
                     dtype_name(col.dtype) + "; both index tensors must have the same dtype (i32 or i64)");
  check_dtype(kOp, "values", values.dtype, kFloat);
  const int batch_dims = static_cast<int>(size.size()) - 2;
  const int want = batch_dims + 1;
  check_ndim(kOp, "crow_indices", crow, want);
  check_ndim(kOp, "col_indices", col, want);
  check_ndim(kOp, "values", values, want);
  const int64_t m = size[static_cast<size_t>(batch_dims)];
  if (crow.sizes[batch_dims] != m + 1)
    shape_error("'crow_indices' must have M + 1 = " + std::to_string(m + 1) + " entries per batch for size " +
                shape_str(size.data(), static_cast<int>(size.size())) + ", got " + shape_str(crow.sizes, crow.ndim));
  if (col.sizes[batch_dims] != values.sizes[batch_dims])
    shape_error("'col_indices' " + shape_str(col.sizes, col.ndim) + " and 'values' " +
                shape_str(values.sizes, values.ndim) + " must hold the same number of entries (nnz)");
  if (batch_dims == 1) {
    const int64_t b = size[0];
    if (crow.sizes[0] != b || col.sizes[0] != b || values.sizes[0] != b)
      shape_error("batched CSR of size " + shape_str(size.data(), 3) + " needs " + std::to_string(b) +
                  " batches in every component, got crow_indices " + shape_str(crow.sizes, crow.ndim) +
                  ", col_indices " + shape_str(col.sizes, col.ndim) + ", values " +
                  shape_str(values.sizes, values.ndim));
  }
}

// The invariants of the index values, on a host copy.
void check_indices(const Tensor& crow, const Tensor& col, int64_t batches, int64_t m, int64_t k, int64_t nnz) {
  const std::vector<int64_t> cr = crow.to_vector<int64_t>();
  const std::vector<int64_t> cc = col.to_vector<int64_t>();
  for (int64_t b = 0; b < batches; ++b) {
    const std::string where = batches > 1 || crow.dim() == 2 ? " of batch " + std::to_string(b) : "";
    const int64_t* r = cr.data() + b * (m + 1);
    const int64_t* c = cc.data() + b * nnz;
    if (r[0] != 0)
      throw ValueError(std::string(kOp) + ": crow_indices" + where + " must start at 0, got " + std::to_string(r[0]));
    for (int64_t i = 0; i < m; ++i) {
      if (r[i + 1] < r[i])
        throw ValueError(std::string(kOp) + ": crow_indices" + where + " must be non-decreasing, but entry " +
                         std::to_string(i + 1) + " (" + std::to_string(r[i + 1]) + ") is less than entry " +
                         std::to_string(i) + " (" + std::to_string(r[i]) + ")");
    }
    if (r[m] != nnz)
      throw ValueError(std::string(kOp) + ": the last crow_indices entry" + where + " must equal nnz = " +
                       std::to_string(nnz) + " (the length of col_indices and values), got " + std::to_string(r[m]));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = r[i]; p < r[i + 1]; ++p) {
        if (c[p] < 0 || c[p] >= k)
          throw IndexError(std::string(kOp) + ": col_indices" + where + " entry " + std::to_string(p) + " (row " +
                           std::to_string(i) + ") is " + std::to_string(c[p]) + ", outside [0, K) = [0, " +
                           std::to_string(k) + ")");
        if (p > r[i] && c[p] <= c[p - 1])
          throw ValueError(std::string(kOp) + ": the columns of row " + std::to_string(i) + where +
                           " must be sorted and distinct, but entry " + std::to_string(p) + " (" +
                           std::to_string(c[p]) + ") follows " + std::to_string(c[p - 1]) +
                           "; sort each row's columns and sum repeated entries");
      }
    }
  }
}

}  // namespace

SparseCsr::SparseCsr(const Tensor& crow_indices, const Tensor& col_indices, const Tensor& values, IntList size) {
  const TensorImpl& cr = checked_impl(crow_indices, kOp, "crow_indices");
  const TensorImpl& co = checked_impl(col_indices, kOp, "col_indices");
  const TensorImpl& va = checked_impl(values, kOp, "values");
  check_components(cr, co, va, size);
  auto fresh = std::make_shared<Impl>();
  fresh->ndim = static_cast<int>(size.size());
  for (int i = 0; i < fresh->ndim; ++i) fresh->sizes[i] = size[static_cast<size_t>(i)];
  fresh->nnz = col_indices.size(-1);
  // Contiguous components: the kernels index them as dense arrays.
  fresh->crow = crow_indices.contiguous();
  fresh->col = col_indices.contiguous();
  fresh->values = values.contiguous();
  const int64_t batches = fresh->ndim == 3 ? size[0] : 1;
  check_indices(fresh->crow, fresh->col, batches, size[size.size() - 2], size[size.size() - 1], fresh->nnz);
  impl_ = std::move(fresh);
}

const SparseCsr::Impl& SparseCsr::impl() const {
  if (!impl_) throw ValueError("SparseCsr: the matrix is undefined (default-constructed)");
  return *impl_;
}
const Tensor& SparseCsr::crow_indices() const { return impl().crow; }
const Tensor& SparseCsr::col_indices() const { return impl().col; }
const Tensor& SparseCsr::values() const { return impl().values; }
std::span<const int64_t> SparseCsr::sizes() const { return {impl().sizes, static_cast<size_t>(impl().ndim)}; }
int SparseCsr::dim() const { return impl().ndim; }
int64_t SparseCsr::nnz() const { return impl().nnz; }
Dtype SparseCsr::dtype() const { return impl().values.dtype(); }
Dtype SparseCsr::index_dtype() const { return impl().crow.dtype(); }
Device SparseCsr::device() const { return impl().values.device(); }

SparseCsr SparseCsr::to(Device device) const {
  if (device == this->device()) return *this;
  auto moved = std::make_shared<Impl>(impl());
  moved->crow = moved->crow.to(device);
  moved->col = moved->col.to(device);
  moved->values = moved->values.to(device);
  SparseCsr out;
  out.impl_ = std::move(moved);  // the invariants were checked on creation and survive a copy
  return out;
}

// Inputs: the components, whose invariants the constructor checked; the dense shape is the
// attribute (the components do not hold K). Output: that shape in the values' dtype.
MetaResult detail::meta_csr_to_dense(const MetaArgs& m) {
  const TensorImpl& vals = checked_impl(*m.inputs[2], m.name, "values");
  const IntList sizes = attrs_of<CsrToDenseAttrs>(m).sizes;
  MetaResult r;
  r.device = &vals.device_record();
  r.key = vals.dtype;
  add_output(r, sizes.data(), static_cast<int>(sizes.size()), vals.dtype);
  return r;
}

Tensor SparseCsr::to_dense() const {
  const Impl& s = impl();
  const MetaResult m = run_meta(XD_OP_CSR_TO_DENSE, "to_dense", {&s.crow, &s.col, &s.values},
                                CsrToDenseAttrs{IntList(s.sizes, static_cast<size_t>(s.ndim))});
  auto out = allocate_output(m, 0);
  if (out->numel > 0) {
    const CsrArgs a = csr_args(s.crow.impl(), s.col.impl(), s.values.impl());
    launch(XD_OP_CSR_TO_DENSE, m.key, *m.device, {a.crow, a.col, a.values}, {batched_arg(*out, 3)}, nullptr);
  }
  return Tensor(std::move(out));
}

SparseCsr sparse_csr_tensor(const Tensor& crow_indices, const Tensor& col_indices, const Tensor& values, IntList size) {
  return SparseCsr(crow_indices, col_indices, values, size);
}

SparseCsr to_sparse_csr(const Tensor& dense, Dtype index_dtype) {
  const char* op = "to_sparse_csr";
  const TensorImpl& d = checked_impl(dense, op, "self");
  if (d.ndim != 2 && d.ndim != 3)
    throw ShapeError(std::string(op) + ": 'self' must be 2-d [M, K] or 3-d [B, M, K], got " + std::to_string(d.ndim) +
                     "-d " + shape_str(d.sizes, d.ndim));
  check_dtype(op, "self", d.dtype, kFloat);
  if (index_dtype != Dtype::i32 && index_dtype != Dtype::i64)
    throw DtypeError(std::string(op) + ": index dtype must be i32 or i64, got " + dtype_name(index_dtype));
  const bool batched = d.ndim == 3;
  const int64_t batches = batched ? d.sizes[0] : 1, m = d.sizes[d.ndim - 2], k = d.sizes[d.ndim - 1];
  const size_t isz = itemsize(d.dtype);
  const std::vector<uint8_t> bytes = dense.to_bytes();  // row-major, the tensor's own dtype
  // Nonzero: any bit other than the sign bit set (so -0 is a zero and NaN is kept, as x != 0).
  auto nonzero = [&](size_t e) {
    const uint8_t* p = bytes.data() + e * isz;
    for (size_t i = 0; i + 1 < isz; ++i)
      if (p[i] != 0) return true;
    return (p[isz - 1] & 0x7F) != 0;
  };
  std::vector<int64_t> crow(static_cast<size_t>(batches * (m + 1)));
  std::vector<int64_t> col;
  std::vector<uint8_t> vals;
  int64_t nnz0 = -1;
  for (int64_t b = 0; b < batches; ++b) {
    int64_t n = 0;
    crow[static_cast<size_t>(b * (m + 1))] = 0;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < k; ++j) {
        const size_t e = static_cast<size_t>((b * m + i) * k + j);
        if (!nonzero(e)) continue;
        col.push_back(j);
        vals.insert(vals.end(), bytes.begin() + static_cast<std::ptrdiff_t>(e * isz),
                    bytes.begin() + static_cast<std::ptrdiff_t>((e + 1) * isz));
        ++n;
      }
      crow[static_cast<size_t>(b * (m + 1) + i + 1)] = n;
    }
    if (nnz0 >= 0 && n != nnz0)
      throw ValueError(std::string(op) +
                       ": batched CSR needs the same number of nonzeros in every batch, but batch 0 has " +
                       std::to_string(nnz0) + " and batch " + std::to_string(b) + " has " + std::to_string(n));
    nnz0 = n;
  }
  const int64_t nnz = std::max<int64_t>(nnz0, 0);
  if (index_dtype == Dtype::i32 && (nnz > INT32_MAX || k > INT32_MAX))
    throw ValueError(std::string(op) + ": " + std::to_string(nnz) + " nonzeros or " + std::to_string(k) +
                     " columns do not fit i32 indices; use Dtype::i64");
  const Device dev = d.device();
  const std::vector<int64_t> crow_shape = batched ? std::vector<int64_t>{batches, m + 1} : std::vector<int64_t>{m + 1};
  const std::vector<int64_t> nz_shape = batched ? std::vector<int64_t>{batches, nnz} : std::vector<int64_t>{nnz};
  const Tensor crow_t = from_host(crow.data(), Dtype::i64, crow_shape, dev).to(index_dtype);
  const Tensor col_t = from_host(col.data(), Dtype::i64, nz_shape, dev).to(index_dtype);
  const Tensor val_t = from_host(vals.data(), d.dtype, nz_shape, dev);
  const std::vector<int64_t> size(d.sizes, d.sizes + d.ndim);
  return SparseCsr(crow_t, col_t, val_t, size);
}

}  // namespace xd
