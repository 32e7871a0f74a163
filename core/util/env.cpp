#include "util/env.hpp"

#include <cstdlib>
#include <cstring>

namespace xd::detail {

std::optional<std::string> env(const char* name) {
  const char* v = secure_getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::vector<std::string> split(const std::string& text, const char* separators) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    const auto b = cur.find_first_not_of(" \t");
    const auto e = cur.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
    cur.clear();
  };
  for (char c : text) {
    if (std::strchr(separators, c) != nullptr) {
      flush();
    } else {
      cur.push_back(c);
    }
  }
  flush();
  return out;
}

}  // namespace xd::detail
