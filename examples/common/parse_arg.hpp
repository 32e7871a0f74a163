// Command-line numbers for the examples.
#pragma once

#include <cstdint>
#include <optional>

namespace xd_examples {

// `text` as a whole number in [1, max]: digits only, so "8x" or "-1" is not read as 8 or wrapped
// (std::atoll takes both, and "abc" as 0).
inline std::optional<int64_t> parse_arg(const char* text, int64_t max) {
  int64_t v = 0;
  if (*text == '\0') return std::nullopt;
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') return std::nullopt;
    v = v * 10 + (*c - '0');
    if (v > max) return std::nullopt;
  }
  if (v < 1) return std::nullopt;
  return v;
}

}  // namespace xd_examples
