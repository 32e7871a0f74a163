#include "registry/device_filter.hpp"

#include <xd/error.hpp>

#include "registry/device_spec.hpp"
#include "util/env.hpp"

#include <set>

namespace xd::detail {

DeviceFilter::DeviceFilter(const std::string& spec) : spec_(spec) {
  for (const std::string& raw : split(spec, ";,")) {
    Term t;
    t.text = raw;
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

std::optional<int> DeviceFilter::rank(const std::string& backend, int plugin_index, DeviceKind kind,
                                      const std::string& family) const {
  bool has_plain = false;
  for (size_t i = 0; i < terms_.size(); ++i) {
    const Term& t = terms_[i];
    if (t.backend != "*" && t.backend != backend && (family.empty() || t.backend != family)) continue;
    if (!t.exclude) has_plain = true;
    const bool match = (t.index < 0 || t.index == plugin_index) && (!t.kind || *t.kind == kind);
    if (!match) continue;
    if (t.exclude) return std::nullopt;
    return static_cast<int>(i);
  }
  if (has_plain) return std::nullopt;
  return static_cast<int>(terms_.size());
}

namespace {

std::string joined(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

void DeviceFilter::check_names(const std::vector<Known>& known) const {
  std::set<std::string> backends, families;
  for (const Known& k : known) {
    backends.insert(k.name);
    if (!k.family.empty()) families.insert(k.family);
  }
  for (const Term& t : terms_) {
    if (t.backend == "*" || backends.count(t.backend) != 0) continue;
    const std::string head = "XD_DEVICES='" + spec_ + "': term '" + t.text + "' ";
    if (families.count(t.backend) != 0) {
      if (t.index < 0) continue;
      std::set<std::string> members;
      for (const Known& k : known)
        if (k.family == t.backend) members.insert(k.name);
      throw ValueError(head + "gives a device number to '" + t.backend + "', a family of backends (" +
                       joined(members) + ") that each count their own devices; name one of its backends (e.g. '" +
                       (t.exclude ? "!" : "") + *members.begin() + ":" + std::to_string(t.index) +
                       "') or give a kind ('" + (t.exclude ? "!" : "") + t.backend + ":gpu')");
    }
    throw ValueError(head + "names the backend '" + t.backend + "', which no plugin found declares; known backends: " +
                     (backends.empty() ? std::string("none") : joined(backends)) +
                     (families.empty() ? std::string() : "; families: " + joined(families)) +
                     ". A backend is known when a plugin in XD_PLUGIN_PATH or the plugin folder next to "
                     "libxdispatch declares it, whether it then loaded or not; check the spelling, or put its plugin on "
                     "XD_PLUGIN_PATH");
  }
}

}  // namespace xd::detail
