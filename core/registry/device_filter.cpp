#include "registry/device_filter.hpp"

#include <xd/error.hpp>

#include "registry/device_spec.hpp"
#include "util/env.hpp"

namespace xd::detail {

DeviceFilter::DeviceFilter(const std::string& spec) : spec_(spec) {
  for (const std::string& raw : split(spec, ";,")) {
    Term t;
    std::string s = raw;
    if (!s.empty() && s[0] == '!') {
      t.exclude = true;
      s = s.substr(1);
    }
    const NameAndQualifier nq = split_qualifier(s);
    t.backend = nq.name;
    auto bad = [&](const std::string& why) {
      throw ValueError("XD_DEVICES='" + spec + "': term '" + raw + "' " + why +
                       "; expected [!]BACKEND[:INDEX|:cpu|:gpu|:accelerator] with BACKEND a plugin's name or *, e.g. '*:gpu' or "
                       "'!*:cpu'");
    };
    if (t.backend != "*" && !valid_backend_name(t.backend)) bad("has no valid backend name");
    if (nq.qualifier) {
      if (const auto kind = parse_device_kind(*nq.qualifier)) {
        t.kind = *kind;
      } else if (const auto index = parse_device_index(*nq.qualifier)) {
        t.index = *index;
      } else {
        bad("has a bad qualifier '" + *nq.qualifier + "'");
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
