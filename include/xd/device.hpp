// Devices and backends. A Device names one device of one loaded backend: (backend type, index),
// written "opencl:0". Backend types are assigned densely as plugins load, so they are only
// meaningful within one process; use names across processes.
//
// Thread safety: every function here may be called from any thread. The first call of any
// function in this library loads the plugins (once, under a lock); afterwards lookups take no lock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xd {

enum class DeviceKind { cpu, gpu, accelerator };
// "cpu", "gpu", "accelerator": the kind's name in XD_DEVICES qualifiers and in every report.
constexpr const char* device_kind_name(DeviceKind kind) noexcept {
  switch (kind) {
    case DeviceKind::cpu: return "cpu";
    case DeviceKind::gpu: return "gpu";
    case DeviceKind::accelerator: return "accelerator";
  }
  return "?";
}

struct DeviceProperties {
  std::string name;
  std::string vendor;
  std::string driver_version;
  DeviceKind kind = DeviceKind::cpu;
  uint64_t total_memory = 0;  // bytes
  uint32_t compute_units = 0;
  uint32_t max_work_group_size = 0;
  bool supports_f16 = false;
  bool supports_f64 = false;
  bool supports_bf16 = false;
  bool host_pointers = false;  // allocations are host memory (the CPU backend)
  bool timing = false;         // events measure elapsed time
};

class Device {
 public:
  // No device (type -1); most functions reject it with DeviceError.
  Device() = default;
  Device(int16_t type, int16_t index) : type_(type), index_(index) {}
  // Parses "name" (index 0) or "name:index"; throws BackendError for an unknown or unavailable
  // backend, DeviceError for an index out of range, ValueError for malformed text.
  static Device parse(std::string_view text);

  int16_t type() const { return type_; }
  int16_t index() const { return index_; }
  bool valid() const { return type_ >= 0; }
  const std::string& backend() const;  // the backend's name
  std::string str() const;             // "opencl:0"
  const DeviceProperties& properties() const;
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  int16_t type_ = -1;
  int16_t index_ = 0;
};

// The device XD_BACKEND selects (xd::cpu() when unset), resolved once. Throws BackendError naming
// the available backends and embedding the load report when XD_BACKEND is unknown or unavailable.
Device default_device();
// Every visible device (after XD_DEVICES filtering), in backend load order.
std::vector<Device> devices();
// The host CPU device: the first device of the backend that declares itself the host reference
// (XD_PLUGIN_FLAG_HOST_REFERENCE; the CPU plugin, "cpu:0"). Throws BackendError, embedding the
// load report, when no loaded backend declares it.
Device cpu();

}  // namespace xd
