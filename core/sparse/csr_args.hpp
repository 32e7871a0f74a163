// How a SparseCsr travels to a kernel: always in the batched form (plugin_abi.h, XD_OP_CSR_*),
// an unbatched matrix as batch 1, so every backend has one code path.
#pragma once

#include "dispatch/launch.hpp"

namespace xd::detail {

// `t` viewed with size-1 dims prepended up to `ndim` (stride 0 there: never stepped over).
inline Arg batched_arg(const TensorImpl& t, int ndim) {
  Arg a = arg(t);
  const int pad = ndim - t.ndim;
  if (pad <= 0) return a;
  for (int i = t.ndim - 1; i >= 0; --i) {
    a.sizes[i + pad] = a.sizes[i];
    a.strides[i + pad] = a.strides[i];
  }
  for (int i = 0; i < pad; ++i) {
    a.sizes[i] = 1;
    a.strides[i] = 0;
  }
  a.ndim = ndim;
  return a;
}

struct CsrArgs {
  Arg crow, col, values;  // [B, M+1], [B, nnz], [B, nnz]
};

inline CsrArgs csr_args(const TensorImpl& crow, const TensorImpl& col, const TensorImpl& values) {
  return {batched_arg(crow, 2), batched_arg(col, 2), batched_arg(values, 2)};
}

}  // namespace xd::detail
