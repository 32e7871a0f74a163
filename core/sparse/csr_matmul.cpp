// mm, addmm, bmm, baddbmm with a sparse CSR left operand: all four are XD_OP_CSR_ADDMM in the
// batched form (an unbatched problem is batch 1; mm and bmm pass no input), validated by its
// schema's meta function (meta_csr_addmm, below).
#include <xd/error.hpp>
#include <xd/sparse.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"
#include "sparse/csr_args.hpp"

#include <algorithm>
#include <cmath>

namespace xd {

using namespace detail;

namespace detail {

// Inputs: (self?, crow_indices, col_indices, values, mat2); crow/col/values are nullptr when the
// SparseCsr is undefined. The sparse operand's shape comes in the attributes (the components do
// not hold K).
MetaResult meta_csr_addmm(const MetaArgs& m) {
  const char* name = m.name;
  const CsrMatmulAttrs& at = attrs_of<CsrMatmulAttrs>(m);
  const int ndim = at.ndim;
  const bool with_input = m.inputs[0] != nullptr;
  const char* an = with_input ? (ndim == 2 ? "mat1" : "batch1") : "self";
  const char* bn = with_input ? (ndim == 2 ? "mat2" : "batch2") : "mat2";
  if (m.inputs[3] == nullptr)
    throw ValueError(std::string(name) + ": sparse argument '" + an +
                     "' is undefined (a default-constructed SparseCsr)");
  const TensorImpl& ib = checked_impl(*m.inputs[4], name, bn);
  const TensorImpl& va = m.inputs[3]->impl();
  const IntList as = at.sparse_sizes;
  if (static_cast<int>(as.size()) != ndim)
    throw ShapeError(std::string(name) + ": sparse '" + an + "' must be " +
                     (ndim == 2 ? "2-d [M, K]" : "batched [B, M, K]") + ", got size " + shape_str(as.vec()) +
                     (ndim == 2 ? "; use bmm for batched CSR" : "; use mm for 2-d CSR"));
  check_same_device(name, an, va, bn, ib);
  check_same_dtype(name, an, va, bn, ib);
  check_ndim(name, bn, ib, ndim);
  const int o = ndim - 2;  // index of the row dim
  if (ndim == 3 && as[0] != ib.sizes[0])
    throw ShapeError(std::string(name) + ": batch sizes differ: sparse '" + an + "' " + shape_str(as.vec()) + " vs '" +
                     bn + "' " + shape_str(ib.sizes, 3));
  if (as[static_cast<size_t>(o + 1)] != ib.sizes[o])
    throw ShapeError(std::string(name) + ": sparse '" + an + "' " + shape_str(as.vec()) + " and '" + bn + "' " +
                     shape_str(ib.sizes, ib.ndim) + " cannot be multiplied (" +
                     std::to_string(as[static_cast<size_t>(o + 1)]) + " columns vs " + std::to_string(ib.sizes[o]) +
                     " rows)");
  int64_t shape[3];
  if (ndim == 3) shape[0] = as[0];
  shape[o] = as[static_cast<size_t>(o)];
  shape[o + 1] = ib.sizes[o + 1];
  if (!std::isfinite(at.beta) || !std::isfinite(at.alpha))
    throw ValueError(std::string(name) + ": beta and alpha must be finite, got beta=" + std::to_string(at.beta) +
                     " alpha=" + std::to_string(at.alpha));
  if (with_input) {
    const TensorImpl& ii = checked_impl(*m.inputs[0], name, "self");
    check_same_device(name, "self", ii, an, va);
    check_same_dtype(name, "self", ii, an, va);
    int64_t bs[kMaxDims];
    int bnd = ndim;
    std::copy(shape, shape + ndim, bs);
    broadcast_into(bs, bnd, ii.sizes, ii.ndim, name);
    if (bnd != ndim || !std::equal(bs, bs + ndim, shape))
      throw ShapeError(std::string(name) + ": 'self' " + shape_str(ii.sizes, ii.ndim) +
                       " does not broadcast to the result's shape " + shape_str(shape, ndim));
  }
  MetaResult r;
  r.device = &va.device_record();
  r.key = va.dtype;
  add_output(r, shape, ndim, va.dtype);
  xd_attrs_blas& k = r.kernel_attrs.blas;
  k = xd_attrs_blas{};
  k.struct_size = sizeof k;
  k.beta = with_input ? at.beta : 0.0;
  k.alpha = at.alpha;
  r.has_kernel_attrs = true;
  return r;
}

}  // namespace detail

namespace {

Tensor csr_matmul(const char* name, const Tensor* input, const SparseCsr& a, const Tensor& b, int ndim, double beta,
                  double alpha) {
  const bool defined = a.defined();
  const Tensor* crow = defined ? &a.crow_indices() : nullptr;
  const Tensor* col = defined ? &a.col_indices() : nullptr;
  const Tensor* values = defined ? &a.values() : nullptr;
  const MetaResult m = run_meta(XD_OP_CSR_ADDMM, name, {input, crow, col, values, &b},
                                CsrMatmulAttrs{defined ? IntList(a.sizes()) : IntList(), ndim, beta, alpha});
  auto out = allocate_output(m, 0);
  if (out->numel > 0) {
    const int o = ndim - 2;
    const int64_t shape3[3] = {ndim == 3 ? out->sizes[0] : 1, out->sizes[o], out->sizes[o + 1]};
    // beta == 0 never reads the input, so it is not passed at all: a NaN there cannot propagate.
    const Arg in = input != nullptr && beta != 0.0 ? arg_broadcast(checked(*input), shape3, 3) : arg_absent();
    const CsrArgs c = csr_args(checked(*crow), checked(*col), checked(*values));
    launch(XD_OP_CSR_ADDMM, m.key, *m.device, {in, c.crow, c.col, c.values, batched_arg(checked(b), 3)},
           {batched_arg(*out, 3)}, m.kernel_attrs_ptr());
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
