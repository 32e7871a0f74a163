// Copies: within a device through the COPY kernel (strides, broadcast, dtype casts), between
// devices through the plugins' transfer functions — asynchronously for a non_blocking copy
// between pinned host memory and the device it is pinned for, blocking otherwise. copy_
// validates through the copy schema's meta function (meta_copy, below) like every op.
#include <xd/error.hpp>
#include <xd/ops.hpp>
#include <xd/tensor.hpp>

#include "dispatch/launch.hpp"
#include "dtype/dtype_check.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"
#include "runtime/current.hpp"
#include "tensor/shape.hpp"
#include "tensor/tensor_impl.hpp"

#include <cstring>
#include <utility>
#include <vector>

namespace xd {

namespace detail {
void device_to_host(const TensorImpl& t, void* dst);
void host_to_device(const void* src, TensorImpl& t);

namespace {

// A non_blocking copy between `host` and `dev` is asynchronous only when `host` is pinned for
// `dev`: pageable memory may be freed or reused by its owner as soon as the copy call returns,
// and memory pinned for another device is unknown to `dev` and has no events of its streams.
Block* pinned_for(const TensorImpl& host, const DeviceRecord& dev, bool non_blocking) {
  return non_blocking && host.storage->pinned_for == &dev ? host.storage->pinned : nullptr;
}

// Enqueues the copy between pinned `host_ptr` and `device_side` on `dev`'s current stream and
// returns at once; the pinned block is then not reused before that stream passes the copy.
void copy_pinned_async(DeviceRecord& dev, Block* pinned, void* host_ptr, const TensorImpl& device_side, uint64_t n,
                       bool to_device) {
  const std::shared_ptr<StreamState> stream = current_stream_ptr(dev);
  auto& api = dev.backend->api;
  void* handle = device_side.storage->handle;
  if (to_device) {
    check(*dev.backend,
          api.copy_h2d(api.ctx, dev.plugin_device, stream->handle, handle, device_side.byte_offset(), host_ptr, n, 0),
          "copy_h2d");
  } else {
    check(*dev.backend,
          api.copy_d2h(api.ctx, dev.plugin_device, stream->handle, host_ptr, handle, device_side.byte_offset(), n, 0),
          "copy_d2h");
  }
  dev.pinned->record_copy(pinned, stream->id, stream->handle, stream);
}

// Copies the bytes of contiguous `src` into contiguous `dst` (same dtype and numel, other devices).
void transfer(const TensorImpl& src, TensorImpl& dst, bool non_blocking) {
  const uint64_t n = static_cast<uint64_t>(src.numel) * itemsize(src.dtype);
  if (n == 0) return;
  DeviceRecord& sd = src.device_record();
  DeviceRecord& dd = dst.device_record();
  if (sd.props.host_pointers) {
    auto& api = sd.backend->api;
    check(*sd.backend, api.stream_synchronize(api.ctx, sd.plugin_device, current_stream_state(sd).handle),
          "stream_synchronize");
    char* host = static_cast<char*>(src.storage->handle) + src.byte_offset();
    if (Block* pinned = pinned_for(src, dd, non_blocking)) {
      copy_pinned_async(dd, pinned, host, dst, n, true);
    } else {
      host_to_device(host, dst);
    }
  } else if (dd.props.host_pointers) {
    auto& api = dd.backend->api;
    check(*dd.backend, api.stream_synchronize(api.ctx, dd.plugin_device, current_stream_state(dd).handle),
          "stream_synchronize");
    char* host = static_cast<char*>(dst.storage->handle) + dst.byte_offset();
    if (Block* pinned = pinned_for(dst, sd, non_blocking)) {
      copy_pinned_async(sd, pinned, host, src, n, false);
    } else {
      device_to_host(src, host);
    }
  } else {
    std::vector<char> staging(n);
    device_to_host(src, staging.data());
    host_to_device(staging.data(), dst);
  }
}

// How the memory of copy_'s source and destination meet, as PyTorch's get_overlap_status
// classifies it: none; full (one memory, one layout: copying is a no-op); partial (both dense,
// overlapping otherwise: PyTorch's error); or unknown (strided views whose byte ranges meet,
// which may or may not share elements).
enum class Overlap { none, full, partial, unknown };

// Bytes [first, last) that `t`'s elements span in its segment (strides are never negative).
std::pair<uint64_t, uint64_t> byte_span(const TensorImpl& t) {
  uint64_t extent = 0;
  for (int i = 0; i < t.ndim; ++i)
    extent += static_cast<uint64_t>(t.sizes[i] - 1) * static_cast<uint64_t>(t.strides[i]);
  const uint64_t first = t.byte_offset();
  return {first, first + (extent + 1) * itemsize(t.dtype)};
}

// Every element at its own location, with no gaps: strides, sorted, are the running products.
bool non_overlapping_and_dense(const TensorImpl& t) {
  int order[kMaxDims];
  int n = 0;
  for (int i = 0; i < t.ndim; ++i) {
    if (t.sizes[i] == 1) continue;
    int j = n++;  // insertion by stride: at most kMaxDims dims
    for (; j > 0 && t.strides[order[j - 1]] > t.strides[i]; --j) order[j] = order[j - 1];
    order[j] = i;
  }
  int64_t expected = 1;
  for (int i = 0; i < n; ++i) {
    if (t.strides[order[i]] != expected) return false;
    expected *= t.sizes[order[i]];
  }
  return true;
}

Overlap overlap(const TensorImpl& d, const TensorImpl& s) {
  if (d.storage->handle != s.storage->handle || d.storage->device != s.storage->device || s.numel == 0)
    return Overlap::none;
  const auto [d0, d1] = byte_span(d);
  const auto [s0, s1] = byte_span(s);
  if (d1 <= s0 || s1 <= d0) return Overlap::none;
  if (!non_overlapping_and_dense(d) || !non_overlapping_and_dense(s)) return Overlap::unknown;
  if (d0 == s0 && d1 == s1 && d.dtype == s.dtype && d.ndim == s.ndim) {
    bool same = true;
    for (int i = 0; i < d.ndim; ++i)
      same = same && d.sizes[i] == s.sizes[i] && (d.sizes[i] == 1 || d.strides[i] == s.strides[i]);
    if (same) return Overlap::full;
  }
  return Overlap::partial;
}

}  // namespace
}  // namespace detail

using detail::TensorImpl;

namespace detail {

// Inputs: (self = the source); the destination, which copy_ writes into, is an attribute. Output:
// the destination's shape and dtype. Same device: one COPY kernel (keyed on the source dtype)
// casts, broadcasts and scatters; across devices copy_ stages through transfers.
MetaResult meta_copy(const MetaArgs& m) {
  const TensorImpl& d = checked_impl(*attrs_of<CopyAttrs>(m).destination, "copy_", "self");
  const TensorImpl& s = checked_impl(*m.inputs[0], "copy_", "src");
  int64_t shape[kMaxDims];
  int nd = d.ndim;
  std::copy(d.sizes, d.sizes + d.ndim, shape);
  broadcast_into(shape, nd, s.sizes, s.ndim, "copy_");
  if (nd != d.ndim || !std::equal(shape, shape + nd, d.sizes))
    throw ShapeError("copy_: source of shape " + shape_str(s.sizes, s.ndim) +
                     " does not broadcast to the destination's shape " + shape_str(d.sizes, d.ndim));
  if (d.numel > 0) {
    for (int i = 0; i < d.ndim; ++i)
      if (d.sizes[i] > 1 && d.strides[i] == 0)
        throw LayoutError("copy_: the destination " + shape_str(d.sizes, d.ndim) + " with strides " +
                          shape_str(d.strides, d.ndim) +
                          " has several elements at one memory location (an expanded view); write to a "
                          "contiguous tensor instead");
  }
  MetaResult r;
  r.device = &d.device_record();
  r.key = s.dtype;
  add_output(r, d.sizes, d.ndim, d.dtype);
  return r;
}

}  // namespace detail

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  const detail::MetaResult m = detail::run_meta(XD_OP_COPY, "copy_", {&src}, detail::CopyAttrs{this});
  const TensorImpl& d = impl();
  const TensorImpl& s = src.impl();
  if (d.numel == 0) return *this;
  if (s.storage->device == d.storage->device) {
    switch (detail::overlap(d, s)) {
      case detail::Overlap::none:
        break;
      case detail::Overlap::full:
        return *this;  // every element onto itself
      case detail::Overlap::partial:
        throw LayoutError("copy_: the source " + detail::shape_str(s.sizes, s.ndim) + " with strides " +
                          detail::shape_str(s.strides, s.ndim) + " and the destination " +
                          detail::shape_str(d.sizes, d.ndim) + " with strides " + detail::shape_str(d.strides, d.ndim) +
                          " partially overlap in memory (some elements of each refer to one location); "
                          "copy from src.clone() instead");
      case detail::Overlap::unknown: {
        // Strided views whose ranges interleave: read everything before writing anything.
        auto tmp = detail::allocate_tensor(d.device_record(), src.sizes(), s.dtype);
        detail::launch(XD_OP_COPY, s.dtype, *m.device, {detail::arg(s)}, {detail::arg(*tmp)}, nullptr);
        detail::launch(XD_OP_COPY, m.key, *m.device, {detail::arg_broadcast(*tmp, d.sizes, d.ndim)}, {detail::arg(d)},
                       nullptr);
        return *this;
      }
    }
    detail::launch(XD_OP_COPY, m.key, *m.device, {detail::arg_broadcast(s, d.sizes, d.ndim)}, {detail::arg(d)},
                   nullptr);
    return *this;
  }
  // Across devices: make the source contiguous in the destination's shape on its own device,
  // move the bytes, then cast/scatter on the destination device if needed.
  Tensor staged = src.expand(std::span<const int64_t>(d.sizes, static_cast<size_t>(d.ndim))).contiguous();
  if (d.is_contiguous() && d.dtype == s.dtype) {
    detail::transfer(staged.impl(), const_cast<TensorImpl&>(d), non_blocking);
    return *this;
  }
  auto tmp = detail::allocate_tensor(d.device_record(), sizes(), s.dtype);
  detail::transfer(staged.impl(), *tmp, non_blocking);
  detail::launch(XD_OP_COPY, m.key, *m.device, {detail::arg(*tmp)}, {detail::arg(d)}, nullptr);
  return *this;
}

