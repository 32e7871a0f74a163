// Raw memory for the core's caching allocator: device USM (zeMemAllocDevice) as the handle, so a
// block is (USM pointer, byte offset); host USM for pinned transfers; copies appended to the
// stream's command list.
//
// Freeing: the Level Zero spec requires that memory is no longer in use by the device when
// zeMemFree is called, but the core frees without synchronizing (its caching allocator releases
// cached segments as soon as no block is allocated in them, while kernels that used them may
// still be queued; the OpenCL backend is safe there because clReleaseMemObject defers the free).
// So every free here waits for the device first: through zeMemFreeExt with the blocking policy
// where the driver offers it (it waits only for the commands using that memory), else by
// synchronizing every stream of the context before zeMemFree.
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"

#include <string>

namespace xd::l0 {

namespace {

// Every allocation is aligned for the widest vector load of the kernels (a long4 / double4).
constexpr size_t kAlignment = 64;

template <class F>
xd_status run(F&& f) {
  return plugin::guarded(host(), std::forward<F>(f));
}

void alloc_failed(ze_result_t r, const char* call, uint64_t nbytes, const device& d) {
  const std::string what = std::string(call) + " of " + std::to_string(nbytes) + " bytes on " + d.props.name;
  if (r == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY || r == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    throw plugin::error(XD_ERR_OUT_OF_MEMORY, "levelzero: " + what + " failed: " + ze_result_string(r));
  fail(r, what);
}

xd_status mem_alloc(void*, int32_t dev, uint64_t nbytes, void** handle) {
  return run([&] {
    device& d = device_at(dev);
    ze_device_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
    desc.ordinal = 0;
    const ze_result_t r = zeMemAllocDevice(d.context, &desc, nbytes == 0 ? 1 : nbytes, kAlignment, d.handle, handle);
    if (r != ZE_RESULT_SUCCESS) alloc_failed(r, "zeMemAllocDevice", nbytes, d);
  });
}

// Frees USM that commands on the device may still use (see the top of this file). On error the
// memory is not freed: a leak, never a use after free.
void free_when_idle(const device& d, void* p, const char* what) {
  if (p == nullptr) return;
  if (d.blocking_free) {
    ze_memory_free_ext_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC;
    desc.freePolicy = ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE;
    check(zeMemFreeExt(d.context, &desc, p), (std::string("zeMemFreeExt(") + what + ", blocking free)").c_str());
    return;
  }
  synchronize_streams(d.context);
  check(zeMemFree(d.context, p), (std::string("zeMemFree(") + what + ")").c_str());
}

xd_status mem_free(void*, int32_t dev, void* handle) {
  return run([&] { free_when_idle(device_at(dev), handle, "device"); });
}

xd_status host_alloc(void*, int32_t dev, uint64_t nbytes, void** ptr) {
  return run([&] {
    device& d = device_at(dev);
    ze_host_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    const ze_result_t r = zeMemAllocHost(d.context, &desc, nbytes == 0 ? 1 : nbytes, kAlignment, ptr);
    if (r != ZE_RESULT_SUCCESS) alloc_failed(r, "zeMemAllocHost", nbytes, d);
  });
}

// Pinned memory may be the source or target of a copy still queued, so it is freed the same way.
xd_status host_free(void*, int32_t dev, void* ptr) {
  return run([&] { free_when_idle(device_at(dev), ptr, "host"); });
}

// True when `p` is USM the driver knows (host or device memory of this context). A copy from
// pageable memory must complete before returning: the caller may free or reuse it at once.
bool is_usm(const device& d, const void* p) {
  ze_memory_allocation_properties_t props{};
  props.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ze_device_handle_t owner = nullptr;
  if (zeMemGetAllocProperties(d.context, p, &props, &owner) != ZE_RESULT_SUCCESS) return false;
  return props.type != ZE_MEMORY_TYPE_UNKNOWN;
}

void copy(stream& s, void* dst, const void* src, uint64_t n, bool blocking, const char* what) {
  if (n == 0) return;
  s.submit([&](ze_command_list_handle_t l) {
    check(zeCommandListAppendMemoryCopy(l, dst, src, n, nullptr, 0, nullptr), what);
  });
  if (blocking) s.synchronize();
}

xd_status copy_h2d(void*, int32_t dev, xd_stream st, void* dst, uint64_t dst_offset, const void* src, uint64_t n,
                   int32_t blocking) {
  return run([&] {
    stream& s = *static_cast<stream*>(st);
    copy(s, static_cast<char*>(dst) + dst_offset, src, n, blocking != 0 || !is_usm(device_at(dev), src),
         "zeCommandListAppendMemoryCopy(host to device)");
  });
}

xd_status copy_d2h(void*, int32_t dev, xd_stream st, void* dst, const void* src, uint64_t src_offset, uint64_t n,
                   int32_t blocking) {
  return run([&] {
    stream& s = *static_cast<stream*>(st);
    copy(s, dst, static_cast<const char*>(src) + src_offset, n, blocking != 0 || !is_usm(device_at(dev), dst),
         "zeCommandListAppendMemoryCopy(device to host)");
  });
}

xd_status copy_d2d(void*, int32_t, xd_stream st, void* dst, uint64_t dst_offset, const void* src, uint64_t src_offset,
                   uint64_t n) {
  return run([&] {
    copy(*static_cast<stream*>(st), static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset, n,
         false, "zeCommandListAppendMemoryCopy(device to device)");
  });
}

}  // namespace

void fill_memory_api(xd_plugin_api& api) {
  plugin::set_memory(api, {mem_alloc, mem_free, host_alloc, host_free, copy_h2d, copy_d2h, copy_d2d});
}

}  // namespace xd::l0
