#include "program/wgmma_ptx.hpp"

#include <cctype>
#include <cstddef>

namespace xd::ocl {

namespace {

// The position of directive `name` (".target", ".version") at the start of a line, or npos.
size_t directive(std::string_view text, std::string_view name) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    size_t line = at;
    while (line > 0 && (text[line - 1] == ' ' || text[line - 1] == '\t')) --line;
    const bool starts_line = line == 0 || text[line - 1] == '\n';
    const size_t after = at + name.size();
    if (starts_line && after < text.size() && (text[after] == ' ' || text[after] == '\t')) return at;
  }
  return std::string_view::npos;
}

// The first position from `at` whose character is not `in` the class (or the end).
template <class Pred>
size_t scan(std::string_view text, size_t at, Pred in) {
  while (at < text.size() && in(static_cast<unsigned char>(text[at]))) ++at;
  return at;
}
bool blank(unsigned char c) { return c == ' ' || c == '\t'; }
bool name_char(unsigned char c) { return std::isalnum(c) != 0 || c == '_'; }
bool digit(unsigned char c) { return std::isdigit(c) != 0; }

}  // namespace

ptx_rewrite sm90a_ptx(std::string_view ptx) {
  ptx_rewrite r;
  if (ptx.find(kWgmmaMarker) == std::string_view::npos) return r;
  std::string text;
  text.reserve(ptx.size());
  for (size_t at = 0;;) {
    const size_t hit = ptx.find(kWgmmaMarker, at);
    text.append(ptx.substr(at, hit == std::string_view::npos ? std::string_view::npos : hit - at));
    if (hit == std::string_view::npos) break;
    at = hit + kWgmmaMarker.size();
  }

  const size_t target = directive(text, ".target");
  if (target == std::string::npos) {
    r.error = "the PTX has no .target directive";
    return r;
  }
  const size_t arch = scan(text, target + 7, blank), arch_end = scan(text, arch, name_char);
  const std::string name = text.substr(arch, arch_end - arch);
  if (name != "sm_90") {
    r.error = "the PTX targets '" + name + "', not sm_90: wgmma is sm_90a's";
    return r;
  }
  text.insert(arch_end, "a");

  const size_t version = directive(text, ".version");
  if (version == std::string::npos) {
    r.error = "the PTX has no .version directive";
    return r;
  }
  const size_t v = scan(text, version + 8, blank), major_end = scan(text, v, digit);
  const size_t minor_end = scan(text, major_end + 1, digit);
  if (major_end == v || major_end >= text.size() || text[major_end] != '.' || minor_end == major_end + 1 ||
      major_end - v > 3) {
    r.error = "the PTX's .version directive is unreadable";
    return r;
  }
  const int major = std::stoi(text.substr(v, major_end - v));
  const int minor = std::stoi(text.substr(major_end + 1, minor_end - major_end - 1));
  if (major < 8 || (major == 8 && minor < 3)) text.replace(v, minor_end - v, "8.3");
  r.changed = true;
  r.text = std::move(text);
  return r;
}

}  // namespace xd::ocl
