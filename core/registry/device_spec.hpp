// The one parser of the text forms that name backends and devices: "NAME" and "NAME:QUALIFIER",
// where the qualifier is a device index (XD_BACKEND terms, Device::parse, XD_DEVICES) or a device
// kind (XD_DEVICES only). Pure functions, thread-safe.
#pragma once

#include <xd/device.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace xd::detail {

// A backend or family name as plugins must declare it: [a-z][a-z0-9_]*, at most 32 characters.
bool valid_backend_name(std::string_view name);

// `text` cut at its first ':' into a name and the qualifier after it (nullopt without a ':').
struct NameAndQualifier {
  std::string name;
  std::optional<std::string> qualifier;
};
NameAndQualifier split_qualifier(std::string_view text);

// A device index qualifier: 1 to 4 decimal digits; nullopt otherwise.
std::optional<int> parse_device_index(std::string_view qualifier);

// A device kind qualifier: cpu, gpu, accelerator (xd::device_kind_name); nullopt otherwise.
std::optional<DeviceKind> parse_device_kind(std::string_view qualifier);

// "NAME" (index 0) or "NAME:INDEX". Returns nullopt for a malformed index; the name is not
// checked against the loaded backends here.
struct DeviceSpec {
  std::string name;
  int index = 0;
};
std::optional<DeviceSpec> parse_device_spec(std::string_view text);

}  // namespace xd::detail