Tensor Tensor::contiguous() const {
  const auto& t = impl();
  if (t.is_contiguous()) return *this;
  Tensor out(detail::allocate_tensor(t.device_record(), sizes(), t.dtype));
  out.copy_(*this);
  return out;
}

Tensor Tensor::clone() const {
  const auto& t = impl();
  Tensor out(detail::allocate_tensor(t.device_record(), sizes(), t.dtype));
  out.copy_(*this);
  return out;
}

Tensor Tensor::to(Device device, bool non_blocking) const {
  const auto& t = impl();
  auto& dev = detail::Registry::get().device(device);
  if (&dev == t.storage->device) return *this;
  // As in PyTorch, a non_blocking copy to the host lands in pinned memory: into pageable memory
  // it could only block.
  detail::DeviceRecord& from = t.device_record();
  const bool pin = non_blocking && dev.props.host_pointers && from.pinned != nullptr;
  Tensor out(pin ? detail::allocate_pinned_tensor(dev, from, sizes(), t.dtype)
                 : detail::allocate_tensor(dev, sizes(), t.dtype));
  out.copy_(*this, non_blocking);
  return out;
}

Tensor Tensor::to(Dtype dtype) const {
  detail::check_dtype_value(dtype, "to");
  const auto& t = impl();
  if (dtype == t.dtype) return *this;
  Tensor out(detail::allocate_tensor(t.device_record(), sizes(), dtype));
  out.copy_(*this);
  return out;
}

