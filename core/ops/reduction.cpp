// Reductions over dims (sum, mean, amax, amin, argmax) and softmax / log_softmax.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"

namespace xd {

using namespace detail;

namespace {

// Reductions and softmax see a rank-0 tensor as rank 1 of size 1, so no kernel needs a
// special case for "reduce over the only element of a scalar" (PyTorch accepts dim 0 / -1).
Arg rank1_if_scalar(Arg a) {
  if (a.ndim == 0) {
    a.ndim = 1;
    a.sizes[0] = 1;
    a.strides[0] = 1;
  }
  return a;
}

Tensor reduce(xd_op op, const char* name, const Tensor& a, IntList dims, bool keepdim, uint32_t dtypes,
              bool needs_nonempty) {
  const TensorImpl& ia = checked_impl(a, name, "self");
  check_dtype(name, "self", ia.dtype, dtypes);
  uint64_t mask = 0;
  if (dims.empty()) {
    mask = (ia.ndim == 0) ? 0 : ((1ull << ia.ndim) - 1);
  } else {
    for (int64_t d : dims) {
      const int n = normalize_dim(d, ia.ndim, name);
      if (ia.ndim == 0) continue;
      if (mask & (1ull << n))
        throw ValueError(std::string(name) + ": dim " + std::to_string(n) + " appears more than once in " +
                         shape_str(dims.vec()));
      mask |= 1ull << n;
    }
  }
  if (needs_nonempty) {
    for (int d = 0; d < ia.ndim; ++d)
      if ((mask & (1ull << d)) && ia.sizes[d] == 0)
        throw ShapeError(std::string(name) + ": cannot reduce over dim " + std::to_string(d) + " of size 0 in " +
                         shape_str(ia.sizes, ia.ndim) + "; the operation has no identity");
    if (ia.ndim == 0 && ia.numel == 0) throw ShapeError(std::string(name) + ": empty input");
  }
  int64_t keep_sizes[kMaxDims], out_sizes[kMaxDims];
  int out_nd = 0;
  for (int d = 0; d < ia.ndim; ++d) {
    const bool r = (mask & (1ull << d)) != 0;
    keep_sizes[d] = r ? 1 : ia.sizes[d];
    if (!r || keepdim) out_sizes[out_nd++] = keep_sizes[d];
  }
  const Dtype out_dtype = op == XD_OP_ARGMAX ? Dtype::i64
                          : (op == XD_OP_SUM && is_integral(ia.dtype)) ? Dtype::i64
                                                                      : ia.dtype;
  DeviceRecord& dev = ia.device_record();
  auto out = allocate_tensor(dev, IntList(out_sizes, static_cast<size_t>(out_nd)), out_dtype);
  if (out->numel > 0) {
    // The kernel sees the output with the input's rank: reduced dims have size 1.
    Arg o;
    o.t = out.get();
    o.ndim = ia.ndim;
    if (ia.ndim == 0) {
      o.ndim = 1;
      keep_sizes[0] = 1;
      mask = 1;
    }
    int64_t s = 1;
    for (int d = o.ndim - 1; d >= 0; --d) {
      o.sizes[d] = keep_sizes[d];
      o.strides[d] = s;
      s *= keep_sizes[d];
    }
    xd_attrs_reduce r{};
    r.struct_size = sizeof r;
    r.dim_mask = mask;
    launch(op, ia.dtype, dev, {rank1_if_scalar(arg(ia))}, {o}, &r);
  }
  return Tensor(std::move(out));
}

Tensor softmax_like(xd_op op, const char* name, const Tensor& a, int64_t dim) {
  const TensorImpl& ia = checked_impl(a, name, "self");
  check_dtype(name, "self", ia.dtype, kFloat);
  const int d = normalize_dim(dim, ia.ndim, name);
  DeviceRecord& dev = ia.device_record();
  auto out = allocate_tensor(dev, IntList(ia.sizes, static_cast<size_t>(ia.ndim)), ia.dtype);
  if (out->numel > 0) {
    xd_attrs_dim at{};
    at.struct_size = sizeof at;
    at.dim = ia.ndim == 0 ? 0 : d;
    launch(op, ia.dtype, dev, {rank1_if_scalar(arg(ia))}, {rank1_if_scalar(arg(*out))}, &at);
  }
  return Tensor(std::move(out));
}

}  // namespace

Tensor sum(const Tensor& a, IntList dims, bool keepdim) { return reduce(XD_OP_SUM, "sum", a, dims, keepdim, kNumeric, false); }
Tensor mean(const Tensor& a, IntList dims, bool keepdim) { return reduce(XD_OP_MEAN, "mean", a, dims, keepdim, kFloat, false); }
Tensor amax(const Tensor& a, IntList dims, bool keepdim) { return reduce(XD_OP_AMAX, "amax", a, dims, keepdim, kNumeric, true); }
Tensor amin(const Tensor& a, IntList dims, bool keepdim) { return reduce(XD_OP_AMIN, "amin", a, dims, keepdim, kNumeric, true); }
Tensor argmax(const Tensor& a, int64_t dim, bool keepdim) {
  return reduce(XD_OP_ARGMAX, "argmax", a, {dim}, keepdim, kNumeric, true);
}
Tensor softmax(const Tensor& a, int64_t dim) { return softmax_like(XD_OP_SOFTMAX, "softmax", a, dim); }
Tensor log_softmax(const Tensor& a, int64_t dim) { return softmax_like(XD_OP_LOG_SOFTMAX, "log_softmax", a, dim); }

}  // namespace xd
