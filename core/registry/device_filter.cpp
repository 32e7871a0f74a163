#include "registry/device_filter.hpp"

#include <xd/error.hpp>

#include "util/env.hpp"

#include <cctype>

namespace xd::detail {

namespace {
bool valid_backend(const std::string& s) {
  if (s == "*") return true;
  if (s.empty() || !std::islower(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}
}  // namespace

DeviceFilter::DeviceFilter(const std::string& spec) : spec_(spec) {
  for (const std::string& raw : split(spec, ";,")) {
    Term t;
    std::string s = raw;
    if (!s.empty() && s[0] == '!') {
      t.exclude = true;
      s = s.substr(1);
    }
    const auto colon = s.find(':');
    t.backend = s.substr(0, colon);
    auto bad = [&](const std::string& why) {
      throw ValueError("XD_DEVICES='" + spec + "': term '" + raw + "' " + why +
                       "; expected [!]BACKEND[:INDEX|:cpu|:gpu|:accelerator], e.g. 'opencl:gpu;!opencl:cpu'");
    };
    if (!valid_backend(t.backend)) bad("has no valid backend name");
    if (colon != std::string::npos) {
      const std::string q = s.substr(colon + 1);
      if (q == "cpu") {
        t.kind = DeviceKind::cpu;
      } else if (q == "gpu") {
        t.kind = DeviceKind::gpu;
      } else if (q == "accelerator") {
        t.kind = DeviceKind::accelerator;
      } else if (!q.empty() && q.size() <= 4 && q.find_first_not_of("0123456789") == std::string::npos) {
        t.index = std::stoi(q);
      } else {
        bad("has a bad qualifier '" + q + "'");
      }
    }
    terms_.push_back(t);
  }
}

std::optional<int> DeviceFilter::rank(const std::string& backend, int plugin_index, DeviceKind kind) const {
  bool has_plain = false;
  for (size_t i = 0; i < terms_.size(); ++i) {
    const Term& t = terms_[i];
    if (t.backend != "*" && t.backend != backend) continue;
    if (!t.exclude) has_plain = true;
    const bool match = (t.index < 0 || t.index == plugin_index) && (!t.kind || *t.kind == kind);
    if (!match) continue;
    if (t.exclude) return std::nullopt;
    return static_cast<int>(i);
  }
  if (has_plain) return std::nullopt;
  return static_cast<int>(terms_.size());
}

}  // namespace xd::detail
