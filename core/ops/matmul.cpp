// mm, addmm, bmm, baddbmm (dense). Each runs its schema's meta function (meta_matmul below),
// allocates the output it describes and launches.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

#include <cmath>

namespace xd {

using namespace detail;

namespace detail {

namespace {

void check_pair(const char* op, const char* an, const TensorImpl& a, const char* bn, const TensorImpl& b, int ndim) {
  check_same_device(op, an, a, bn, b);
  check_same_dtype(op, an, a, bn, b);
  check_dtype(op, an, a.dtype, kFloat);
  check_ndim(op, an, a, ndim);
  check_ndim(op, bn, b, ndim);
  if (ndim == 3 && a.sizes[0] != b.sizes[0])
    throw ShapeError(std::string(op) + ": batch sizes differ: '" + an + "' " + shape_str(a.sizes, 3) + " vs '" + bn +
                     "' " + shape_str(b.sizes, 3));
  if (a.sizes[ndim - 1] != b.sizes[ndim - 2])
    throw ShapeError(std::string(op) + ": '" + an + "' " + shape_str(a.sizes, a.ndim) + " and '" + bn + "' " +
                     shape_str(b.sizes, b.ndim) + " cannot be multiplied (" + std::to_string(a.sizes[ndim - 1]) +
                     " columns vs " + std::to_string(b.sizes[ndim - 2]) + " rows)");
}

xd_attrs_blas blas(const char* op, double beta, double alpha) {
  if (!std::isfinite(beta) || !std::isfinite(alpha))
    throw ValueError(std::string(op) + ": beta and alpha must be finite, got beta=" + std::to_string(beta) +
                     " alpha=" + std::to_string(alpha));
  xd_attrs_blas b{};
  b.struct_size = sizeof b;
  b.beta = beta;
  b.alpha = alpha;
  return b;
}

}  // namespace

// Inputs: mm / bmm (self, mat2); addmm (self, mat1, mat2); baddbmm (self, batch1, batch2).
MetaResult meta_matmul(const MetaArgs& m) {
  const char* name = m.name;
  const bool with_input = m.op == XD_OP_ADDMM || m.op == XD_OP_BADDBMM;
  const int ndim = (m.op == XD_OP_BMM || m.op == XD_OP_BADDBMM) ? 3 : 2;
  const char* an = with_input ? (ndim == 2 ? "mat1" : "batch1") : "self";
  const char* bn = with_input ? (ndim == 2 ? "mat2" : "batch2") : "mat2";
  const TensorImpl& ia = checked_impl(*m.inputs[with_input ? 1 : 0], name, an);
  const TensorImpl& ib = checked_impl(*m.inputs[with_input ? 2 : 1], name, bn);
  check_pair(name, an, ia, bn, ib, ndim);
  int64_t shape[3];
  if (ndim == 2) {
    shape[0] = ia.sizes[0];
    shape[1] = ib.sizes[1];
  } else {
    shape[0] = ia.sizes[0];
    shape[1] = ia.sizes[1];
    shape[2] = ib.sizes[2];
  }
  MetaResult r;
  if (with_input) {
    const TensorImpl& ii = checked_impl(*m.inputs[0], name, "self");
    check_same_device(name, "self", ii, an, ia);
    check_same_dtype(name, "self", ii, an, ia);
    int64_t bs[kMaxDims];
    int bnd = ndim;
    for (int i = 0; i < ndim; ++i) bs[i] = shape[i];
    broadcast_into(bs, bnd, ii.sizes, ii.ndim, name);
    if (bnd != ndim || !std::equal(bs, bs + ndim, shape))
      throw ShapeError(std::string(name) + ": 'self' " + shape_str(ii.sizes, ii.ndim) +
                       " does not broadcast to the result's shape " + shape_str(shape, ndim));
    const BlasAttrs& at = attrs_of<BlasAttrs>(m);
    r.kernel_attrs.blas = blas(name, at.beta, at.alpha);
    r.has_kernel_attrs = true;
  }
  r.device = &ia.device_record();
  r.key = ia.dtype;
  add_output(r, shape, ndim, ia.dtype);
  return r;
}

}  // namespace detail

namespace {

Tensor matmul(xd_op op, const char* name, const Tensor& a, const Tensor& b) {
  const MetaResult m = run_meta(op, name, {&a, &b}, NoAttrs{});
  auto out = allocate_output(m, 0);
  if (out->numel > 0) launch(op, m.key, *m.device, {arg(checked(a)), arg(checked(b))}, {arg(*out)}, nullptr);
  return Tensor(std::move(out));
}

Tensor matmul_add(xd_op op, const char* name, const Tensor& input, const Tensor& a, const Tensor& b, double beta,
                  double alpha) {
  const MetaResult m = run_meta(op, name, {&input, &a, &b}, BlasAttrs{beta, alpha});
  auto out = allocate_output(m, 0);
  if (out->numel > 0)
    launch(op, m.key, *m.device, {arg_broadcast(checked(input), out->sizes, out->ndim), arg(checked(a)), arg(checked(b))},
           {arg(*out)}, m.kernel_attrs_ptr());
  return Tensor(std::move(out));
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) { return matmul(XD_OP_MM, "mm", a, b); }
Tensor addmm(const Tensor& input, const Tensor& a, const Tensor& b, double beta, double alpha) {
  return matmul_add(XD_OP_ADDMM, "addmm", input, a, b, beta, alpha);
}
Tensor bmm(const Tensor& a, const Tensor& b) { return matmul(XD_OP_BMM, "bmm", a, b); }
Tensor baddbmm(const Tensor& input, const Tensor& a, const Tensor& b, double beta, double alpha) {
  return matmul_add(XD_OP_BADDBMM, "baddbmm", input, a, b, beta, alpha);
}

}  // namespace xd
