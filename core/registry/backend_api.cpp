// The public functions of backend.hpp and device.hpp.
#include <xd/backend.hpp>
#include <xd/device.hpp>
#include <xd/error.hpp>

#include "dispatch/dispatch_table.hpp"
#include "ops/schema.hpp"
#include "registry/device_spec.hpp"
#include "registry/registry.hpp"

#include <algorithm>
#include <atomic>

namespace xd {

using detail::Registry;

namespace {
// The loaded backends' names, for messages: "cpu, opencl", or "none".
std::string available_names() {
  std::string avail;
  for (const auto& bi : backends()) avail += (avail.empty() ? "" : ", ") + bi.name;
  return avail.empty() ? std::string("none") : avail;
}
}  // namespace

const char* load_status_name(LoadStatus s) noexcept {
  switch (s) {
    case LoadStatus::loaded: return "loaded";
    case LoadStatus::not_found: return "not found";
    case LoadStatus::not_a_library: return "not a library";
    case LoadStatus::dependency_missing: return "dependency missing";
    case LoadStatus::symbol_missing: return "symbol missing";
    case LoadStatus::abi_mismatch: return "abi mismatch";
    case LoadStatus::init_failed: return "init failed";
    case LoadStatus::unavailable: return "unavailable";
    case LoadStatus::no_devices: return "no devices";
    case LoadStatus::filtered: return "filtered";
    case LoadStatus::duplicate: return "duplicate";
    case LoadStatus::skipped: return "skipped";
  }
  return "?";
}

std::vector<LoadReportRow> load_report() { return Registry::get().report(); }

std::string format_load_report() {
  const auto rows = Registry::get().report();
  std::string out;
  if (rows.empty()) {
    out = "  (no plugin found; searched:";
    for (const auto& s : Registry::get().searched()) out += " " + s;
    return out + ")\n";
  }
  size_t wstatus = 6, wname = 4;
  for (const auto& r : rows) {
    wstatus = std::max(wstatus, std::string(load_status_name(r.status)).size());
    wname = std::max(wname, r.name.size());
  }
  auto pad = [](std::string s, size_t w) { return s.append(w > s.size() ? w - s.size() : 0, ' '); };
  out += "  " + pad("STATUS", wstatus) + "  " + pad("NAME", wname) + "  ABI   PATH\n";
  for (const auto& r : rows) {
    out += "  " + pad(load_status_name(r.status), wstatus) + "  " + pad(r.name.empty() ? "-" : r.name, wname) + "  " +
           pad(r.abi.empty() ? "-" : r.abi, 4) + "  " + r.path + "\n";
    if (!r.reason.empty()) out += "  " + std::string(wstatus + wname + 10, ' ') + "  " + r.reason + "\n";
  }
  return out;
}

std::vector<BackendInfo> backends() {
  Registry& r = Registry::get();
  std::vector<BackendInfo> out;
  for (int i = 0; i < r.backend_count(); ++i) {
    const auto* b = r.backend(static_cast<int16_t>(i));
    out.push_back({b->name, b->type, static_cast<int>(b->devices.size()), b->path, b->version, b->abi, b->family,
                   (b->flags & XD_PLUGIN_FLAG_HOST_REFERENCE) != 0});
  }
  return out;
}

LoadReportRow load_plugin(const std::string& path) { return Registry::get().load(path); }

std::vector<KernelInfo> kernels() {
  std::vector<KernelInfo> out;
  for (const auto* e : Registry::get().table().all())
    out.push_back({detail::op_schema(e->op).name, e->backend->name, e->dtype, e->name, e->priority,
                   e->calls.load(std::memory_order_relaxed)});
  return out;
}

bool set_kernel_enabled(const std::string& name, bool enabled) {
  bool found = false;
  for (const auto* e : Registry::get().table().all()) {
    if (e->name == name) {
      const_cast<detail::KernelEntry*>(e)->enabled.store(enabled, std::memory_order_relaxed);
      found = true;
    }
  }
  if (!found) throw ValueError("no kernel named '" + name + "' is registered; xd-info --kernels lists them");
  return found;
}

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (int i = 0; i < detail::kOpCount; ++i) out.emplace_back(detail::op_schema(i).name);
  return out;
}

// ------------------------------------------------------------------ Device
Device Device::parse(std::string_view text) {
  const std::string s(text);
  const auto spec = detail::parse_device_spec(s);
  if (!spec) throw ValueError("bad device '" + s + "': expected NAME or NAME:INDEX, INDEX a device number (0-9999)");
  const std::string& name = spec->name;
  const int index = spec->index;
  Registry& r = Registry::get();
  detail::Backend* b = r.find(name);
  if (b == nullptr)
    throw BackendError("backend '" + name + "' is not available (available: " + available_names() +
                       ").\n\nLoad report:\n" + format_load_report());
  if (static_cast<size_t>(index) >= b->devices.size())
    throw DeviceError("device " + s + " does not exist; backend '" + name + "' has " +
                      std::to_string(b->devices.size()) + " visible device(s)");
  return b->devices[static_cast<size_t>(index)]->device;
}

const std::string& Device::backend() const { return Registry::get().device(*this).backend->name; }

std::string Device::str() const {
  if (!valid()) return "undefined";
  const auto* b = Registry::get().backend(type_);
  return (b != nullptr ? b->name : "type" + std::to_string(type_)) + ":" + std::to_string(index_);
}

const DeviceProperties& Device::properties() const { return Registry::get().device(*this).props; }

Device default_device() { return Registry::get().default_device(); }

std::vector<Device> devices() {
  std::vector<Device> out;
  Registry& r = Registry::get();
  for (int i = 0; i < r.backend_count(); ++i)
    for (const auto& d : r.backend(static_cast<int16_t>(i))->devices) out.push_back(d->device);
  return out;
}

Device cpu() {
  Registry& r = Registry::get();
  const detail::DeviceRecord* host = r.host_reference();
  if (host == nullptr)
    throw BackendError("no host CPU device: no loaded plugin declares itself the host reference "
                       "(XD_PLUGIN_FLAG_HOST_REFERENCE; the CPU plugin does). Available backends: " +
                       available_names() + ".\n\nLoad report:\n" + format_load_report());
  return host->device;
}

}  // namespace xd
