// Header-only C++ helpers for plugin authors. Nothing here is part of the ABI: a plugin may be
// written against plugin_abi.h alone. These helpers make the common parts short:
//  - XD_PLUGIN_EXPORT for the two entry points;
//  - xd::plugin::error + guarded(): throw inside, return a status code at the boundary;
//  - view: read-only accessors over xd_view;
//  - registrar: kernel registration with error checking;
//  - fill_info / fill_api / copy_sized: the struct_size handshake;
//  - host_slot: the host's API table kept from init for the runtime entry points.
// Thread safety: every helper is stateless or owned by the caller, except host_slot (below).
#pragma once

#include <xd/plugin_abi.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#define XD_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

namespace xd::plugin {

// Thrown inside a plugin; guarded() turns it into a status and a host-side message.
class error : public std::runtime_error {
 public:
  error(xd_status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  xd_status code() const noexcept { return code_; }

 private:
  xd_status code_;
};

// Runs `f` and converts any exception into a status reported through the host, so that no
// exception crosses the C boundary. `f` returns void or xd_status.
template <class F>
xd_status guarded(const xd_host_api* host, F&& f) noexcept {
  try {
    if constexpr (std::is_same_v<decltype(f()), void>) {
      f();
      return XD_OK;
    } else {
      return f();
    }
  } catch (const error& e) {
    return host->set_error(host->ctx, e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return host->set_error(host->ctx, XD_ERR_OUT_OF_MEMORY, "host memory exhausted inside the plugin");
  } catch (const std::exception& e) {
    return host->set_error(host->ctx, XD_ERR_INTERNAL, e.what());
  } catch (...) {
    return host->set_error(host->ctx, XD_ERR_INTERNAL, "unknown exception inside the plugin");
  }
}

// Read-only accessors over a kernel's xd_view.
class view {
 public:
  explicit view(const xd_view& v) : v_(&v) {}
  bool present() const { return v_->ndim >= 0; }
  int ndim() const { return v_->ndim; }
  xd_dtype dtype() const { return static_cast<xd_dtype>(v_->dtype); }
  int64_t size(int d) const { return v_->sizes[d]; }
  int64_t stride(int d) const { return v_->strides[d]; }
  const int64_t* sizes() const { return v_->sizes; }
  const int64_t* strides() const { return v_->strides; }
  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < v_->ndim; ++d) n *= v_->sizes[d];
    return n;
  }
  // Row-major contiguous (size-1 dims may have any stride).
  bool is_contiguous() const {
    int64_t expected = 1;
    for (int d = v_->ndim - 1; d >= 0; --d) {
      if (v_->sizes[d] != 1 && v_->strides[d] != expected) return false;
      expected *= v_->sizes[d];
    }
    return true;
  }
  void* handle() const { return v_->handle; }
  uint64_t offset() const { return v_->offset; }
  // For backends whose handles are host pointers (XD_DEVICE_FLAG_HOST_POINTERS).
  template <class T>
  T* host_data() const {
    return reinterpret_cast<T*>(static_cast<char*>(v_->handle) + v_->offset);
  }
  const xd_view& raw() const { return *v_; }

 private:
  const xd_view* v_;
};

// Registers kernels during xd_plugin_init; throws xd::plugin::error on a rejected registration.
class registrar {
 public:
  explicit registrar(const xd_host_api* host) : host_(host) {}
  void add(xd_op op, xd_dtype dtype, xd_kernel_fn fn, const char* name,
           xd_kernel_supports_fn supports = nullptr, void* user_data = nullptr, int32_t priority = 0) {
    xd_kernel_desc d{};
    d.struct_size = sizeof d;
    d.op = op;
    d.dtype = dtype;
    d.name = name;
    d.fn = fn;
    d.supports = supports;
    d.user_data = user_data;
    d.priority = priority;
    const xd_status s = host_->register_kernel(host_->ctx, &d);
    if (s != XD_OK) throw error(s, std::string("registering kernel ") + name + " was rejected");
    ++count_;
  }
  int count() const { return count_; }

 private:
  const xd_host_api* host_;
  int count_ = 0;
};

// Copies `mine` into the caller's struct of the same type within the size the caller declared
// in out->struct_size (an older caller has a shorter struct), and records the size written.
template <class S>
void copy_sized(S* out, const S& mine) {
  const size_t n = out->struct_size < sizeof mine ? out->struct_size : sizeof mine;
  std::memcpy(out, &mine, n);
  out->struct_size = n;
}

// The host's API table, kept from xd_plugin_init for the plugin's runtime entry points, which
// receive no host pointer of their own but report errors and log through it. A plugin keeps one
// in a variable of its own (not an inline variable here: several plugins share one process).
// set() runs once in init before any other entry point; the atomic publishes it cleanly to the
// threads that read it.
class host_slot {
 public:
  void set(const xd_host_api* host) noexcept { host_.store(host, std::memory_order_release); }
  const xd_host_api* get() const noexcept { return host_.load(std::memory_order_acquire); }
  // Logs through the host, which prefixes the plugin's name; a no-op before set().
  void log(xd_log_level level, const std::string& message) const {
    const xd_host_api* h = get();
    if (h != nullptr && h->log != nullptr) h->log(h->ctx, level, message.c_str());
  }

 private:
  std::atomic<const xd_host_api*> host_{nullptr};
};

// Fills an xd_plugin_info within the size the host gave.
inline xd_status fill_info(xd_plugin_info* info, const char* name, const char* version,
                           const char* description, uint32_t device_kinds) {
  if (info == nullptr || info->struct_size < offsetof(xd_plugin_info, abi_minor) + sizeof(uint32_t))
    return XD_ERR_INVALID_ARGUMENT;
  xd_plugin_info mine{};
  mine.struct_size = sizeof mine;
  mine.name = name;
  mine.abi_major = XD_ABI_MAJOR;
  mine.abi_minor = XD_ABI_MINOR;
  mine.version = version;
  mine.description = description;
  mine.device_kinds = device_kinds;
  copy_sized(info, mine);
  return XD_OK;
}

// Copies a fully built api table into the host's, within the size the host gave.
inline void fill_api(xd_plugin_api* out, const xd_plugin_api& mine) { copy_sized(out, mine); }

// Copies a string into a fixed char array, always terminated.
template <size_t N>
void copy_string(char (&dst)[N], const std::string& src) {
  const size_t n = src.size() < N - 1 ? src.size() : N - 1;
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

}  // namespace xd::plugin
