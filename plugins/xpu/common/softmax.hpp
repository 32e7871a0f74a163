// SOFTMAX and LOG_SOFTMAX (kernels/softmax.cl) as both XPU variants launch them: a work-group per
// row (_row, or _row_short for a dense row that fits its register cache) when rows are dense along
// the dim or too few to fill the device one work-item each, else a work-item per row (_lane).
// The launcher is run_softmax (launchers.hpp); the choice is here for its tests.
#pragma once

#include <cstdint>

namespace xd::xpu {

inline bool softmax_by_group(int64_t step_in, int64_t rows) { return step_in == 1 || rows < 2048; }
const char* softmax_entry(bool log, bool by_group, bool short_row = false);

}  // namespace xd::xpu
