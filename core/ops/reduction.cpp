// Reductions over dims (sum, mean, amax, amin, argmax) and softmax / log_softmax. Each public op
// runs its schema's meta function (meta_reduce, meta_softmax below), allocates the output it
// describes and launches.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

namespace xd {

using namespace detail;

namespace detail {

namespace {

// Reductions and softmax see a rank-0 tensor as rank 1 of size 1 (rank1_if_scalar), so no kernel
// needs a special case for "reduce over the only element of a scalar" (PyTorch accepts dim 0 / -1).

DtypeSet reduce_dtypes(xd_op op) { return op == XD_OP_MEAN ? kFloat : kNumeric; }
// amax, amin and argmax have no identity: reducing an empty dim is an error.
bool needs_nonempty(xd_op op) { return op == XD_OP_AMAX || op == XD_OP_AMIN || op == XD_OP_ARGMAX; }

}  // namespace

MetaResult meta_reduce(const MetaArgs& m) {
  const char* name = m.name;
  const ReduceAttrs& at = attrs_of<ReduceAttrs>(m);
  const TensorImpl& ia = checked_impl(*m.inputs[0], name, "self");
  check_dtype(name, "self", ia.dtype, reduce_dtypes(m.op));
  uint64_t mask = 0;
  if (at.dims.empty()) {
    mask = (ia.ndim == 0) ? 0 : ((1ull << ia.ndim) - 1);
  } else {
    for (int64_t d : at.dims) {
      const int n = normalize_dim(d, ia.ndim, name);
      if (ia.ndim == 0) continue;
      if (mask & (1ull << n))
        throw ValueError(std::string(name) + ": dim " + std::to_string(n) + " appears more than once in " +
                         shape_str(at.dims.vec()));
      mask |= 1ull << n;
    }
  }
  if (needs_nonempty(m.op)) {
    for (int d = 0; d < ia.ndim; ++d)
      if ((mask & (1ull << d)) && ia.sizes[d] == 0)
        throw ShapeError(std::string(name) + ": cannot reduce over dim " + std::to_string(d) + " of size 0 in " +
                         shape_str(ia.sizes, ia.ndim) + "; the operation has no identity");
    if (ia.ndim == 0 && ia.numel == 0) throw ShapeError(std::string(name) + ": empty input");
  }
  int64_t out_sizes[kMaxDims];
  int out_nd = 0;
  for (int d = 0; d < ia.ndim; ++d) {
    const bool r = (mask & (1ull << d)) != 0;
    if (!r || at.keepdim) out_sizes[out_nd++] = r ? 1 : ia.sizes[d];
  }
  const Dtype out_dtype = m.op == XD_OP_ARGMAX                            ? Dtype::i64
                          : (m.op == XD_OP_SUM && is_integral(ia.dtype)) ? Dtype::i64
                                                                         : ia.dtype;
  MetaResult r;
  r.device = &ia.device_record();
  r.key = ia.dtype;
  add_output(r, out_sizes, out_nd, out_dtype);
  xd_attrs_reduce& k = r.kernel_attrs.reduce;
  k = xd_attrs_reduce{};
  k.struct_size = sizeof k;
  k.dim_mask = ia.ndim == 0 ? 1 : mask;  // the kernel sees a scalar as [1], reduced
  r.has_kernel_attrs = true;
  return r;
}

MetaResult meta_softmax(const MetaArgs& m) {
  const TensorImpl& ia = checked_impl(*m.inputs[0], m.name, "self");
  check_dtype(m.name, "self", ia.dtype, kFloat);
  const int d = normalize_dim(attrs_of<DimAttrs>(m).dim, ia.ndim, m.name);
  return dim_op_result(ia, ia.sizes, ia.ndim, ia.ndim == 0 ? 0 : d);
}

}  // namespace detail

namespace {

Tensor reduce(xd_op op, const char* name, const Tensor& a, IntList dims, bool keepdim) {
  const MetaResult m = run_meta(op, name, {&a}, ReduceAttrs{dims, keepdim});
  auto out = allocate_output(m, 0);
  if (out->numel > 0) {
    // The kernel sees the output with the input's rank (a scalar as rank 1): reduced dims have
    // size 1, in the order of the input's dims.
    const TensorImpl& ia = checked(a);
    const uint64_t mask = m.kernel_attrs.reduce.dim_mask;
    Arg o;
    o.t = out.get();
    o.ndim = ia.ndim == 0 ? 1 : ia.ndim;
    int64_t s = 1;
    for (int d = o.ndim - 1; d >= 0; --d) {
      o.sizes[d] = (ia.ndim == 0 || (mask & (1ull << d))) ? 1 : ia.sizes[d];
      o.strides[d] = s;
      s *= o.sizes[d];
    }
    launch(op, m.key, *m.device, {rank1_if_scalar(arg(ia))}, {o}, m.kernel_attrs_ptr());
  }
  return Tensor(std::move(out));
}

Tensor softmax_like(xd_op op, const char* name, const Tensor& a, int64_t dim) {
  const MetaResult m = run_meta(op, name, {&a}, DimAttrs{dim});
  auto out = allocate_output(m, 0);
  if (out->numel > 0)
    launch(op, m.key, *m.device, {rank1_if_scalar(arg(checked(a)))}, {rank1_if_scalar(arg(*out))},
           m.kernel_attrs_ptr());
  return Tensor(std::move(out));
}

}  // namespace

Tensor sum(const Tensor& a, IntList dims, bool keepdim) { return reduce(XD_OP_SUM, "sum", a, dims, keepdim); }
Tensor mean(const Tensor& a, IntList dims, bool keepdim) { return reduce(XD_OP_MEAN, "mean", a, dims, keepdim); }
Tensor amax(const Tensor& a, IntList dims, bool keepdim) { return reduce(XD_OP_AMAX, "amax", a, dims, keepdim); }
Tensor amin(const Tensor& a, IntList dims, bool keepdim) { return reduce(XD_OP_AMIN, "amin", a, dims, keepdim); }
Tensor argmax(const Tensor& a, int64_t dim, bool keepdim) { return reduce(XD_OP_ARGMAX, "argmax", a, {dim}, keepdim); }
Tensor softmax(const Tensor& a, int64_t dim) { return softmax_like(XD_OP_SOFTMAX, "softmax", a, dim); }
Tensor log_softmax(const Tensor& a, int64_t dim) { return softmax_like(XD_OP_LOG_SOFTMAX, "log_softmax", a, dim); }

}  // namespace xd
