// What the int4 weight kernels in front of kernels/int4.cpp share: the check of a WEIGHT_INT4_MM
// call's operands (int4_mm_fast.cpp; used by int4_mm_dnnl.cpp too).
#pragma once

#include "kernels/common.hpp"

namespace xd::cpu::fast {

// Why a fast int4 kernel does not take the call (operands not dense 2-d, shapes or dtypes that do
// not agree, a bad group size: the reference reports those; K = 0), or nullptr.
const char* int4_mm_decline(const xd_kernel_call* c);

}  // namespace xd::cpu::fast
