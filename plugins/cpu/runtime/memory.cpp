// Device memory of the CPU backend: 64-byte aligned host allocations (a cache line, and enough
// for any vector load), and copies that are plain memcpy because handles are host pointers.
#include <xd/plugin.hpp>

#include "runtime/runtime.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/sysinfo.h>

namespace xd::cpu {

namespace {

constexpr uint64_t kAlignment = 64;

// Requests beyond physical memory plus swap are refused up front: Linux would refuse them anyway
// in its default overcommit mode, and asking the allocator (or a sanitizer's allocator, which
// aborts on absurd sizes) for them gains nothing.
uint64_t allocation_limit() {
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return UINT64_MAX;
  return (static_cast<uint64_t>(info.totalram) + static_cast<uint64_t>(info.totalswap)) * info.mem_unit;
}

xd_status out_of_memory(uint64_t nbytes, const char* why) {
  return plugin::report(XD_ERR_OUT_OF_MEMORY,
                        "cannot allocate " + std::to_string(nbytes) + " bytes of host memory (" + why + ")");
}

xd_status mem_alloc(void*, int32_t device, uint64_t nbytes, void** handle) {
  return plugin::guarded(plugin::host(), [&] {
    if (const xd_status s = check_device(device); s != XD_OK) return s;
    if (handle == nullptr) return plugin::report(XD_ERR_INVALID_ARGUMENT, "mem_alloc: handle is null");
    *handle = nullptr;
    static const uint64_t limit = allocation_limit();
    if (nbytes > limit) return out_of_memory(nbytes, "more than physical memory and swap");
    // Zero bytes still gets a real, unique allocation (one aligned block), so every handle is
    // distinct and freeable; sizes round up to the alignment as aligned_alloc requires.
    const uint64_t rounded = nbytes == 0 ? kAlignment : (nbytes + kAlignment - 1) / kAlignment * kAlignment;
    void* p = std::aligned_alloc(kAlignment, static_cast<size_t>(rounded));
    if (p == nullptr) return out_of_memory(nbytes, "the allocator returned null");
    *handle = p;
    return XD_OK;
  });
}

xd_status mem_free(void*, int32_t device, void* handle) {
  if (const xd_status s = check_device(device); s != XD_OK) return s;
  std::free(handle);
  return XD_OK;
}

// Work is synchronous, so every copy is complete on return whatever `blocking` says. A zero-byte
// copy touches nothing: memcpy with a null pointer is undefined even for zero bytes, and so is
// adding an offset to one.
void copy_bytes(void* dst, const void* src, uint64_t nbytes) { std::memcpy(dst, src, static_cast<size_t>(nbytes)); }

xd_status copy_h2d(void*, int32_t device, xd_stream, void* dst, uint64_t dst_offset, const void* src, uint64_t nbytes,
                   int32_t) {
  if (const xd_status s = check_device(device); s != XD_OK) return s;
  if (nbytes != 0) copy_bytes(static_cast<char*>(dst) + dst_offset, src, nbytes);
  return XD_OK;
}

xd_status copy_d2h(void*, int32_t device, xd_stream, void* dst, const void* src, uint64_t src_offset, uint64_t nbytes,
                   int32_t) {
  if (const xd_status s = check_device(device); s != XD_OK) return s;
  if (nbytes != 0) copy_bytes(dst, static_cast<const char*>(src) + src_offset, nbytes);
  return XD_OK;
}

// Device to device may overlap (a copy within one allocation), hence memmove.
xd_status copy_d2d(void*, int32_t device, xd_stream, void* dst, uint64_t dst_offset, const void* src,
                   uint64_t src_offset, uint64_t nbytes) {
  if (const xd_status s = check_device(device); s != XD_OK) return s;
  if (nbytes != 0)
    std::memmove(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset,
                 static_cast<size_t>(nbytes));
  return XD_OK;
}

}  // namespace

void fill_memory_api(xd_plugin_api& api) {
  // No pinned allocator (host_alloc, host_free): host memory is what this device already uses.
  plugin::set_memory(api, {mem_alloc, mem_free, nullptr, nullptr, copy_h2d, copy_d2h, copy_d2d});
}

}  // namespace xd::cpu
