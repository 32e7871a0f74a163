// Scans and selections along one dim: cumsum (XD_OP_CUMSUM) and topk (XD_OP_TOPK), with
// PyTorch's semantics. The meta functions validate dtypes, dim and k; both ops see a 0-d tensor
// as [1] (PyTorch's ensure_nonempty_dim), so no kernel has a rank-0 case.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

#include <string>

namespace xd {

using namespace detail;

namespace detail {

// torch.cumsum's dtype rule: bool and integer inputs give i64, floating ones keep their dtype,
// and a given dtype wins (the input is converted to it first). The kernel is keyed on that
// output dtype and reads an input of it: the public function converts.
MetaResult meta_cumsum(const MetaArgs& m) {
  const char* name = m.name;
  const CumsumAttrs& at = attrs_of<CumsumAttrs>(m);
  const TensorImpl& ia = checked_impl(*m.inputs[0], name, "self");
  check_dtype(name, "self", ia.dtype, kNumericBool);
  if (at.dtype) check_dtype(name, "dtype", *at.dtype, kNumeric);
  const int d = normalize_dim(at.dim, ia.ndim, name);
  const Dtype out = at.dtype ? *at.dtype : (is_floating(ia.dtype) ? ia.dtype : Dtype::i64);
  MetaResult r = dim_op_result(ia, ia.sizes, ia.ndim, ia.ndim == 0 ? 0 : d);
  r.key = out;
  r.outputs[0].dtype = out;
  return r;
}

// torch.topk: k in [0, size(dim)] (a 0-d tensor has size 1 there, and torch gives it back whole
// for k 0 or 1: its outputs are 0-d). values have a's dtype, indices are i64, both of a's shape
// with size(dim) = k.
MetaResult meta_topk(const MetaArgs& m) {
  const char* name = m.name;
  const TopkAttrs& at = attrs_of<TopkAttrs>(m);
  const TensorImpl& ia = checked_impl(*m.inputs[0], name, "self");
  check_dtype(name, "self", ia.dtype, kNumeric);
  const int d = normalize_dim(at.dim, ia.ndim, name);
  const int64_t len = ia.ndim == 0 ? 1 : ia.sizes[d];
  if (at.k < 0 || at.k > len)
    throw IndexError(std::string(name) + ": selected index k out of range: k = " + std::to_string(at.k) + ", but dim " +
                     std::to_string(ia.ndim == 0 ? 0 : d) + " of 'self' " + shape_str(ia.sizes, ia.ndim) +
                     " has size " + std::to_string(len) + " (k must be in [0, " + std::to_string(len) + "])");
  int64_t sizes[kMaxDims];
  for (int i = 0; i < ia.ndim; ++i) sizes[i] = i == d ? at.k : ia.sizes[i];
  MetaResult r;
  r.device = &ia.device_record();
  r.key = ia.dtype;
  add_output(r, sizes, ia.ndim, ia.dtype);
  add_output(r, sizes, ia.ndim, Dtype::i64);
  xd_attrs_topk& k = r.kernel_attrs.topk;
  k = xd_attrs_topk{};
  k.struct_size = sizeof k;
  k.k = ia.ndim == 0 ? 1 : at.k;  // the kernel sees a 0-d tensor as [1] and its outputs too
  k.dim = ia.ndim == 0 ? 0 : d;
  k.largest = at.largest ? 1 : 0;
  k.sorted = at.sorted ? 1 : 0;
  r.has_kernel_attrs = true;
  return r;
}

}  // namespace detail

Tensor cumsum(const Tensor& a, int64_t dim, std::optional<Dtype> dtype) {
  const MetaResult m = run_meta(XD_OP_CUMSUM, "cumsum", {&a}, CumsumAttrs{dim, dtype});
  auto out = allocate_output(m, 0);
  if (out->numel > 0) {
    // torch casts the input to the result's dtype before summing (an f32 input with dtype=i32
    // truncates each element first), so the kernel is keyed on, and reads, that dtype.
    const Tensor in = a.dtype() == m.key ? a : a.to(m.key);
    launch(XD_OP_CUMSUM, m.key, *m.device, {rank1_if_scalar(arg(checked(in)))}, {rank1_if_scalar(arg(*out))},
           m.kernel_attrs_ptr());
  }
  return Tensor(std::move(out));
}

std::tuple<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted) {
  const MetaResult m = run_meta(XD_OP_TOPK, "topk", {&a}, TopkAttrs{k, dim, largest, sorted});
  auto values = allocate_output(m, 0);
  auto indices = allocate_output(m, 1);
  if (values->numel > 0)
    launch(XD_OP_TOPK, m.key, *m.device, {rank1_if_scalar(arg(checked(a)))},
           {rank1_if_scalar(arg(*values)), rank1_if_scalar(arg(*indices))}, m.kernel_attrs_ptr());
  return {Tensor(std::move(values)), Tensor(std::move(indices))};
}

}  // namespace xd
