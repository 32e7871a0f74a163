// Shared by the RMS_NORM forward and backward kernels: the split of x into rows (leading dims)
// and row elements (the normalized trailing dims), and the rstd type.
#pragma once

#include "kernels/common.hpp"

namespace xd::cpu {

// rstd is f32, or f64 for f64 inputs.
template <class T>
using rstd_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Sum-of-products accumulations run in double for every dtype: the oracle should be the most
// accurate party (the ABI asks for at least f32).
using rms_acc = double;

// Checks normalized_ndim against x and returns the number of leading (row) dims.
inline int rms_leading_dims(const xd_view& x, int32_t normalized_ndim) {
  if (normalized_ndim < 1 || normalized_ndim > x.ndim)
    invalid("rms_norm normalized_ndim " + std::to_string(normalized_ndim) + " for an input of rank " +
            std::to_string(x.ndim));
  if (x.ndim > kMaxDims) invalid("rms_norm input has more than 64 dims");
  return x.ndim - normalized_ndim;
}

// Bits of the trailing dims [lead, 64): skipped when walking rows.
inline uint64_t trailing_mask(int lead) { return ~((uint64_t{1} << lead) - 1); }

// Shapes were validated by the host; they are checked again (cheaply) because every operand is
// walked with x's sizes, and a mismatch must be an error rather than a read past a buffer.
inline void check_sizes(const xd_view& v, int ndim, const int64_t* sizes, const char* what) {
  bool ok = v.ndim == ndim;
  for (int d = 0; ok && d < ndim; ++d) ok = v.sizes[d] == sizes[d];
  if (!ok) invalid(std::string(what) + " does not have the expected shape");
}

// rstd: x.shape[:lead] + [1]*k.
inline void check_rstd_sizes(const xd_view& rstd, const xd_view& x, int lead) {
  bool ok = rstd.ndim == x.ndim;
  for (int d = 0; ok && d < x.ndim; ++d) ok = rstd.sizes[d] == (d < lead ? x.sizes[d] : 1);
  if (!ok) invalid("rms_norm rstd must have shape x.shape[:axis] + [1]*normalized_ndim");
}

}  // namespace xd::cpu
