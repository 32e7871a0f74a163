// from_blob and data_ptr (include/xd/external.hpp): tensors over memory the library does not own.
//
// The wrapping TensorImpl is the owner of its storage like an allocated tensor's, but its Storage
// has neither a caching-allocator block nor a pinned block, so ~Storage frees nothing; the
// caller's deleter runs from the shared_ptr's own deleter instead. Views keep that shared_ptr
// (make_view's `owner`), so the deleter runs when the last view goes.
#include <xd/error.hpp>
#include <xd/external.hpp>
#include <xd/runtime.hpp>

#include "dtype/dtype_check.hpp"
#include "tensor/shape.hpp"
#include "tensor/tensor_impl.hpp"
#include "util/log.hpp"

#include <string>
#include <utility>

namespace xd {

namespace {

using detail::TensorImpl;

// Runs when the last reference to the wrapping impl goes; never throws (a destructor path).
struct ExternalDeleter {
  std::function<void(void*)> fn;
  Device device;
  bool host = false;

  void operator()(TensorImpl* impl) const noexcept {
    void* data = impl->own_storage.handle;
    delete impl;  // NOLINT(cppcoreguidelines-owning-memory): created by new in from_blob
    if (!fn) return;
    if (!host) {
      // Kernels enqueued on the device's streams may still use the memory; the caller frees it
      // right after this, so wait for them.
      try {
        synchronize(device);
      } catch (const std::exception& e) {
        detail::log(detail::LogLevel::error,
                    "from_blob: synchronising " + device.str() + " before the deleter failed: " + e.what());
      }
    }
    try {
      fn(data);
    } catch (const std::exception& e) {
      detail::log(detail::LogLevel::error, std::string("from_blob: the deleter threw: ") + e.what());
    } catch (...) {
      detail::log(detail::LogLevel::error, "from_blob: the deleter threw a non-std exception");
    }
  }
};

std::string list_str(IntList l) { return detail::shape_str(l.data(), static_cast<int>(l.size())); }

}  // namespace

Tensor from_blob(void* data, IntList sizes, IntList strides, Dtype dtype, Device device,
                 std::function<void(void*)> deleter, int64_t storage_offset) {
  constexpr const char* op = "from_blob";
  detail::check_dtype_value(dtype, op);
  detail::DeviceRecord& dev = detail::Registry::get().device(device);
  if (sizes.size() != strides.size())
    throw ValueError(std::string(op) + ": sizes " + list_str(sizes) + " and strides " + list_str(strides) +
                     " have different lengths (" + std::to_string(sizes.size()) + " and " +
                     std::to_string(strides.size()) + ")");
  const int ndim = static_cast<int>(sizes.size());
  detail::check_rank(ndim);
  if (storage_offset < 0)
    throw ValueError(std::string(op) + ": storage_offset must be >= 0, got " + std::to_string(storage_offset));
  for (int i = 0; i < ndim; ++i) {
    if (sizes[static_cast<size_t>(i)] < 0)
      throw ValueError(std::string(op) + ": sizes must be >= 0, got " + list_str(sizes));
    if (strides[static_cast<size_t>(i)] < 0)
      throw ValueError(std::string(op) + ": strides must be >= 0 (negative strides are not supported), got " +
                       list_str(strides));
  }
  // The element count as every tensor's: 0 with any size 0 (whatever the others' product), a
  // ValueError when it overflows int64. The row-major strides it also gives are not used.
  int64_t unused_strides[kMaxDims];
  const int64_t numel = detail::contiguous_strides(sizes.data(), ndim, unused_strides, op);
  int64_t last = storage_offset;  // the largest element index reached
  bool overflow = false;
  uint64_t nbytes = 0;
  if (numel > 0) {
    for (int i = 0; i < ndim; ++i) {
      int64_t reach = 0;
      overflow = overflow ||
                 __builtin_mul_overflow(sizes[static_cast<size_t>(i)] - 1, strides[static_cast<size_t>(i)], &reach) ||
                 __builtin_add_overflow(last, reach, &last);
    }
    // Bytes from data to the end of the last element.
    overflow = overflow || __builtin_add_overflow(static_cast<uint64_t>(last), uint64_t{1}, &nbytes) ||
               __builtin_mul_overflow(nbytes, itemsize(dtype), &nbytes) || nbytes > static_cast<uint64_t>(INT64_MAX);
    if (overflow)
      throw ValueError(std::string(op) + ": sizes " + list_str(sizes) + " with strides " + list_str(strides) +
                       " and storage_offset " + std::to_string(storage_offset) +
                       " reach past the largest byte offset int64 can hold");
    if (data == nullptr)
      throw ValueError(std::string(op) + ": data is null but the tensor has " + std::to_string(numel) +
                       " elements (a null pointer is accepted only for an empty tensor)");
  }
  const bool host = dev.props.host_pointers;
  if (host && reinterpret_cast<uintptr_t>(data) % itemsize(dtype) != 0)
    throw ValueError(std::string(op) + ": the host pointer " + std::to_string(reinterpret_cast<uintptr_t>(data)) +
                     " is not aligned to " + std::to_string(itemsize(dtype)) + " bytes, the size of " +
                     dtype_name(dtype) + " (copy the data into an aligned buffer)");

  // The caller's deleter joins only once the shared_ptr exists: if allocating its control block
  // throws, the shared_ptr runs our deleter on the new impl, and the memory must stay the caller's.
  std::shared_ptr<TensorImpl> impl(new TensorImpl, ExternalDeleter{{}, device, host});
  std::get_deleter<ExternalDeleter>(impl)->fn = std::move(deleter);
  detail::Storage& s = impl->own_storage;
  s.device = &dev;
  s.handle = data;
  s.offset = 0;
  s.nbytes = nbytes;
  for (int i = 0; i < ndim; ++i) {
    impl->sizes[i] = sizes[static_cast<size_t>(i)];
    impl->strides[i] = strides[static_cast<size_t>(i)];
  }
  impl->ndim = ndim;
  impl->dtype = dtype;
  impl->storage_offset = storage_offset;
  impl->numel = numel;
  return Tensor(std::move(impl));
}

Tensor from_blob(void* data, IntList sizes, Dtype dtype, Device device, std::function<void(void*)> deleter) {
  std::vector<int64_t> strides(sizes.size());
  int64_t step = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = step;
    // Overflow and negative sizes are reported by the general overload; keep the strides defined.
    if (sizes[i] > 0 && __builtin_mul_overflow(step, sizes[i], &step)) step = 1;
  }
  return from_blob(data, sizes, strides, dtype, device, std::move(deleter), 0);
}

DataPtr data_ptr(const Tensor& t) {
  const TensorImpl& impl = detail::checked_impl(t, "data_ptr", "t");
  DataPtr out;
  out.host = impl.device_record().props.host_pointers;
  if (out.host) {
    out.ptr = static_cast<char*>(impl.storage->handle) + impl.byte_offset();
  } else {
    out.ptr = impl.storage->handle;
    out.offset = impl.byte_offset();
  }
  return out;
}

}  // namespace xd
