// FNV-1a, 64-bit: names cache files and checks their contents. Not cryptographic: a cache entry
// also stores its full key, so a collision costs a rebuild, never a wrong program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace xd::ocl {

inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;

inline uint64_t fnv1a(const void* data, size_t n, uint64_t h = kFnvOffset) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

inline uint64_t fnv1a(std::string_view s, uint64_t h = kFnvOffset) { return fnv1a(s.data(), s.size(), h); }

}  // namespace xd::ocl
