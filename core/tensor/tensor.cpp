// Tensor basics: allocation, accessors, host access.
#include <xd/error.hpp>
#include <xd/runtime.hpp>
#include <xd/tensor.hpp>

#include "compiler/trace.hpp"
#include "dtype/dtype_check.hpp"
#include "runtime/current.hpp"
#include "tensor/shape.hpp"
#include "tensor/tensor_impl.hpp"

#include <cstring>

namespace xd {

namespace detail {

bool TensorImpl::is_contiguous() const {
  int64_t expected = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expected) return numel == 0;
    expected *= sizes[d];
  }
  return true;
}

namespace {
// A contiguous tensor of `sizes` without memory yet; `nbytes` receives its byte count. Always
// inlined: allocate_tensor is on every op's path.
[[gnu::always_inline]] inline std::shared_ptr<TensorImpl> contiguous_impl(IntList sizes, Dtype dtype,
                                                                          uint64_t& nbytes) {
  auto t = std::make_shared<TensorImpl>();
  const int ndim = static_cast<int>(sizes.size());
  check_rank(ndim);
  check_dtype_value(dtype, "empty");
  // A plain loop: a few dims, where an inlined variable-length memcpy becomes `rep movs`, whose
  // start-up cost is a visible part of a small op.
  for (int i = 0; i < ndim; ++i) t->sizes[i] = sizes[static_cast<size_t>(i)];
  t->ndim = ndim;
  t->dtype = dtype;
  t->numel = contiguous_strides(t->sizes, ndim, t->strides, "empty");
  if (__builtin_mul_overflow(static_cast<uint64_t>(t->numel), itemsize(dtype), &nbytes))
    throw OutOfMemoryError("cannot allocate " + shape_str(t->sizes, ndim) + " " + dtype_name(dtype) +
                           ": the byte count overflows 64 bits");
  return t;
}
}  // namespace

std::shared_ptr<TensorImpl> allocate_tensor(DeviceRecord& dev, IntList sizes, Dtype dtype) {
  uint64_t nbytes = 0;
  auto t = contiguous_impl(sizes, dtype, nbytes);
  Storage& s = t->own_storage;
  s.device = &dev;
  s.nbytes = nbytes;
  s.block = dev.allocator->allocate(nbytes, current_stream_state(dev).id);
  s.handle = s.block->segment;
  s.offset = s.block->offset;
  if (compiler::Tracer* tr = compiler::active_tracer()) [[unlikely]]
    tr->on_allocate(t);
  return t;
}

std::shared_ptr<TensorImpl> allocate_pinned_tensor(DeviceRecord& host, DeviceRecord& pinned_for, IntList sizes,
                                                   Dtype dtype) {
  uint64_t nbytes = 0;
  auto t = contiguous_impl(sizes, dtype, nbytes);
  Storage& s = t->own_storage;
  s.device = &host;
  s.nbytes = nbytes;
  s.pinned = pinned_for.pinned->allocate(nbytes);
  s.pinned_for = &pinned_for;
  s.handle = s.pinned->segment;  // a host pointer: the source's segments are host memory
  s.offset = s.pinned->offset;
  return t;
}

std::shared_ptr<TensorImpl> make_view(const std::shared_ptr<const TensorImpl>& base, int ndim, const int64_t* sizes,
                                      const int64_t* strides, int64_t storage_offset, Dtype dtype, const char* op) {
  auto t = std::make_shared<TensorImpl>();
  t->storage = base->storage;
  t->owner = base->owner ? base->owner : base;
  t->ndim = ndim;
  t->dtype = dtype;
  t->storage_offset = storage_offset;
  int64_t n = 1;
  bool overflow = false, empty = false;
  for (int i = 0; i < ndim; ++i) {
    t->sizes[i] = sizes[i];
    t->strides[i] = strides[i];
    empty = empty || sizes[i] == 0;
    overflow = overflow || __builtin_mul_overflow(n, sizes[i], &n);
  }
  // expand() and friends can describe more elements than int64 counts with stride-0 dims; such a
  // view would report a wrapped numel() and every kernel would index it wrongly.
  if (overflow && !empty) [[unlikely]]
    throw ValueError(std::string(op) + ": shape " + shape_str(sizes, ndim) + " has more elements than int64 can count");
  t->numel = empty ? 0 : n;
  return t;
}

const TensorImpl& checked_impl(const Tensor& t, const char* op, const char* arg) {
  if (!t.defined())
    throw ValueError(std::string(op) + ": argument '" + arg +
                     "' is an undefined tensor (default-constructed xd::Tensor)");
  return t.impl();
}

[[noreturn]] void throw_item_numel(int64_t numel) {
  throw ValueError("item(): the tensor has " + std::to_string(numel) +
                   " elements; item() needs exactly one (use to_vector() or at())");
}

