// What the int4 weight kernels in front of kernels/int4.cpp share (int4_mm_fast.cpp,
// int4_mm_dnnl.cpp): the check of a WEIGHT_INT4_MM call's operands, and the gathering of a block
// of weight rows' scales and zero points.
#pragma once

#include "kernels/common.hpp"

namespace xd::cpu::fast {

// Why a fast int4 kernel does not take the call (operands not dense 2-d, shapes or dtypes that do
// not agree, a bad group size: the reference reports those; K = 0), or nullptr.
const char* int4_mm_decline(const xd_kernel_call* c);

// The scales and zero points of weight rows [n0, n0 + nb) as f32, group gi's at s[gi * step + j]
// and z[gi * step + j] (step >= nb): read along the rows of scales and zeros ([groups, n]), which
// hold the block's values side by side (read along the groups instead, n elements apart, they
// took a quarter of the decode's time at K = 16384).
template <class T>
void gather_group_params(const T* scales, const int8_t* zeros, int64_t n, int64_t groups, int64_t n0, int64_t nb,
                         int64_t step, float* s, float* z) {
  for (int64_t gi = 0; gi < groups; ++gi)
    for (int64_t j = 0; j < nb; ++j) {
      s[gi * step + j] = static_cast<float>(scales[gi * n + n0 + j]);
      z[gi * step + j] = static_cast<float>(zeros[gi * n + n0 + j]);
    }
}

}  // namespace xd::cpu::fast
