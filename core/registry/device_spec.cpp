#include "registry/device_spec.hpp"

namespace xd::detail {

bool valid_backend_name(std::string_view name) {
  if (name.empty() || name.size() > 32 || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

NameAndQualifier split_qualifier(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return {std::string(text), std::nullopt};
  return {std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
}

std::optional<int> parse_device_index(std::string_view q) {
  if (q.empty() || q.size() > 4 || q.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  int v = 0;
  for (char c : q) v = v * 10 + (c - '0');
  return v;
}

std::optional<DeviceKind> parse_device_kind(std::string_view q) {
  for (DeviceKind k : {DeviceKind::cpu, DeviceKind::gpu, DeviceKind::accelerator})
    if (q == device_kind_name(k)) return k;
  return std::nullopt;
}

std::optional<DeviceSpec> parse_device_spec(std::string_view text) {
  NameAndQualifier nq = split_qualifier(text);
  DeviceSpec spec{std::move(nq.name), 0};
  if (nq.qualifier) {
    const auto index = parse_device_index(*nq.qualifier);
    if (!index) return std::nullopt;
    spec.index = *index;
  }
  return spec;
}

}  // namespace xd::detail