Tensor from_host(const void* data, Dtype dtype, IntList sizes, Device device) {
  detail::check_dtype_value(dtype, "from_host");
  auto t = detail::allocate_tensor(detail::Registry::get().device(device), sizes, dtype);
  if (t->numel > 0 && data == nullptr) throw ValueError("from_host: data is null for a non-empty tensor");
  detail::host_to_device(data, *t);
  return Tensor(std::move(t));
}

Tensor detail::tensor_from_values(const void* data, size_t count, Dtype dtype, IntList sizes, Device device) {
  int64_t strides[kMaxDims];
  const int64_t n = detail::contiguous_strides(sizes.data(), static_cast<int>(sizes.size()), strides, "tensor");
  if (static_cast<int64_t>(count) != n)
    throw ShapeError("tensor: " + std::to_string(count) + " values given for shape " + detail::shape_str(sizes.vec()) +
                     " (" + std::to_string(n) + " elements)");
  return from_host(data, dtype, sizes, device);
}

Tensor tensor(const std::vector<uint8_t>& values, IntList sizes, Dtype dtype, Device device) {
  detail::check_dtype_value(dtype, "tensor");
  if (itemsize(dtype) != 1)
    throw DtypeError(std::string("tensor(bytes): dtype ") + dtype_name(dtype) +
                     " is not one byte wide; use tensor<T>() with the matching C++ type");
  return detail::tensor_from_values(values.data(), values.size(), dtype, sizes, device);
}

}  // namespace xd
