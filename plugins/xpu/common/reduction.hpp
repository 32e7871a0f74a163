// SUM, MEAN, AMAX, AMIN, ARGMAX (kernels/reduce.cl) as both XPU variants plan them: the input's
// index space is split into the kept dims (K, shared with the keepdim output) and the reduced dims
// (R); then per call
//  - a work-group per output when the reduced elements are dense (the common "last dim" case) or
//    when outputs are too few to fill the device with one work-item each; long ranges are cut
//    into splits whose partials a second kernel combines, so one big sum still uses the whole
//    device;
//  - a work-item per output otherwise (reduced dims outside the innermost: neighbouring outputs
//    read neighbouring addresses), and for short floating sums, which then add in the
//    reference's order (in double where the device has fp64, as the reference does).
// The launcher is run_reduction (launchers.hpp); the plan is here for its tests.
#pragma once

#include <xd/plugin_abi.h>

#include "layout.hpp"

#include <cstdint>

namespace xd::xpu {

enum class reduce_op { sum, mean, amax, amin, argmax };

struct reduce_entries {
  const char* group;   // work-group per (output, split)
  const char* finish;  // work-group per output over the splits' partials
  const char* lane;    // work-item per output
};
reduce_entries entries_of(reduce_op op);

struct reduce_plan {
  bool by_group = false;         // false: the _lane kernel over n_out work-items
  int64_t splits = 1;            // work-groups per output; > 1: partials, then the _finish kernel
  int64_t chunk = 0;             // reduced elements per split
  int64_t groups = 0;            // work-groups of the _group kernel (n_out * splits)
  uint64_t partial_size = 0;     // bytes of one partial (argmax: of its value half, then 8-byte indices)
  uint64_t workspace_bytes = 0;  // scratch to ask the host for; 0 when splits == 1
};

// Floating sums over at most this many elements take the sequential (work-item per output) path:
// with values of very different magnitudes (or that cancel) only the reference's order gives the
// reference's answer.
inline constexpr int64_t kSequentialSum = 64;

// n_out outputs of n_red reduced elements each; `dense`: an output's reduced elements are one
// unit-stride run; `wg`: the work-group size the _group/_finish kernels are compiled for;
// `compute_units` sizes the split count (4 work-groups per unit); `fp64`: the device has double
// (floating sums then accumulate in double, as the reference does).
reduce_plan plan_reduce(reduce_op op, int32_t dtype, int64_t n_out, int64_t n_red, bool dense, int64_t wg,
                        int64_t compute_units, bool fp64);

// Element offsets of the partials inside a workspace at byte offset `ws_offset`: `value` in units
// of partial_size, `index` (argmax only) in units of 8 bytes, after the values.
struct partial_offsets {
  int64_t value = 0;
  int64_t index = 0;
};
partial_offsets partials_at(const reduce_plan& p, uint64_t ws_offset);

// Validates a reduction call's output against its input (keepdim shape, dtype; argmax reduces one
// dim) and builds its layouts: K the kept dims (0 = output, 1 = input), R the reduced dims
// (0 = input, offset 0). Throws XD_ERR_INVALID_ARGUMENT.
struct reduce_shape {
  layout K{};
  layout R{};
  bool dense = false;
};
reduce_shape make_reduce_shape(reduce_op op, const xd_view& in, const xd_view& out, uint64_t dim_mask);

}  // namespace xd::xpu
