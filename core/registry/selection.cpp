// XD_BACKEND: which device ops use by default. See docs/env-vars.md.
#include <xd/backend.hpp>
#include <xd/error.hpp>

#include "registry/registry.hpp"
#include "util/env.hpp"

#include <set>

namespace xd::detail {

namespace {

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

std::optional<Device> pick_xpu(const Registry& r, std::string& why) {
  if (Backend* lz = r.find("levelzero"); lz != nullptr && !lz->devices.empty()) return lz->devices[0]->device;
  if (Backend* cl = r.find("opencl")) {
    for (auto kind : {DeviceKind::gpu, DeviceKind::accelerator})
      for (const auto& d : cl->devices)
        if (d->props.kind == kind) return d->device;
    why = "xpu: no Level Zero device, and the OpenCL backend has only CPU devices";
  } else {
    why = "xpu: neither the levelzero nor the opencl backend is available";
  }
  return std::nullopt;
}

}  // namespace

Device Registry::default_device() {
  std::call_once(default_once_, [this] {
    const std::string spec = env("XD_BACKEND").value_or("");
    const auto terms = split(spec.empty() ? std::string("cpu") : spec, ",");
    const auto report = this->report();
    std::set<std::string> known = {"cpu", "opencl", "levelzero", "xpu"};
    for (const auto& row : report)
      if (!row.name.empty()) known.insert(row.name);
    std::string reasons;
    for (const std::string& term : terms) {
      const auto colon = term.find(':');
      const std::string name = term.substr(0, colon);
      int index = 0;
      if (colon != std::string::npos) {
        const std::string idx = term.substr(colon + 1);
        if (idx.empty() || idx.size() > 4 || idx.find_first_not_of("0123456789") != std::string::npos) {
          default_error_ = "XD_BACKEND='" + spec + "': '" + term +
                           "' has a bad device index; expected NAME or NAME:INDEX, e.g. opencl:1";
          return;
        }
        index = std::stoi(idx);
      }
      if (known.count(name) == 0) {
        default_error_ = "XD_BACKEND='" + spec + "': unknown backend '" + name + "'. Available backends: " +
                         available_list(*this) + " (also accepted: cpu, opencl, levelzero, xpu, NAME:INDEX, "
                         "or a comma-separated preference list).\n\nLoad report:\n" + format_load_report();
        return;
      }
      std::string why;
      if (name == "xpu") {
        if (auto d = pick_xpu(*this, why)) {
          default_device_ = *d;
          return;
        }
      } else if (Backend* b = find(name)) {
        if (static_cast<size_t>(index) < b->devices.size()) {
          default_device_ = b->devices[static_cast<size_t>(index)]->device;
          return;
        }
        why = name + ":" + std::to_string(index) + " does not exist; '" + name + "' has " +
              std::to_string(b->devices.size()) + " visible device(s)";
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
