// Indexing: index_select (XD_OP_INDEX_SELECT), embedding (composed on it) and gather
// (XD_OP_GATHER). The meta functions validate shapes, dtypes and devices; the index values are checked by the public
// function on a host copy, so no kernel ever sees an index it could read out of bounds with.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace xd {

using namespace detail;

namespace detail {

namespace {

constexpr DtypeSet kIndexDtypes{XD_DTYPE_I64, XD_DTYPE_I32};

}  // namespace

MetaResult meta_index_select(const MetaArgs& m) {
  const char* name = m.name;
  const TensorImpl& ia = checked_impl(*m.inputs[0], name, "self");
  const TensorImpl& ii = checked_impl(*m.inputs[1], name, "index");
  check_dtype(name, "self", ia.dtype, kAll);
  check_dtype(name, "index", ii.dtype, kIndexDtypes);
  if (ii.ndim > 1)
    throw ShapeError(std::string(name) + ": 'index' must be 1-d or 0-d, got " + std::to_string(ii.ndim) + "-d " +
                     shape_str(ii.sizes, ii.ndim) + "; flatten it with .reshape({-1})");
  check_same_device(name, "self", ia, "index", ii);
  const int d = normalize_dim(attrs_of<DimAttrs>(m).dim, ia.ndim, name);
  // PyTorch 2 (torch 1.13 returned an uninitialised or repeated scalar here): a 0-d self takes
  // exactly one index.
  if (ia.ndim == 0 && ii.numel != 1)
    throw IndexError(std::string(name) + ": a 0-d 'self' takes an index of one element, got " +
                     std::to_string(ii.numel) + " elements");
  int64_t sizes[kMaxDims];
  for (int i = 0; i < ia.ndim; ++i) sizes[i] = i == d ? ii.numel : ia.sizes[i];
  return dim_op_result(ia, sizes, ia.ndim, d);
}

// torch.gather's shape rule, with 0-d tensors seen as [1] (PyTorch's ensure_nonempty_dim): index
// has self's rank and is no larger than self in every dim but `dim`; out takes index's shape.
MetaResult meta_gather(const MetaArgs& m) {
  const char* name = m.name;
  const TensorImpl& ia = checked_impl(*m.inputs[0], name, "self");
  const TensorImpl& ii = checked_impl(*m.inputs[1], name, "index");
  check_dtype(name, "self", ia.dtype, kAll);
  check_dtype(name, "index", ii.dtype, kIndexDtypes);
  check_same_device(name, "self", ia, "index", ii);
  const int d = normalize_dim(attrs_of<DimAttrs>(m).dim, ia.ndim, name);
  const int rank = std::max(ia.ndim, 1);
  if (std::max(ii.ndim, 1) != rank)
    throw ShapeError(std::string(name) + ": 'index' " + shape_str(ii.sizes, ii.ndim) +
                     " must have the rank of 'self' " + shape_str(ia.sizes, ia.ndim) + " (" + std::to_string(ia.ndim) +
                     "-d), got " + std::to_string(ii.ndim) + "-d");
  for (int i = 0; i < rank; ++i) {
    const int64_t is = ii.ndim == 0 ? 1 : ii.sizes[i], as = ia.ndim == 0 ? 1 : ia.sizes[i];
    if (i != d && is > as)
      throw ShapeError(std::string(name) + ": 'index' " + shape_str(ii.sizes, ii.ndim) + " is larger than 'self' " +
                       shape_str(ia.sizes, ia.ndim) + " in dim " + std::to_string(i) + " (" + std::to_string(is) +
                       " > " + std::to_string(as) + "); only dim " + std::to_string(d) + " may be larger");
  }
  return dim_op_result(ia, ii.sizes, ii.ndim, d);
}

}  // namespace detail

