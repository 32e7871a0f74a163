// What the row-normalizing fast kernels share (rms_norm_fast.cpp, layer_norm_fast.cpp): the
// checks that a row (and a weight) is one contiguous run, a row's length, and a weight as f32.
#pragma once

#include "kernels/fast/rows.hpp"

#include <vector>

namespace xd::cpu::fast {

// Whether the normalized dims of `v` (from `lead` on) are one contiguous run.
inline bool row_contiguous(const xd_view* v, int lead, int64_t elem) {
  return v == nullptr || contiguous_dims(*v, dims_from(lead), elem);
}
inline bool all_contiguous(const xd_view* w, int64_t elem) {
  return w == nullptr || contiguous_dims(*w, ~uint64_t{0}, elem);
}

inline int64_t row_length(const xd_view& x, int lead) {
  int64_t n = 1;
  for (int d = lead; d < x.ndim; ++d) n *= x.sizes[d];
  return n;
}

// A weight of any floating dtype as f32 (what the reference's compute type makes of it).
inline std::vector<float> weight_f32(const xd_view* w, int64_t n) {
  std::vector<float> out;
  if (w == nullptr) return out;
  out.resize(static_cast<size_t>(n));
  visit_floating(w->dtype, [&]<class W>(std::type_identity<W>) {
    const W* p = reinterpret_cast<const W*>(data(*w));
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = static_cast<float>(load(p[i]));
  });
  return out;
}

}  // namespace xd::cpu::fast
