// Pinned host memory: the source a device's CachingHostAllocator draws from, Tensor::pin_memory
// and is_pinned, and the pinned_memory_* functions of runtime.hpp. The copies that make use of
// pinned memory are in tensor/copy.cpp.
#include "runtime/pinned_memory.hpp"

#include <xd/backend.hpp>
#include <xd/error.hpp>
#include <xd/runtime.hpp>
#include <xd/tensor.hpp>

#include "plugin/host_api.hpp"
#include "runtime/current.hpp"
#include "tensor/tensor_impl.hpp"
#include "util/log.hpp"

#include <string>

namespace xd {

namespace detail {

namespace {

// A device's host_alloc/host_free and events, as the caching allocator sees a device.
class PinnedHostSource final : public AllocatorDevice {
 public:
  explicit PinnedHostSource(DeviceRecord& dev) : dev_(dev) {}

  bool raw_alloc(uint64_t nbytes, void** handle, std::string& error) override {
    const xd_plugin_api& api = dev_.backend->api;
    const xd_status s = api.host_alloc(api.ctx, dev_.plugin_device, nbytes, handle);
    if (s == XD_OK) return true;
    error = take_plugin_error();
    if (error.empty()) error = "host_alloc returned status " + std::to_string(static_cast<int>(s));
    return false;
  }
  void raw_free(void* handle) override {
    const xd_plugin_api& api = dev_.backend->api;
    if (api.host_free(api.ctx, dev_.plugin_device, handle) != XD_OK)
      log(LogLevel::warn, describe() + ": host_free failed: " + take_plugin_error());
  }
  // Host memory is not the device's: an out-of-memory message must not compare it with the
  // device's size.
  uint64_t total_memory() const override { return 0; }
  // The events are the device's: its streams are the ones whose copies use the memory.
  void* record_event(void* stream) override { return dev_.record_event(stream); }
  bool event_done(void* event) override { return dev_.event_done(event); }
  void destroy_event(void* event) override { dev_.destroy_event(event); }
  std::string describe() const override { return dev_.describe() + " (pinned host memory)"; }
  std::string release_hint() const override { return "xd::empty_pinned_cache(" + dev_.describe() + ")"; }

 private:
  DeviceRecord& dev_;
};

// "opencl:0, levelzero:0", or "none" when no visible device has pinned memory.
std::string pinned_devices() {
  std::string out;
  for (const Device& d : devices())
    if (Registry::get().device(d).pinned) out += (out.empty() ? "" : ", ") + d.str();
  return out.empty() ? "none" : out;
}

// The device whose pinned allocator pin_memory uses; throws NotImplementedError when it has none.
DeviceRecord& pinned_target(Device device) {
  DeviceRecord& dev = Registry::get().device(device);
  if (dev.pinned) return dev;
  const std::string name = dev.device.str();
  if (dev.props.host_pointers)
    throw NotImplementedError("pin_memory: " + name +
                              " computes in host memory itself, so there is no pinned memory for it; pin for the "
                              "device the tensor will be copied to (devices with pinned memory: " +
                              pinned_devices() + ")");
  throw NotImplementedError("pin_memory: backend '" + dev.backend->name + "' (" + name +
                            ") provides no pinned host memory (its plugin has no host_alloc); copies between it and "
                            "ordinary host memory work but block (devices with pinned memory: " +
                            pinned_devices() + ")");
}

// pin_memory()'s device: the current device when it has pinned memory, else the first that has.
DeviceRecord& default_pinned_target() {
  DeviceRecord& current = Registry::get().device(current_device());
  if (current.pinned) return current;
  for (const Device& d : devices())
    if (DeviceRecord& dev = Registry::get().device(d); dev.pinned) return dev;
  std::string loaded;
  for (const BackendInfo& b : backends()) loaded += (loaded.empty() ? "" : ", ") + b.name;
  throw NotImplementedError("pin_memory: no visible device has pinned host memory (loaded backends: " + loaded +
                            "); it needs a backend whose plugin provides host_alloc (xd_plugin_api), as the XPU backends do");
}

}  // namespace

std::unique_ptr<CachingHostAllocator> make_pinned_allocator(DeviceRecord& dev) {
  if (dev.props.host_pointers) return nullptr;
  const xd_plugin_api& api = dev.backend->api;
  const bool has_alloc = XD_STRUCT_HAS(&api, xd_plugin_api, host_alloc) && api.host_alloc != nullptr;
  const bool has_free = XD_STRUCT_HAS(&api, xd_plugin_api, host_free) && api.host_free != nullptr;
  if (has_alloc != has_free)
    log(LogLevel::warn, dev.describe() + ": the plugin provides host_" + (has_alloc ? "alloc" : "free") +
                            " without host_" + (has_alloc ? "free" : "alloc") + "; pinned memory stays off");
  if (!has_alloc || !has_free) return nullptr;
  return std::make_unique<CachingHostAllocator>(std::make_unique<PinnedHostSource>(dev));
}

}  // namespace detail

using detail::DeviceRecord;
using detail::Registry;

namespace {
// `t`'s impl when it can be pinned: defined and in host memory.
const detail::TensorImpl& pinnable(const Tensor& t) {
  const detail::TensorImpl& impl = detail::checked_impl(t, "pin_memory", "self");
  if (!impl.device_record().props.host_pointers)
    throw DeviceError("pin_memory: the tensor is on " + impl.device().str() +
                      ", in device memory; only tensors in host memory (xd::cpu()) can be pinned. Copy it "
                      "with .to(xd::cpu(), true), which puts the result in pinned memory where the backend has it");
  return impl;
}
}  // namespace

Tensor Tensor::pin_memory() const {
  (void)pinnable(*this);
  return pin_memory(detail::default_pinned_target().device);
}

Tensor Tensor::pin_memory(Device device) const {
  const detail::TensorImpl& t = pinnable(*this);
  DeviceRecord& target = detail::pinned_target(device);
  if (t.storage->pinned_for == &target) return *this;
  Tensor out(detail::allocate_pinned_tensor(t.device_record(), target, sizes(), t.dtype));
  out.copy_(*this);
  return out;
}

bool Tensor::is_pinned() const { return impl().storage->pinned != nullptr; }

bool pinned_memory_available(Device device) { return Registry::get().device(device).pinned != nullptr; }

MemoryStats pinned_memory_stats(Device device) {
  const DeviceRecord& dev = Registry::get().device(device);
  return dev.pinned ? dev.pinned->stats() : MemoryStats{};
}

void reset_peak_pinned_memory_stats(Device device) {
  if (DeviceRecord& dev = Registry::get().device(device); dev.pinned) dev.pinned->reset_peak();
}

void empty_pinned_cache(Device device) {
  if (DeviceRecord& dev = Registry::get().device(device); dev.pinned) dev.pinned->empty_cache();
}

}  // namespace xd
