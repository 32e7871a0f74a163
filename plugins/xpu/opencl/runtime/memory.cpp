// Device memory: one cl_mem per mem_alloc (the core's caching allocator sub-allocates it and
// hands kernels (cl_mem, byte offset) views), pinned host memory from CL_MEM_ALLOC_HOST_PTR
// buffers kept mapped, and copies with offsets.
//
// Asynchronous copies: a non-blocking host<->device copy is asynchronous only when the host side
// lies in pinned memory from host_alloc, whose owner promises to keep it alive until the stream
// passes the copy. Pageable memory is copied synchronously (as CUDA does), so a caller's
// temporary buffer can never be read after it is gone.
#include "runtime/platform.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"

#include <map>
#include <mutex>

namespace xd::ocl {

namespace {

struct pinned_block {
  uint64_t size;
  cl_mem buffer;
  device* dev;
};

std::mutex g_pinned_mutex;
std::map<const char*, pinned_block>& pinned() {
  static auto* blocks = new std::map<const char*, pinned_block>();
  return *blocks;
}

bool is_pinned(const void* p, uint64_t n) {
  const char* c = static_cast<const char*>(p);
  const std::lock_guard lock(g_pinned_mutex);
  auto& blocks = pinned();
  auto it = blocks.upper_bound(c);
  if (it == blocks.begin()) return false;
  --it;
  return c >= it->first && c + n <= it->first + it->second.size;
}

cl_mem as_mem(void* handle, const char* what) {
  if (handle == nullptr) throw plugin::error(XD_ERR_INVALID_ARGUMENT, std::string("opencl: ") + what + " is null");
  return static_cast<cl_mem>(handle);
}

xd_status api_mem_alloc(void*, int32_t index, uint64_t nbytes, void** handle) {
  return plugin::guarded(host(), [&] {
    device& d = get_device(index);
    if (handle == nullptr) throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: mem_alloc: handle is null");
    *handle = nullptr;
    if (d.max_alloc != 0 && nbytes > d.max_alloc)
      throw plugin::error(XD_ERR_OUT_OF_MEMORY,
                          "opencl: cannot allocate " + std::to_string(nbytes) + " bytes on " + d.name +
                              ": more than the device's largest single allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                              std::to_string(d.max_alloc) + " bytes)");
    cl_int err = CL_SUCCESS;
    // Zero bytes still gets a real buffer, so every handle is distinct and freeable.
    cl_mem m =
        clCreateBuffer(d.context, CL_MEM_READ_WRITE, nbytes == 0 ? 1 : static_cast<size_t>(nbytes), nullptr, &err);
    if (err != CL_SUCCESS)
      throw plugin::error(status_of(err) == XD_ERR_DEVICE ? XD_ERR_OUT_OF_MEMORY : status_of(err),
                          "opencl: clCreateBuffer of " + std::to_string(nbytes) + " bytes on " + d.name +
                              " failed: " + cl_error_string(err));
    *handle = m;
  });
}

xd_status api_mem_free(void*, int32_t index, void* handle) {
  return plugin::guarded(host(), [&] {
    get_device(index);
    // Released at once: OpenCL keeps the memory until enqueued commands using it are done.
    check(clReleaseMemObject(as_mem(handle, "mem_free handle")), "clReleaseMemObject");
  });
}

xd_status api_host_alloc(void*, int32_t index, uint64_t nbytes, void** ptr) {
  return plugin::guarded(host(), [&] {
    device& d = get_device(index);
    if (ptr == nullptr) throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: host_alloc: ptr is null");
    *ptr = nullptr;
    const size_t n = nbytes == 0 ? 1 : static_cast<size_t>(nbytes);
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(d.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, nullptr, &err);
    if (err != CL_SUCCESS)
      throw plugin::error(XD_ERR_OUT_OF_MEMORY, "opencl: cannot allocate " + std::to_string(nbytes) +
                                                    " bytes of pinned host memory: " + cl_error_string(err));
    void* p =
        clEnqueueMapBuffer(d.aux_queue(), m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      clReleaseMemObject(m);
      throw_cl(err, "mapping pinned host memory");
    }
    {
      const std::lock_guard lock(g_pinned_mutex);
      pinned()[static_cast<const char*>(p)] = pinned_block{n, m, &d};
    }
    *ptr = p;
  });
}

xd_status api_host_free(void*, int32_t, void* ptr) {
  return plugin::guarded(host(), [&] {
    if (ptr == nullptr) return;
    pinned_block b{};
    {
      const std::lock_guard lock(g_pinned_mutex);
      auto it = pinned().find(static_cast<const char*>(ptr));
      if (it == pinned().end())
        throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: host_free: pointer was not returned by host_alloc");
      b = it->second;
      pinned().erase(it);
    }
    cl_command_queue q = b.dev->aux_queue();
    check(clEnqueueUnmapMemObject(q, b.buffer, ptr, 0, nullptr, nullptr), "clEnqueueUnmapMemObject");
    check(clFinish(q), "clFinish");
    check(clReleaseMemObject(b.buffer), "clReleaseMemObject");
  });
}

xd_status api_copy_h2d(void*, int32_t index, xd_stream s, void* dst, uint64_t dst_offset, const void* src,
                       uint64_t nbytes, int32_t blocking) {
  return plugin::guarded(host(), [&] {
    cl_command_queue q = submit_queue(index, s);
    if (nbytes == 0) return;
    if (src == nullptr) throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: copy_h2d: source is null");
    const bool block = blocking != 0 || !is_pinned(src, nbytes);
    check(clEnqueueWriteBuffer(q, as_mem(dst, "copy_h2d destination"), block ? CL_TRUE : CL_FALSE,
                               static_cast<size_t>(dst_offset), static_cast<size_t>(nbytes), src, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    if (!block) clFlush(q);
  });
}

xd_status api_copy_d2h(void*, int32_t index, xd_stream s, void* dst, const void* src, uint64_t src_offset,
                       uint64_t nbytes, int32_t blocking) {
  return plugin::guarded(host(), [&] {
    cl_command_queue q = submit_queue(index, s);
    if (nbytes == 0) return;
    if (dst == nullptr) throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: copy_d2h: destination is null");
    const bool block = blocking != 0 || !is_pinned(dst, nbytes);
    check(clEnqueueReadBuffer(q, as_mem(const_cast<void*>(src), "copy_d2h source"), block ? CL_TRUE : CL_FALSE,
                              static_cast<size_t>(src_offset), static_cast<size_t>(nbytes), dst, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    if (!block) clFlush(q);
  });
}

// Overlapping ranges of one buffer (CL_MEM_COPY_OVERLAP for clEnqueueCopyBuffer) go through a
// temporary buffer, giving memmove semantics.
xd_status api_copy_d2d(void*, int32_t index, xd_stream s, void* dst, uint64_t dst_offset, const void* src,
                       uint64_t src_offset, uint64_t nbytes) {
  return plugin::guarded(host(), [&] {
    cl_command_queue q = submit_queue(index, s);
    if (nbytes == 0) return;
    cl_mem d = as_mem(dst, "copy_d2d destination");
    cl_mem sm = as_mem(const_cast<void*>(src), "copy_d2d source");
    const size_t n = static_cast<size_t>(nbytes);
    const bool overlap = d == sm && dst_offset < src_offset + nbytes && src_offset < dst_offset + nbytes;
    if (!overlap) {
      check(clEnqueueCopyBuffer(q, sm, d, static_cast<size_t>(src_offset), static_cast<size_t>(dst_offset), n, 0,
                                nullptr, nullptr),
            "clEnqueueCopyBuffer");
    } else if (dst_offset != src_offset) {
      cl_int err = CL_SUCCESS;
      cl_mem tmp = clCreateBuffer(get_device(index).context, CL_MEM_READ_WRITE, n, nullptr, &err);
      check(err, "clCreateBuffer (overlapping copy)");
      err = clEnqueueCopyBuffer(q, sm, tmp, static_cast<size_t>(src_offset), 0, n, 0, nullptr, nullptr);
      if (err == CL_SUCCESS)
        err = clEnqueueCopyBuffer(q, tmp, d, 0, static_cast<size_t>(dst_offset), n, 0, nullptr, nullptr);
      clReleaseMemObject(tmp);  // freed once the copies are done
      check(err, "clEnqueueCopyBuffer (overlapping copy)");
    }
    clFlush(q);
  });
}

}  // namespace

void fill_memory_api(xd_plugin_api& api) {
  plugin::set_memory(
      api, {api_mem_alloc, api_mem_free, api_host_alloc, api_host_free, api_copy_h2d, api_copy_d2h, api_copy_d2d});
}

}  // namespace xd::ocl
