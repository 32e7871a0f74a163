// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), and the
// one mapping from counter blocks to tensor elements that every backend implements, so that
// `xd::rand` with a given (seed, offset) gives the same numbers on every backend.
//
// Mapping (also in docs/architecture.md). For an output of n elements, element i uses block
// b = offset + i / P and words of that block:
//   rand f32/f16/bf16: P = 4, word i % 4, u = (w >> 8) * 2^-24 in [0, 1)
//   rand f64:          P = 2, words (2j, 2j+1) with j = i % 2, u = 53 bits in [0, 1)
//   randn (all):       P = 2, words (2j, 2j+1): Box-Muller, u1 = ((w0 >> 8) + 1) * 2^-24 in (0, 1],
//                      u2 = (w1 >> 8) * 2^-24, z = sqrt(-2 ln u1) cos(2 pi u2)
// Block b is the counter (lo32(b), hi32(b), 0, 0) under the key (lo32(seed), hi32(seed)).
// A call consumes ceil(n / P) blocks; the generator's offset advances by that much.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace xd::philox {

using block = std::array<uint32_t, 4>;

inline void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

// Raw Philox4x32 with 10 rounds.
inline block philox4x32_10(block ctr, std::array<uint32_t, 2> key) {
  constexpr uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  constexpr uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(m0, ctr[0], hi0, lo0);
    mulhilo(m1, ctr[2], hi1, lo1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    key[0] += w0;
    key[1] += w1;
  }
  return ctr;
}

inline block counter_block(uint64_t seed, uint64_t index) {
  return philox4x32_10({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0u, 0u},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

inline float uniform_f32(uint32_t w) { return static_cast<float>(w >> 8) * (1.0f / 16777216.0f); }

inline double uniform_f64(uint32_t a, uint32_t b) {
  return (static_cast<double>(a >> 5) * 67108864.0 + static_cast<double>(b >> 6)) *
         (1.0 / 9007199254740992.0);
}

inline double normal_from(uint32_t a, uint32_t b) {
  const double u1 = (static_cast<double>(a >> 8) + 1.0) * (1.0 / 16777216.0);
  const double u2 = static_cast<double>(b >> 8) * (1.0 / 16777216.0);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// Elements per counter block for an op and output dtype (see the mapping above).
constexpr uint64_t elements_per_block(bool normal, bool f64) { return (normal || f64) ? 2 : 4; }

constexpr uint64_t blocks_for(uint64_t n, uint64_t per_block) { return (n + per_block - 1) / per_block; }

}  // namespace xd::philox
