// XD_BACKEND: which device ops use by default. See docs/env-vars.md.
//
// The core knows no backend by name: a term is a loaded backend's name, or a family some plugin
// declared in its query (ABI 1.2: "xpu" for the OpenCL and Level Zero plugins), resolved by the
// preference and device kinds those plugins declared; unset means the backend that declares
// itself the host reference (XD_PLUGIN_FLAG_HOST_REFERENCE).
#include <xd/backend.hpp>
#include <xd/error.hpp>

#include "registry/device_spec.hpp"
#include "registry/registry.hpp"
#include "util/env.hpp"

#include <algorithm>
#include <set>

namespace xd::detail {

namespace {

std::string join(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

std::string available_list(const Registry& r) {
  std::string s;
  for (int i = 0; i < r.backend_count(); ++i) s += std::string(i ? ", " : "") + r.backend(static_cast<int16_t>(i))->name;
  return s.empty() ? "none" : s;
}

// Why `name` is not usable, from its load-report rows ("" when no row names it).
std::string reason_from_report(const std::vector<LoadReportRow>& report, const std::string& name) {
  std::string out;
  for (const auto& row : report) {
    if (row.name != name) continue;
    out += std::string(out.empty() ? "" : "; ") + load_status_name(row.status) +
           (row.reason.empty() ? "" : ": " + row.reason) + " (" + row.path + ")";
  }
  return out;
}

// The device kinds of an xd_device_kind mask, in the order a family tries them: GPUs, then
// accelerators, then CPUs.
std::vector<DeviceKind> kinds_in_order(uint32_t mask) {
  std::vector<DeviceKind> out;
  if (mask & XD_DEVICE_KIND_GPU) out.push_back(DeviceKind::gpu);
  if (mask & XD_DEVICE_KIND_ACCELERATOR) out.push_back(DeviceKind::accelerator);
  if (mask & XD_DEVICE_KIND_CPU) out.push_back(DeviceKind::cpu);
  return out;
}

std::string kinds_text(uint32_t mask) {
  std::string s;
  for (DeviceKind k : kinds_in_order(mask)) s += (s.empty() ? "" : " or ") + std::string(device_kind_name(k));
  return s.empty() ? "none" : s;
}

// The best device of `family`: its loaded backends by declared preference (then load order),
// within each the device kinds it declared for the family, GPUs first.
std::optional<Device> pick_family(const Registry& r, const std::vector<LoadReportRow>& report,
                                  const std::string& family, std::string& why) {
  std::vector<const Backend*> members;
  for (int i = 0; i < r.backend_count(); ++i) {
    const Backend* b = r.backend(static_cast<int16_t>(i));
    if (b->family == family) members.push_back(b);
  }
  std::stable_sort(members.begin(), members.end(),
                   [](const Backend* a, const Backend* b) { return a->family_preference > b->family_preference; });
  for (const Backend* b : members)
    for (DeviceKind kind : kinds_in_order(b->family_kinds))
      for (const auto& d : b->devices)
        if (d->props.kind == kind) return d->device;
  // Say, per backend of the family (loaded or not), why none of its devices qualified.
  std::set<std::string> names;
  for (const auto& row : report)
    if (row.family == family && !row.name.empty()) names.insert(row.name);
  std::string detail;
  for (const std::string& n : names) {
    std::string one;
    if (const Backend* b = r.find(n)) {
      std::set<std::string> have;
      for (const auto& d : b->devices) have.insert(device_kind_name(d->props.kind));
      one = "has only " + join(have) + " devices; " + family + " takes " + kinds_text(b->family_kinds);
    } else {
      one = reason_from_report(report, n);
    }
    detail += (detail.empty() ? "" : "; ") + n + ": " + one;
  }
  why = family + ": no device of the family's backends qualifies (" + detail + ")";
  return std::nullopt;
}

}  // namespace

Device Registry::default_device() {
  std::call_once(default_once_, [this] {
    const std::string spec = env("XD_BACKEND").value_or("");
    if (spec.empty()) {
      if (const DeviceRecord* host = host_reference()) {
        default_device_ = host->device;
        return;
      }
      default_error_ = "XD_BACKEND is unset, so the default device is the host reference backend's (the CPU "
                       "plugin's), but no loaded plugin declares itself the host reference. Available backends: " +
                       available_list(*this) + ".\n\nLoad report:\n" + format_load_report();
      return;
    }
    const auto terms = split(spec, ",");
    const auto report = this->report();
    // Every name a plugin answered the query with, loaded or not, and every family declared.
    std::set<std::string> names, families;
    for (const auto& row : report) {
      if (!row.name.empty()) names.insert(row.name);
      if (!row.family.empty()) families.insert(row.family);
    }
    std::string reasons;
    for (const std::string& term : terms) {
      const auto parsed = parse_device_spec(term);
      if (!parsed) {
        default_error_ = "XD_BACKEND='" + spec + "': '" + term +
                         "' has a bad device index; expected NAME or NAME:INDEX, INDEX a device number (0-9999)";
        return;
      }
      const std::string& name = parsed->name;
      const bool has_index = term.find(':') != std::string::npos;
      if (names.count(name) == 0 && families.count(name) == 0) {
        default_error_ = "XD_BACKEND='" + spec + "': unknown backend '" + name + "'. Available backends: " +
                         available_list(*this) + " (also accepted: the plugin names " + join(names) +
                         ", the families " + join(families) +
                         ", NAME:INDEX, or a comma-separated preference list).\n\nLoad report:\n" +
                         format_load_report();
        return;
      }
      std::string why;
      if (Backend* b = find(name)) {
        if (static_cast<size_t>(parsed->index) < b->devices.size()) {
          default_device_ = b->devices[static_cast<size_t>(parsed->index)]->device;
          return;
        }
        why = name + ":" + std::to_string(parsed->index) + " does not exist; '" + name + "' has " +
              std::to_string(b->devices.size()) + " visible device(s)";
      } else if (families.count(name) != 0 && names.count(name) == 0) {
        if (has_index) {
          default_error_ = "XD_BACKEND='" + spec + "': '" + name +
                           "' is a family of backends and takes no device index; name one of its backends instead, "
                           "e.g. BACKEND:" + std::to_string(parsed->index);
          return;
        }
        if (auto d = pick_family(*this, report, name, why)) {
          default_device_ = *d;
          return;
        }
      } else {
        const std::string r = reason_from_report(report, name);
        why = name + ": " + (r.empty() ? "no plugin named '" + name + "' was found" : r);
      }
      reasons += "  " + why + "\n";
    }
    default_error_ = "XD_BACKEND='" + spec + "' names no available backend:\n" + reasons +
                     "Available backends: " + available_list(*this) + ".\n\nLoad report:\n" + format_load_report();
  });
  if (!default_error_.empty()) throw BackendError(default_error_);
  return default_device_;
}

}  // namespace xd::detail
