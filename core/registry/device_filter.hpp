// XD_DEVICES: which devices are visible, and in which order.
//
// Terms separated by ';' or ','; each is [!]BACKEND[:QUALIFIER], BACKEND a backend name or '*',
// QUALIFIER a device number as the plugin counts them, or a kind (cpu, gpu, accelerator). BACKEND
// may also be a family that plugins declare (xpu): it names every backend of the family, and
// takes a kind but no device number (each backend counts its own devices).
// For each device, the terms naming its backend (or '*') are tried in order and the first that
// matches decides: a plain term shows it, a '!' term hides it. A device no term matches is
// shown unless its backend has a plain term (so "opencl:gpu" shows only OpenCL GPUs and leaves
// other backends alone). Visible devices are ordered by the first plain term they match, then
// by the plugin's order. Malformed text is a ValueError naming the bad term; so is, once the
// plugins have been found, a term naming a backend or family that none of them declares
// (check_names), which would otherwise match nothing without a word.
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

  // The position (for ordering) of a visible device, or nullopt when hidden. `family`: the
  // family its backend declares, empty for none.
  std::optional<int> rank(const std::string& backend, int plugin_index, DeviceKind kind,
                          const std::string& family = {}) const;
  const std::string& spec() const { return spec_; }

  // A backend a plugin declares in its query, whether it then loaded or not.
  struct Known {
    std::string name;
    std::string family;  // empty: none
  };
  // Throws ValueError for a term whose BACKEND is neither '*' nor the name or family of a
  // `known` backend, naming the term and listing the known backends and families; and for a
  // family term with a device number.
  void check_names(const std::vector<Known>& known) const;

 private:
  struct Term {
    std::string text;  // as written, for messages
    bool exclude = false;
    std::string backend;  // "*" for every backend; or a family
    int index = -1;       // -1: any
    std::optional<DeviceKind> kind;
  };
  std::string spec_;
  std::vector<Term> terms_;
};

}  // namespace xd::detail
