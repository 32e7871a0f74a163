// Launch planning shared by the XPU variants: the decisions that do not depend on the API (which
// kernel of a family, how many work-groups, split reductions and their scratch, the gemm argument
// struct and its grid), so that the OpenCL and the Level Zero plugin launch the shared .cl
// kernels the same way. Plain C++ over plugin_abi.h views; no vendor runtime.
//
// Errors are plugin::error with the caller's backend name in front ("opencl: ...").
#pragma once

#include "xpu_dtype.hpp"
#include "xpu_layout.hpp"

#include <xd/plugin_abi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace xd::xpu {

// ---------------------------------------------------------------- reductions (reduce.cl)
enum class reduce_op { sum, mean, amax, amin, argmax };

struct reduce_entries {
  const char* group;   // work-group per (output, split)
  const char* finish;  // work-group per output over the splits' partials
  const char* lane;    // work-item per output
};
reduce_entries entries_of(reduce_op op);

struct reduce_plan {
  bool by_group = false;        // false: the _lane kernel over n_out work-items
  int64_t splits = 1;           // work-groups per output; > 1: partials, then the _finish kernel
  int64_t chunk = 0;            // reduced elements per split
  int64_t groups = 0;           // work-groups of the _group kernel (n_out * splits)
  uint64_t partial_size = 0;    // bytes of one partial (argmax: of its value half, then 8-byte indices)
  uint64_t workspace_bytes = 0; // scratch to ask the host for; 0 when splits == 1
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
// (0 = input, offset 0). Throws XD_ERR_INVALID_ARGUMENT, naming `backend`.
struct reduce_shape {
  layout K{};
  layout R{};
  bool dense = false;
};
reduce_shape make_reduce_shape(reduce_op op, const xd_view& in, const xd_view& out, uint64_t dim_mask,
                               const char* backend);

// ---------------------------------------------------------------- softmax (softmax.cl)
// A work-group per row (the _row kernel) when rows are dense along the dim or too few to fill the
// device one work-item each; else the _lane kernel, a work-item per row.
inline bool softmax_by_group(int64_t step_in, int64_t rows) { return step_in == 1 || rows < 2048; }
// `short_row`: the _row_short kernel, for dense rows that fit its register cache (row_is_short).
const char* softmax_entry(bool log, bool by_group, bool short_row = false);

// ---------------------------------------------------------------- register-cached rows
// softmax.cl and rms_norm.cl hold a dense row of up to XD_WG * 4 * XD_ROW_ITEMS elements in
// registers; their `_short` kernels hold half that with half the registers, so more work-groups
// fit on a compute unit. XD_ROW_ITEMS: kRowItems (the sources' default, the SPIR-V's) on GPUs,
// kRowItemsCpu on CPU devices (the OpenCL plugin's build options): CPU runtimes gain little from a
// register cache and compile unrolled loops slowly, but at least 4 (common.cl says why).
inline constexpr int64_t kRowItems = 8;
inline constexpr int64_t kRowItemsCpu = 4;
// Whether a dense row of n elements fits the _short kernels' cache.
inline bool row_is_short(int64_t n, int64_t wg, int64_t row_items) {
  return n <= wg * 4 * (row_items / 2);
}

// ---------------------------------------------------------------- rms_norm (rms_norm.cl)
// Work-groups per compute unit of the backward pass when dw is wanted: each keeps an n-long
// partial of dw, so their number trades filling the device against the partials' traffic, and
// should stay within one wave (two 256-wide groups fit on every GPU we know of).
inline constexpr int64_t kRmsBackwardGroupsPerCu = 2;
// The persistent grid of xd_rms_norm_backward: its work-groups walk rows with a stride.
int64_t rms_backward_groups(int64_t rows, int64_t compute_units, bool want_dw,
                            int64_t groups_per_cu_with_dw = kRmsBackwardGroupsPerCu);
// Work-groups of xd_rms_norm_dw: it sums the partials of min(32, wg) columns per group.
inline int64_t rms_dw_groups(int64_t n, int64_t wg) {
  const int64_t cols = wg < 32 ? wg : 32;
  return (n + cols - 1) / cols;
}
// Bytes of one dw partial element (the compute type: double for f64 x, float otherwise).
inline uint64_t rms_partial_size(int32_t x_dtype) { return x_dtype == XD_DTYPE_F64 ? 8 : 4; }

// ---------------------------------------------------------------- matmul (matmul.cl)
// Field for field as xd_gemm in matmul.cl (8-byte fields, then two floats).
struct gemm_args {
  int64_t m, n, k, batch;
  int64_t a_off, a_b, a_m, a_k;
  int64_t b_off, b_b, b_k, b_n;
  int64_t c_off, c_b, c_m, c_n;
  int64_t i_off, i_b, i_m, i_n;
  int64_t has_input;
  int64_t alpha_d, beta_d;
  float alpha_f, beta_f;
};
static_assert(sizeof(gemm_args) == 192);

// The views of a MM / ADDMM / BMM / BADDBMM call and its arguments. `input` is the view the
// kernel's `in` argument gets: the call's input when beta != 0, else the output (a valid buffer
// that is never read, so a NaN in an ignored input cannot propagate).
struct gemm_call {
  const xd_view* a = nullptr;
  const xd_view* b = nullptr;
  const xd_view* out = nullptr;
  const xd_view* input = nullptr;
  gemm_args args{};
};
// Checks ranks, shapes and dtypes of `c` (op one of the four) and fills the argument struct.
gemm_call make_gemm(const xd_kernel_call* c, const char* backend);

struct gemm_launch {
  int64_t row0 = 0, batch0 = 0;  // the kernel's row0 / batch0 arguments
  int64_t groups[3] = {};        // work-groups along n (columns), rows, batch
};
struct gemm_plan {
  bool big = false;       // xd_gemm_big (128 x 128 tiles, 16 x 16 work-items) or xd_gemm_tiled
  int64_t tile = 0;       // outputs per work-group along each of m and n
  int64_t local[3] = {};  // the work-group size
  const char* entry = nullptr;
  std::vector<gemm_launch> launches;  // the grid cut where rows or batches exceed max_groups_yz
};
// `wg`: the work-group size the kernels are compiled for (XD_WG: XD_GT follows from it);
// `max_groups_yz`: the most work-groups a launch may have along dims 1 and 2.
gemm_plan plan_gemm(const gemm_args& g, int64_t wg, int64_t max_groups_yz);

}  // namespace xd::xpu
