#include "util/env.hpp"

#include <xd/error.hpp>

#include <cstdlib>
#include <cstring>

namespace xd::detail {

std::optional<std::string> env(const char* name) {
  const char* v = secure_getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

void check_choice(const char* name, std::initializer_list<const char*> allowed,
                  std::initializer_list<const char*> meanings, const char* default_value) {
  const auto v = env(name);
  if (!v || v->empty()) return;
  for (const char* a : allowed)
    if (*v == a) return;
  std::string expected;
  auto meaning = meanings.begin();
  for (const char* a : allowed) {
    expected += std::string(expected.empty() ? "" : ", ") + "'" + a + "'";
    if (meaning != meanings.end()) expected += std::string(" (") + *meaning++ + ")";
  }
  throw ValueError(std::string(name) + "='" + *v + "' is not valid; expected " + expected + "; unset means '" +
                   default_value + "' (docs/env-vars.md)");
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
