// The int4 weight-only ops (int4.cl) as the XPU plugins launch them: the views of a
// WEIGHT_INT4_MM or QUANTIZE_INT4 call checked against each other, the argument struct, and the
// choice of kernel and grid. Plain C++ over plugin_abi.h views; errors are XD_ERR_INVALID_ARGUMENT
// named after the caller's backend.
#pragma once

#include <xd/plugin_abi.h>

#include <cstdint>
#include <vector>

namespace xd::xpu {

// Field for field as xd_int4 in int4.cl. Offsets in elements of each operand (bytes for the u8
// weight and the i8 zero points). For QUANTIZE_INT4, `x` is the float weight and `w` the packed
// output; m is unused.
struct int4_args {
  int64_t m, n, k, group;
  int64_t x_off, w_off, s_off, z_off, o_off;
};
static_assert(sizeof(int4_args) == 72);

struct int4_mm_call {
  const xd_view* x = nullptr;  // input [M, K]
  const xd_view* w = nullptr;  // u8 [N, K/2]
  const xd_view* s = nullptr;  // scales [K/g, N]
  const xd_view* z = nullptr;  // i8 [K/g, N]
  const xd_view* out = nullptr;
  int4_args args{};
};
// Every view must be dense row-major (the host makes them so) with element-aligned offsets.
int4_mm_call make_int4_mm(const xd_kernel_call* c, const char* backend);

struct quantize_int4_call {
  const xd_view* w = nullptr;       // [N, K]
  const xd_view* packed = nullptr;  // u8 [N, K/2]
  const xd_view* s = nullptr;
  const xd_view* z = nullptr;
  int4_args args{};
  int64_t items = 0;  // work-items of xd_quantize_int4: one per (group, row)
};
quantize_int4_call make_quantize_int4(const xd_kernel_call* c, const char* backend);

// The largest M the register-blocked xd_int4_gemv_m<MB> kernels take; larger M is tiled.
inline constexpr int64_t kInt4GemvMaxM = 16;

struct int4_launch {
  int64_t row0 = 0;
  int64_t groups[2] = {};  // along n (columns) and m (rows; 1 for the gemv)
};
struct int4_plan {
  bool gemv = false;
  const char* entry = nullptr;
  int64_t local[2] = {};              // the work-group size (gemv: {wg, 1})
  std::vector<int4_launch> launches;  // the tiled grid cut where rows exceed max_groups_y
};
// `wg`: the work-group size the kernels are compiled for (XD_WG, a power of two >= 4).
int4_plan plan_int4_mm(const int4_args& a, int64_t wg, int64_t max_groups_y);

}  // namespace xd::xpu
