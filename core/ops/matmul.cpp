// mm, addmm, bmm, baddbmm (dense).
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"

#include <cmath>

namespace xd {

using namespace detail;

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

Tensor matmul(xd_op op, const char* name, const Tensor* input, const Tensor& a, const Tensor& b, int ndim,
              double beta, double alpha) {
  const char* an = input != nullptr ? (ndim == 2 ? "mat1" : "batch1") : "self";
  const char* bn = input != nullptr ? (ndim == 2 ? "mat2" : "batch2") : "mat2";
  const TensorImpl& ia = checked_impl(a, name, an);
  const TensorImpl& ib = checked_impl(b, name, bn);
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
  DeviceRecord& dev = ia.device_record();
  const TensorImpl* ii = nullptr;
  if (input != nullptr) {
    ii = &checked_impl(*input, name, "self");
    check_same_device(name, "self", *ii, an, ia);
    check_same_dtype(name, "self", *ii, an, ia);
    int64_t bs[kMaxDims];
    int bnd = ndim;
    for (int i = 0; i < ndim; ++i) bs[i] = shape[i];
    broadcast_into(bs, bnd, ii->sizes, ii->ndim, name);
    if (bnd != ndim || !std::equal(bs, bs + ndim, shape))
      throw ShapeError(std::string(name) + ": 'self' " + shape_str(ii->sizes, ii->ndim) +
                       " does not broadcast to the result's shape " + shape_str(shape, ndim));
  }
  auto out = allocate_tensor(dev, IntList(shape, static_cast<size_t>(ndim)), ia.dtype);
  if (out->numel > 0) {
    if (ii != nullptr) {
      const xd_attrs_blas at = blas(name, beta, alpha);
      launch(op, ia.dtype, dev, {arg_broadcast(*ii, shape, ndim), arg(ia), arg(ib)}, {arg(*out)}, &at);
    } else {
      launch(op, ia.dtype, dev, {arg(ia), arg(ib)}, {arg(*out)}, nullptr);
    }
  }
  return Tensor(std::move(out));
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) { return matmul(XD_OP_MM, "mm", nullptr, a, b, 2, 0, 1); }
Tensor addmm(const Tensor& input, const Tensor& a, const Tensor& b, double beta, double alpha) {
  return matmul(XD_OP_ADDMM, "addmm", &input, a, b, 2, beta, alpha);
}
Tensor bmm(const Tensor& a, const Tensor& b) { return matmul(XD_OP_BMM, "bmm", nullptr, a, b, 3, 0, 1); }
Tensor baddbmm(const Tensor& input, const Tensor& a, const Tensor& b, double beta, double alpha) {
  return matmul(XD_OP_BADDBMM, "baddbmm", &input, a, b, 3, beta, alpha);
}

}  // namespace xd
