// Register-cached rows, shared by softmax.cl and rms_norm.cl: a work-group holds a dense row of up
// to XD_WG * 4 * XD_ROW_ITEMS elements in registers; the `_short` kernels hold half that with half
// the registers, so more work-groups fit on a compute unit. XD_ROW_ITEMS is kRowItems (the
// sources' default, the SPIR-V's) on GPUs, kRowItemsCpu on CPU devices (the OpenCL plugin's build
// options): CPU runtimes gain little from a register cache and compile unrolled loops slowly, but
// at least 4 (common.cl says why).
#pragma once

#include <cstdint>

namespace xd::xpu {

inline constexpr int64_t kRowItems = 8;
inline constexpr int64_t kRowItemsCpu = 4;

// Whether a dense row of n elements fits the _short kernels' cache.
inline bool row_is_short(int64_t n, int64_t wg, int64_t row_items) { return n <= wg * 4 * (row_items / 2); }

}  // namespace xd::xpu
