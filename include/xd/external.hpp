// Memory the library does not own: wrapping it as a tensor (from_blob) and handing a tensor's
// memory to other code (data_ptr). The Python module's NumPy and DLPack exchange is built on these.
//
// Memory of a device: on a device whose allocations are host memory (DeviceProperties::
// host_pointers, the CPU backend) it is a host address. On a device whose memory is a handle it is
// that backend's allocation handle: a cl_mem for OpenCL (of the context the OpenCL backend
// created for that device, e.g. one that data_ptr returned), a USM device pointer for Level Zero.
//
// Thread safety: both functions may be called from any thread. The deleter runs on whichever thread
// drops the last reference.
#pragma once

#include <xd/tensor.hpp>

#include <cstdint>
#include <functional>

namespace xd {

// Wraps `data` as a tensor of `sizes`/`strides` (elements) and `dtype` on `device`, element
// [0,...,0] at `storage_offset` elements from `data`. No copy: ops read and write that memory.
//
// Ownership and lifetime: the memory stays the caller's until every tensor using it (the result
// and all views, copies of the Tensor object and tensors the compiler holds) is gone; then
// `deleter(data)` runs exactly once. An empty deleter means the library never frees it: the caller
// must then keep it alive for as long as any such tensor exists. The memory never enters the
// caching allocator. On a device whose memory is not host memory, the device is synchronised
// (xd::synchronize) before the deleter runs, so no kernel still uses it; a failure there is logged
// and the deleter runs anyway. An exception thrown by the deleter is caught and logged (it runs
// from a destructor).
//
// Requirements: a host pointer must be aligned to the dtype's size; strides are non-negative (as
// everywhere in the library; overlapping strides such as 0 are allowed, like expand()'s views,
// but writing through them is a LayoutError in the ops that check it).
//
// Errors (nothing is wrapped and the deleter is not called when one is thrown):
//   DtypeError  `dtype` is not a Dtype value
//   DeviceError `device` is not a visible device
//   LayoutError more than kMaxDims dims
//   ValueError  sizes and strides of different lengths; a negative size, stride or storage
//               offset; a null `data` with elements to hold; a host pointer not aligned to the
//               dtype's size; an element count or byte extent that overflows int64
Tensor from_blob(void* data, IntList sizes, IntList strides, Dtype dtype, Device device,
                 std::function<void(void*)> deleter, int64_t storage_offset = 0);
// Contiguous (row-major) strides.
Tensor from_blob(void* data, IntList sizes, Dtype dtype, Device device, std::function<void(void*)> deleter);

// Where a tensor's element [0,...,0] lives.
struct DataPtr {
  // Host-memory devices: the host address of element [0,...,0] of the view (offset is 0).
  // Other devices: the allocation handle (cl_mem, USM pointer) that holds the tensor's memory;
  // element [0,...,0] is `offset` bytes into it. A tensor's memory may be a part of a larger
  // allocation that the caching allocator sub-allocates, so offset is usually not 0.
  void* ptr = nullptr;
  uint64_t offset = 0;  // bytes
  bool host = false;    // ptr is a host address (the device has host_pointers)
};
// Valid while the tensor's storage lives (keep a Tensor referring to it). Work enqueued on the
// device's streams may still be writing that memory: synchronise the tensor's stream before
// reading it outside the library. Errors: ValueError for an undefined tensor.
DataPtr data_ptr(const Tensor& t);

}  // namespace xd