// Blocking copy of a contiguous device tensor into host memory.
void device_to_host(const TensorImpl& t, void* dst) {
  if (compiler::Tracer* tr = compiler::active_tracer()) [[unlikely]]
    tr->on_host_read();
  const uint64_t n = static_cast<uint64_t>(t.numel) * itemsize(t.dtype);
  if (n == 0) return;
  DeviceRecord& dev = t.device_record();
  StreamState& s = current_stream_state(dev);
  auto& api = dev.backend->api;
  if (dev.props.host_pointers) {
    check(*dev.backend, api.stream_synchronize(api.ctx, dev.plugin_device, s.handle), "stream_synchronize");
    std::memcpy(dst, static_cast<const char*>(t.storage->handle) + t.byte_offset(), n);
    return;
  }
  check(*dev.backend, api.copy_d2h(api.ctx, dev.plugin_device, s.handle, dst, t.storage->handle, t.byte_offset(), n, 1),
        "copy_d2h");
}

// Blocking copy of host memory into a contiguous device tensor.
void host_to_device(const void* src, TensorImpl& t) {
  if (compiler::Tracer* tr = compiler::active_tracer()) [[unlikely]]
    tr->on_host_write();
  const uint64_t n = static_cast<uint64_t>(t.numel) * itemsize(t.dtype);
  if (n == 0) return;
  DeviceRecord& dev = t.device_record();
  StreamState& s = current_stream_state(dev);
  auto& api = dev.backend->api;
  check(*dev.backend, api.copy_h2d(api.ctx, dev.plugin_device, s.handle, t.storage->handle, t.byte_offset(), src, n, 1),
        "copy_h2d");
}

}  // namespace detail

using detail::TensorImpl;

const detail::TensorImpl& Tensor::impl() const {
  if (!impl_) throw ValueError("this xd::Tensor is undefined (default-constructed); it has no data");
  return *impl_;
}

Dtype Tensor::dtype() const { return impl().dtype; }
Device Tensor::device() const { return impl().device(); }
int Tensor::dim() const { return impl().ndim; }
int64_t Tensor::size(int64_t d) const { return impl_->sizes[detail::normalize_dim(d, impl().ndim, "size")]; }
int64_t Tensor::stride(int64_t d) const { return impl_->strides[detail::normalize_dim(d, impl().ndim, "stride")]; }
std::span<const int64_t> Tensor::sizes() const { return {impl().sizes, static_cast<size_t>(impl_->ndim)}; }
std::span<const int64_t> Tensor::strides() const { return {impl().strides, static_cast<size_t>(impl_->ndim)}; }
int64_t Tensor::storage_offset() const { return impl().storage_offset; }
int64_t Tensor::numel() const { return impl().numel; }
size_t Tensor::nbytes() const { return static_cast<size_t>(impl().numel) * itemsize(impl_->dtype); }
bool Tensor::is_contiguous() const { return impl().is_contiguous(); }

void Tensor::copy_to_host(void* dst, Dtype as) const {
  detail::check_dtype_value(as, "copy_to_host");
  Tensor c = *this;
  if (as != impl().dtype) {
    // The bytes move in the tensor's own dtype and the CPU reference converts them: reading a
    // device's values (to_vector<double>, item, printing) then needs no cast kernel on the
    // device, which a minimal backend may lack, and the conversion is the reference's own.
    const detail::DeviceRecord* host = detail::Registry::get().host_reference();
    if (host != nullptr && host != impl().storage->device) c = c.to(host->device);
    c = c.to(as);
  }
  c = c.contiguous();
  detail::device_to_host(c.impl(), dst);
}

std::vector<uint8_t> Tensor::to_bytes() const {
  std::vector<uint8_t> out(nbytes());
  copy_to_host(out.data(), dtype());
  return out;
}

Tensor Tensor::element(IntList index) const {
  const auto& t = impl();
  if (static_cast<int>(index.size()) != t.ndim)
    throw IndexError("at(): " + std::to_string(index.size()) + " indices given for a " + std::to_string(t.ndim) +
                     "-d tensor; give one index per dim");
  Tensor r = *this;
  for (size_t i = 0; i < index.size(); ++i) r = r.select(0, index[i]);
  return r;
}

void Tensor::record_stream(const Stream& stream) const {
  const auto& t = impl();
  if (stream.state()->device != t.storage->device)
    throw DeviceError("record_stream: the tensor is on " + t.device().str() + " but the stream on " +
                      stream.device().str());
  if (t.storage->block != nullptr)
    t.storage->device->allocator->record_stream(t.storage->block, stream.id(), stream.handle(), stream.state());
}

}  // namespace xd
