// Pinned host memory in the core: each device whose backend provides host_alloc/host_free gets
// a CachingHostAllocator over them (made when the device is registered), and a pinned tensor is
// a CPU tensor whose Storage holds one of its blocks (tensor_impl.hpp). The public side is
// Tensor::pin_memory / is_pinned, the non_blocking copies (tensor/copy.cpp) and the
// pinned_memory_* functions of runtime.hpp.
#pragma once

#include "registry/registry.hpp"

#include <memory>

namespace xd::detail {

// The pinned allocator of `dev`, or null when its backend has no host_alloc/host_free or the
// device's memory is host memory already (XD_DEVICE_FLAG_HOST_POINTERS: nothing to pin for).
std::unique_ptr<CachingHostAllocator> make_pinned_allocator(DeviceRecord& dev);

}  // namespace xd::detail
