// What an op's meta function takes and gives back. A meta function validates one call (shapes,
// dtypes, devices, layouts, attribute values; each failure the typed xd::Error with the op's
// message) and computes the outputs' shapes and dtypes, the device and dispatch dtype, and the
// xd_attrs_* struct the kernel receives. It allocates nothing and launches nothing: the public
// op then allocates the outputs from the result (allocate_output) and launches. Pure: the same
// arguments give the same result, so tests can compare it with what the op produced.
#pragma once

#include <xd/plugin_abi.h>
#include <xd/tensor.hpp>

#include "dispatch/launch.hpp"
#include "tensor/tensor_impl.hpp"

#include <memory>
#include <span>

namespace xd::detail {

struct MetaArgs {
  xd_op op;
  const char* name;                       // the public function's name, for messages (csr ops: "mm", ...)
  std::span<const Tensor* const> inputs;  // in schema order; nullptr: an absent optional input
  const void* attrs;                      // the schema's attribute struct (attrs.hpp)
};

// One output as the op will allocate it. Only outputs below MetaResult::num_outputs are written
// (add_output, add_absent_output); no member is initialised before, as small ops pay for stores.
struct TensorMeta {
  bool present;  // false: an optional output not asked for (the norms' backward)
  Dtype dtype;
  int ndim;
  int64_t sizes[kMaxDims];  // the first ndim entries
  IntList shape() const { return IntList(sizes, static_cast<size_t>(ndim)); }
};

// The kernel's attribute struct, whichever the op has (its first member is always struct_size).
union KernelAttrs {
  xd_attrs_scalar scalar;
  xd_attrs_arange arange;
  xd_attrs_random random;
  xd_attrs_gelu gelu;
  xd_attrs_reduce reduce;
  xd_attrs_dim dim;
  xd_attrs_blas blas;
  xd_attrs_rms_norm rms_norm;
  xd_attrs_rms_norm_backward rms_norm_backward;
  xd_attrs_layer_norm_backward layer_norm_backward;
  xd_attrs_int4 int4;
  xd_attrs_clamp clamp;
  xd_attrs_round round;
  xd_attrs_attention attention;
  xd_attrs_conv2d conv2d;
  xd_attrs_pool2d pool2d;
  xd_attrs_topk topk;
  xd_attrs_scaled_mm scaled_mm;
};

struct MetaResult {
  DeviceRecord* device = nullptr;  // where the kernel runs and the outputs live
  Dtype key = Dtype::f32;          // the dtype the dispatch table is indexed by (see xd_op)
  int num_outputs = 0;
  TensorMeta outputs[kMaxOutputs];
  bool has_kernel_attrs = false;
  KernelAttrs kernel_attrs;
  const void* kernel_attrs_ptr() const { return has_kernel_attrs ? &kernel_attrs : nullptr; }
  size_t kernel_attrs_size() const { return has_kernel_attrs ? kernel_attrs.scalar.struct_size : 0; }
};

using MetaFn = MetaResult (*)(const MetaArgs&);

template <class Attrs>
const Attrs& attrs_of(const MetaArgs& a) {
  return *static_cast<const Attrs*>(a.attrs);
}

// Appends an output of `ndim` dims to `m`.
inline TensorMeta& add_output(MetaResult& m, const int64_t* sizes, int ndim, Dtype dtype) {
  TensorMeta& o = m.outputs[m.num_outputs++];
  o.present = true;
  o.dtype = dtype;
  o.ndim = ndim;
  for (int i = 0; i < ndim; ++i) o.sizes[i] = sizes[i];
  return o;
}
inline void add_absent_output(MetaResult& m) { m.outputs[m.num_outputs++].present = false; }

// The result of an op along one dim of `a` (softmax, index_select, gather): on a's device, keyed on
// a's dtype, one output of a's dtype and the given shape, and xd_attrs_dim holding `dim`.
inline MetaResult dim_op_result(const TensorImpl& a, const int64_t* sizes, int ndim, int dim) {
  MetaResult r;
  r.device = &a.device_record();
  r.key = a.dtype;
  add_output(r, sizes, ndim, a.dtype);
  xd_attrs_dim& k = r.kernel_attrs.dim;
  k = xd_attrs_dim{};
  k.struct_size = sizeof k;
  k.dim = dim;
  r.has_kernel_attrs = true;
  return r;
}

// The impl of a tensor the meta function has checked is defined (inline, unlike Tensor::impl()).
inline const TensorImpl& checked(const Tensor& t) { return *t.impl_ptr(); }

// Output i of `m`, allocated on m.device; nullptr when it is absent.
inline std::shared_ptr<TensorImpl> allocate_output(const MetaResult& m, int i) {
  const TensorMeta& o = m.outputs[i];
  return o.present ? allocate_tensor(*m.device, o.shape(), o.dtype) : nullptr;
}

}  // namespace xd::detail
