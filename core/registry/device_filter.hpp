// XD_DEVICES: which devices are visible, and in which order.
//
// Terms separated by ';' or ','; each is [!]BACKEND[:QUALIFIER], BACKEND a backend name or '*',
// QUALIFIER a device number as the plugin counts them, or a kind (cpu, gpu, accelerator).
// For each device, the terms naming its backend (or '*') are tried in order and the first that
// matches decides: a plain term shows it, a '!' term hides it. A device no term matches is
// shown unless its backend has a plain term (so "opencl:gpu" shows only OpenCL GPUs and leaves
// other backends alone). Visible devices are ordered by the first plain term they match, then
// by the plugin's order. Malformed text is a ValueError naming the bad term.
#pragma once

#include <xd/device.hpp>

#include <optional>
#include <string>
#include <vector>

namespace xd::detail {

class DeviceFilter {
 public:
  // Parses `spec`; throws ValueError on malformed text.
  explicit DeviceFilter(const std::string& spec);
  DeviceFilter() = default;

  // The position (for ordering) of a visible device, or nullopt when hidden.
  std::optional<int> rank(const std::string& backend, int plugin_index, DeviceKind kind) const;
  const std::string& spec() const { return spec_; }

 private:
  struct Term {
    bool exclude = false;
    std::string backend;  // "*" for every backend
    int index = -1;       // -1: any
    std::optional<DeviceKind> kind;
  };
  std::string spec_;
  std::vector<Term> terms_;
};

}  // namespace xd::detail
