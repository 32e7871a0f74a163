// mm, addmm, bmm, baddbmm with a sparse CSR left operand: all four are XD_OP_CSR_ADDMM in the
// batched form (an unbatched problem is batch 1; mm and bmm pass no input).
#include <xd/error.hpp>
#include <xd/sparse.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "sparse/csr_args.hpp"

#include <algorithm>
#include <cmath>

namespace xd {

using namespace detail;

namespace {

Tensor csr_matmul(const char* name, const Tensor* input, const SparseCsr& a, const Tensor& b, int ndim, double beta,
                  double alpha) {
  const bool with_input = input != nullptr;
  const char* an = with_input ? (ndim == 2 ? "mat1" : "batch1") : "self";
  const char* bn = with_input ? (ndim == 2 ? "mat2" : "batch2") : "mat2";
  if (!a.defined())
    throw ValueError(std::string(name) + ": sparse argument '" + an +
                     "' is undefined (a default-constructed SparseCsr)");
  const TensorImpl& ib = checked_impl(b, name, bn);
  const TensorImpl& va = a.values().impl();
  if (a.dim() != ndim)
    throw ShapeError(std::string(name) + ": sparse '" + an + "' must be " +
                     (ndim == 2 ? "2-d [M, K]" : "batched [B, M, K]") + ", got size " + shape_str(a.sizes()) +
                     (ndim == 2 ? "; use bmm for batched CSR" : "; use mm for 2-d CSR"));
  check_same_device(name, an, va, bn, ib);
  check_same_dtype(name, an, va, bn, ib);
  check_ndim(name, bn, ib, ndim);
  const auto as = a.sizes();
  const int o = ndim - 2;  // index of the row dim
  if (ndim == 3 && as[0] != ib.sizes[0])
    throw ShapeError(std::string(name) + ": batch sizes differ: sparse '" + an + "' " + shape_str(as) + " vs '" + bn +
                     "' " + shape_str(ib.sizes, 3));
  if (as[static_cast<size_t>(o + 1)] != ib.sizes[o])
    throw ShapeError(std::string(name) + ": sparse '" + an + "' " + shape_str(as) + " and '" + bn + "' " +
                     shape_str(ib.sizes, ib.ndim) + " cannot be multiplied (" +
                     std::to_string(as[static_cast<size_t>(o + 1)]) + " columns vs " + std::to_string(ib.sizes[o]) +
                     " rows)");
  int64_t shape[3];
  if (ndim == 3) shape[0] = as[0];
  shape[o] = as[static_cast<size_t>(o)];
  shape[o + 1] = ib.sizes[o + 1];
  if (!std::isfinite(beta) || !std::isfinite(alpha))
    throw ValueError(std::string(name) + ": beta and alpha must be finite, got beta=" + std::to_string(beta) +
                     " alpha=" + std::to_string(alpha));
  const TensorImpl* ii = nullptr;
  if (with_input) {
    ii = &checked_impl(*input, name, "self");
    check_same_device(name, "self", *ii, an, va);
    check_same_dtype(name, "self", *ii, an, va);
    int64_t bs[kMaxDims];
    int bnd = ndim;
    std::copy(shape, shape + ndim, bs);
    broadcast_into(bs, bnd, ii->sizes, ii->ndim, name);
    if (bnd != ndim || !std::equal(bs, bs + ndim, shape))
      throw ShapeError(std::string(name) + ": 'self' " + shape_str(ii->sizes, ii->ndim) +
                       " does not broadcast to the result's shape " + shape_str(shape, ndim));
  }
  DeviceRecord& dev = va.device_record();
  auto out = allocate_tensor(dev, IntList(shape, static_cast<size_t>(ndim)), va.dtype);
  if (out->numel > 0) {
    const int64_t shape3[3] = {ndim == 3 ? shape[0] : 1, shape[o], shape[o + 1]};
    xd_attrs_blas at{};
    at.struct_size = sizeof at;
    at.beta = with_input ? beta : 0.0;
    at.alpha = alpha;
    // beta == 0 never reads the input, so it is not passed at all: a NaN there cannot propagate.
    const Arg in = ii != nullptr && beta != 0.0 ? arg_broadcast(*ii, shape3, 3) : arg_absent();
    const CsrArgs c = csr_args(a.crow_indices().impl(), a.col_indices().impl(), va);
    launch(XD_OP_CSR_ADDMM, va.dtype, dev, {in, c.crow, c.col, c.values, batched_arg(ib, 3)}, {batched_arg(*out, 3)},
           &at);
  }
  return Tensor(std::move(out));
}

}  // namespace

Tensor mm(const SparseCsr& a, const Tensor& b) { return csr_matmul("mm", nullptr, a, b, 2, 0, 1); }
Tensor addmm(const Tensor& input, const SparseCsr& a, const Tensor& b, double beta, double alpha) {
  return csr_matmul("addmm", &input, a, b, 2, beta, alpha);
}
Tensor bmm(const SparseCsr& a, const Tensor& b) { return csr_matmul("bmm", nullptr, a, b, 3, 0, 1); }
Tensor baddbmm(const Tensor& input, const SparseCsr& a, const Tensor& b, double beta, double alpha) {
  return csr_matmul("baddbmm", &input, a, b, 3, beta, alpha);
}

}  // namespace xd
