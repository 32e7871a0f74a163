// The process-wide registry: loaded backends, their devices, the load report and the dispatch
// table. Built on first use (plugins found by the search order are loaded then, once, under a
// lock); afterwards backends and devices are only appended, never removed, so readers index
// them without locks.
#pragma once

#include <xd/backend.hpp>
#include <xd/device.hpp>
#include <xd/plugin_abi.h>
#include <xd/runtime.hpp>

#include "runtime/caching_allocator.hpp"
#include "runtime/caching_host_allocator.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xd::detail {

inline constexpr int kMaxBackends = 16;
inline constexpr int kMaxDevicesPerBackend = 64;

struct Backend;
class DispatchTable;
struct OpenedPlugin;  // plugin/loader.hpp

struct StreamState {
  struct DeviceRecord* device = nullptr;
  xd_stream handle = nullptr;
  uint64_t id = 0;
  bool owned = false;  // destroyed with the state (default streams live for the process)
  ~StreamState();
};

// One visible device. Implements the allocator's view of it.
struct DeviceRecord final : AllocatorDevice {
  Backend* backend = nullptr;
  int32_t plugin_device = 0;  // index as the plugin numbers it
  Device device;               // as the user sees it (type, visible index)
  DeviceProperties props;
  uint32_t flags = 0;          // XD_DEVICE_FLAG_*
  std::once_flag stream_once;
  std::shared_ptr<StreamState> default_stream;
  std::atomic<StreamState*> default_stream_ready{nullptr};  // lock-free fast path, set once
  std::unique_ptr<CachingAllocator> allocator;
  // Pinned host memory for transfers to and from this device (runtime/pinned_memory.cpp); null
  // when the backend has no host_alloc or the device's memory is host memory already.
  std::unique_ptr<CachingHostAllocator> pinned;
  std::mutex streams_mutex;
  std::vector<std::weak_ptr<StreamState>> streams;  // for synchronize(device)

  const std::shared_ptr<StreamState>& get_default_stream();
  // The default stream without touching call_once (which costs a TLS lookup per call).
  StreamState& default_stream_state() {
    if (StreamState* s = default_stream_ready.load(std::memory_order_acquire)) return *s;
    return *get_default_stream();
  }

  bool raw_alloc(uint64_t nbytes, void** handle, std::string& error) override;
  void raw_free(void* handle) override;
  uint64_t total_memory() const override { return props.total_memory; }
  void* record_event(void* stream) override;
  bool event_done(void* event) override;
  void destroy_event(void* event) override;
  std::string describe() const override;
};

struct HostContext;

struct Backend {
  int16_t type = -1;
  HostContext* host_context = nullptr;
  std::string name, path, version, abi;
  // What the plugin declared in its query (ABI 1.2; zero for older plugins).
  std::string family;
  int32_t family_preference = 0;
  uint32_t family_kinds = 0;  // xd_device_kind bits XD_BACKEND=<family> may pick
  uint32_t flags = 0;         // XD_PLUGIN_FLAG_*
  xd_plugin_api api{};
  xd_host_api host{};
  std::vector<std::unique_ptr<DeviceRecord>> devices;  // visible devices, in visible order
};

// Throws PluginError "<backend>: <what> failed: <plugin message>" unless s is XD_OK.
void check(const Backend& b, xd_status s, const char* what);

class Registry {
 public:
  static Registry& get();  // loads the plugins on first call

  Backend* backend(int16_t type) const {
    return (type >= 0 && type < count_.load(std::memory_order_acquire)) ? backends_[type].get() : nullptr;
  }
  int backend_count() const { return count_.load(std::memory_order_acquire); }
  Backend* find(const std::string& name) const;
  // Throws DeviceError for an invalid device.
  DeviceRecord& device(Device d) const {
    Backend* b = backend(d.type());
    if (b == nullptr || d.index() < 0 || static_cast<size_t>(d.index()) >= b->devices.size())
      throw_bad_device(d);
    return *b->devices[static_cast<size_t>(d.index())];
  }
  const DispatchTable& table() const { return *table_.load(std::memory_order_acquire); }

  // The first device of the first loaded backend that declares XD_PLUGIN_FLAG_HOST_REFERENCE;
  // nullptr when none does.
  const DeviceRecord* host_reference() const;

  LoadReportRow load(const std::string& path);
  std::vector<LoadReportRow> report() const;
  std::vector<std::string> searched() const;  // the folders and files looked at
  Device default_device();

 private:
  Registry();
  [[noreturn]] void throw_bad_device(Device d) const;
  void load_default_plugins();
  LoadReportRow load_locked(const std::string& path);
  LoadReportRow init_opened(OpenedPlugin& opened);  // mutex_ held; the steps after open_plugin
  const LoadReportRow* loaded_row_of(const std::string& path) const;  // mutex_ held

  std::array<std::unique_ptr<Backend>, kMaxBackends> backends_;
  std::atomic<int> count_{0};
  std::atomic<const DispatchTable*> table_;
  mutable std::mutex mutex_;  // loading, report
  std::vector<LoadReportRow> report_;
  std::vector<Backend*> failed_;  // backends whose init failed: kept, never used
  std::vector<std::string> searched_;
  std::once_flag default_once_;
  Device default_device_;
  std::string default_error_;

  friend class Loader;
};

}  // namespace xd::detail
