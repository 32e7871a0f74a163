// What a Tensor holds: a Storage (one caching-allocator block on one device) and a strided view
// of it. A tensor that allocated memory owns its Storage inline (one heap allocation per tensor:
// small ops are dominated by allocation, see bench/dispatch_overhead.cpp); a view points at its
// owner's Storage and keeps the owner alive. Sizes and strides are inline arrays (kMaxDims).
#pragma once

#include <xd/tensor.hpp>

#include "registry/registry.hpp"

#include <memory>

namespace xd::detail {

struct Storage {
  DeviceRecord* device = nullptr;
  void* handle = nullptr;  // the plugin's segment handle
  uint64_t offset = 0;     // bytes into handle
  uint64_t nbytes = 0;
  Block* block = nullptr;  // returned to device->allocator on destruction
  // Pinned host memory instead (Tensor::pin_memory): `device` is the host-memory device whose
  // kernels use it, `pinned_for` the device whose pinned allocator it came from and is returned
  // to. The CPU backend sees plain host memory; only the way it is freed differs.
  Block* pinned = nullptr;
  DeviceRecord* pinned_for = nullptr;
  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage() {
    if (block != nullptr) {
      device->allocator->free(block);
    } else if (pinned != nullptr) {
      pinned_for->pinned->free(pinned);
    }
  }
};

// Not enable_shared_from_this: its weak count costs two atomic operations per tensor, and every
// small op creates one; make_view takes the base's shared_ptr instead.
struct TensorImpl {
  Storage own_storage;                        // used by the tensor that allocated the memory
  Storage* storage = &own_storage;            // own_storage, or the owner's
  std::shared_ptr<const TensorImpl> owner;    // keeps the owner alive (views only)
  // Only the first ndim entries are meaningful (and written); the rest stay uninitialised.
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];
  int32_t ndim = 0;
  Dtype dtype = Dtype::f32;
  int64_t storage_offset = 0;  // elements
  int64_t numel = 1;

  // User-provided, so that make_shared does not zero the whole object (the dims arrays are most
  // of it) before the allocator writes the first ndim entries.
  TensorImpl() noexcept {}  // NOLINT(modernize-use-equals-default)
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  DeviceRecord& device_record() const { return *storage->device; }
  Device device() const { return storage->device->device; }
  bool is_contiguous() const;
  uint64_t byte_offset() const { return storage->offset + static_cast<uint64_t>(storage_offset) * itemsize(dtype); }
};

// Allocates a contiguous tensor on `dev`, on the calling thread's current stream of that device.
// Validates sizes (ValueError for negative sizes, LayoutError for too many dims, OutOfMemoryError
// for an overflowing byte count).
std::shared_ptr<TensorImpl> allocate_tensor(DeviceRecord& dev, IntList sizes, Dtype dtype);
// Allocates a contiguous tensor on the host-memory device `host` in pinned memory from
// `pinned_for`'s pinned allocator (which must exist). Validates like allocate_tensor.
std::shared_ptr<TensorImpl> allocate_pinned_tensor(DeviceRecord& host, DeviceRecord& pinned_for, IntList sizes,
                                                   Dtype dtype);
// A new view of `base`'s storage; the view keeps base's owner (base itself when it owns its
// storage) alive. ValueError (naming `op`) when the sizes' product overflows int64.
std::shared_ptr<TensorImpl> make_view(const std::shared_ptr<const TensorImpl>& base, int ndim, const int64_t* sizes,
                                      const int64_t* strides, int64_t storage_offset, Dtype dtype,
                                      const char* op = "view");
inline std::shared_ptr<TensorImpl> make_view(const std::shared_ptr<const TensorImpl>& base, int ndim,
                                             const int64_t* sizes, const int64_t* strides, int64_t storage_offset,
                                             const char* op = "view") {
  return make_view(base, ndim, sizes, strides, storage_offset, base->dtype, op);
}

// Throws ValueError when `t` is undefined; `what` names the argument ("add: argument 'other'").
const TensorImpl& checked_impl(const Tensor& t, const char* op, const char* arg);

}  // namespace xd::detail