namespace {

// Every index in [0, size) or an IndexError naming the first bad one. Reads `index` on the host
// (to_vector converts i32): the one place an index is checked, so kernels never need to report.
void check_index_values(const char* name, const Tensor& index, int64_t size, int dim, const char* what) {
  const std::vector<int64_t> v = index.to_vector<int64_t>();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] < 0 || v[i] >= size)
      throw IndexError(std::string(name) + ": " + what + " " + std::to_string(v[i]) + " (at position " +
                       std::to_string(i) + ") is out of range for dim " + std::to_string(dim) + " of size " +
                       std::to_string(size) + "; indices must be in [0, " + std::to_string(size) +
                       ") (negative indices do not wrap, as in PyTorch)");
}

Tensor index_select_impl(const char* name, const Tensor& a, int64_t dim, const Tensor& index, const char* what) {
  const MetaResult m = run_meta(XD_OP_INDEX_SELECT, name, {&a, &index}, DimAttrs{dim});
  const TensorImpl& ia = checked(a);
  const int d = m.kernel_attrs.dim.dim;
  check_index_values(name, index, ia.ndim == 0 ? 1 : ia.sizes[d], d, what);
  auto out = allocate_output(m, 0);
  if (out->numel > 0) {
    // The kernel takes an i64 index only; i32 is widened here (a copy of index.numel() elements).
    const Tensor idx = index.dtype() == Dtype::i64 ? index : index.to(Dtype::i64);
    Arg ix = arg(checked(idx));
    if (ix.ndim == 0) ix = rank1_if_scalar(ix);
    launch(XD_OP_INDEX_SELECT, m.key, *m.device, {rank1_if_scalar(arg(ia)), ix}, {rank1_if_scalar(arg(*out))},
           m.kernel_attrs_ptr());
  }
  return Tensor(std::move(out));
}

}  // namespace

Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index) {
  return index_select_impl("index_select", a, dim, index, "index");
}

Tensor gather(const Tensor& a, int64_t dim, const Tensor& index) {
  const char* name = "gather";
  const MetaResult m = run_meta(XD_OP_GATHER, name, {&a, &index}, DimAttrs{dim});
  const TensorImpl& ia = checked(a);
  const int d = m.kernel_attrs.dim.dim;
  check_index_values(name, index, ia.ndim == 0 ? 1 : ia.sizes[d], d, "index");
  auto out = allocate_output(m, 0);
  if (out->numel > 0) {
    const Tensor idx = index.dtype() == Dtype::i64 ? index : index.to(Dtype::i64);  // the kernel takes i64
    launch(XD_OP_GATHER, m.key, *m.device, {rank1_if_scalar(arg(ia)), rank1_if_scalar(arg(checked(idx)))},
           {rank1_if_scalar(arg(*out))}, m.kernel_attrs_ptr());
  }
  return Tensor(std::move(out));
}

Tensor embedding(const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx) {
  const char* name = "embedding";
  const TensorImpl& w = checked_impl(weight, name, "weight");
  const TensorImpl& ii = checked_impl(indices, name, "indices");
  if (w.ndim != 2)
    throw ShapeError(std::string(name) + ": 'weight' must be 2-d [num_embeddings, embedding_dim], got " +
                     std::to_string(w.ndim) + "-d " + shape_str(w.sizes, w.ndim));
  check_dtype(name, "indices", ii.dtype, kIndexDtypes);
  const int64_t n = w.sizes[0];
  // PyTorch asserts padding_idx in [-num_embeddings, num_embeddings) (an AssertionError there, a
  // bad argument value here); it only masks the gradient, so the forward does nothing else with it.
  if (padding_idx && (*padding_idx < -n || *padding_idx >= n))
    throw ValueError(std::string(name) + ": padding_idx " + std::to_string(*padding_idx) +
                     " must be within num_embeddings (in [" + std::to_string(-n) + ", " + std::to_string(n) + "))");
  std::vector<int64_t> out_shape(indices.sizes().begin(), indices.sizes().end());
  out_shape.push_back(w.sizes[1]);
  const Tensor flat = indices.reshape({-1});
  return index_select_impl(name, weight, 0, flat, "index").reshape(IntList(out_shape.data(), out_shape.size()));
}

}  // namespace xd
