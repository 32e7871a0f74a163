// Device enumeration and properties: one device, the host CPU.
#include <xd/plugin.hpp>

#include "runtime/runtime.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef XD_CPU_PLUGIN_VERSION
#define XD_CPU_PLUGIN_VERSION "0.0.0"
#endif

namespace xd::cpu {

namespace {

// The value of the first "key : value" line of /proc/cpuinfo, or "" (other OSes, some ARM
// kernels that have no "model name").
std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    if (name != key) continue;
    std::string value = line.substr(colon + 1);
    const auto first = value.find_first_not_of(" \t");
    return first == std::string::npos ? std::string() : value.substr(first);
  }
  return {};
}

xd_device_properties build_properties() {
  xd_device_properties p{};
  p.struct_size = sizeof p;
  const std::string name = cpuinfo_field("model name");
  const std::string vendor = cpuinfo_field("vendor_id");
  plugin::copy_string(p.name, name.empty() ? "CPU" : name);
  plugin::copy_string(p.vendor, vendor.empty() ? "unknown" : vendor);
  plugin::copy_string(p.driver_version, XD_CPU_PLUGIN_VERSION);
  p.kind = XD_DEVICE_KIND_CPU;
  p.flags = XD_DEVICE_FLAG_F16 | XD_DEVICE_FLAG_F64 | XD_DEVICE_FLAG_BF16 | XD_DEVICE_FLAG_HOST_POINTERS |
            XD_DEVICE_FLAG_TIMING;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  p.total_memory = pages > 0 && page_size > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) : 0;
#ifdef _OPENMP
  p.compute_units = static_cast<uint32_t>(omp_get_max_threads());
#else
  p.compute_units = std::max(1u, std::thread::hardware_concurrency());
#endif
  p.max_work_group_size = 0;
  return p;
}

int32_t device_count(void*) { return 1; }

xd_status device_properties(void*, int32_t device, xd_device_properties* out) {
  return plugin::guarded(plugin::host(), [&] {
    if (const xd_status s = check_device(device); s != XD_OK) return s;
    if (out == nullptr) return plugin::report(XD_ERR_INVALID_ARGUMENT, "device_properties: out is null");
    // Reading /proc/cpuinfo once is enough; the properties never change.
    static const xd_device_properties props = build_properties();
    plugin::copy_sized(out, props);
    return XD_OK;
  });
}

}  // namespace

xd_status check_device(int32_t device) {
  if (device == 0) return XD_OK;
  return plugin::report(XD_ERR_INVALID_ARGUMENT,
                        "device index " + std::to_string(device) + " out of range (the CPU backend has 1 device)");
}

void fill_device_api(xd_plugin_api& api) { plugin::set_devices(api, {device_count, device_properties}); }

}  // namespace xd::cpu
