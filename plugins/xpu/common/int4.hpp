// WEIGHT_INT4_MM and QUANTIZE_INT4 (kernels/int4.cl, kernels/int4_mma.cl) as both XPU variants
// launch them: the views of a call checked against each other, the argument struct, and the choice
// of kernel and grid. The launchers are in launchers.hpp; the rest is here for their tests.
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
int4_mm_call make_int4_mm(const xd_kernel_call* c);

struct quantize_int4_call {
  const xd_view* w = nullptr;       // [N, K]
  const xd_view* packed = nullptr;  // u8 [N, K/2]
  const xd_view* s = nullptr;
  const xd_view* z = nullptr;
  int4_args args{};
  int64_t items = 0;  // work-items of xd_quantize_int4: one per (group, row)
};
quantize_int4_call make_quantize_int4(const xd_kernel_call* c);

// The largest M the register-blocked xd_int4_gemv_m<MB> kernels take; larger M is tiled.
inline constexpr int64_t kInt4GemvMaxM = 16;
// xd_int4_gemv_m1's XD_I4D_L (work-items along K per column, at most XD_WG) and XD_I4D_R (columns
// per work-item). The kernel walks column blocks grid-stride, so a build that overrides them
// (XD_OPENCL_BUILD_OPTIONS) stays correct.
inline constexpr int64_t kInt4DirectLanes = 32;
inline constexpr int64_t kInt4DirectCols = 8;

struct int4_launch {
  int64_t row0 = 0;
  int64_t groups[2] = {};  // along n (columns) and m (rows; 1 for the gemv)
};
// xd_int4_mma_m8/_m16 (NVIDIA only, f16 and bf16 inputs, group sizes that are multiples of
// kInt4MmaPiece): kInt4MmaSplitK warps of 32 work-items per group splitting K for the same
// XD_I4M_NT (kInt4MmaTiles) tiles of 8 columns; one launch per 16 rows. Grid-stride over column
// blocks, like xd_int4_gemv_m1.
inline constexpr int64_t kInt4MmaSplitK = 4;
inline constexpr int64_t kInt4MmaTiles = 4;
inline constexpr int64_t kInt4MmaRows = 16;
inline constexpr int64_t kInt4MmaPiece = 128;

// The shape constants above, overridable per device for tuning (device_info::int4: the OpenCL
// plugin's XD_OPENCL_INT4_TUNING) together with the matching -D options of the kernels.
struct int4_tuning {
  int64_t direct_lanes = kInt4DirectLanes;
  int64_t direct_cols = kInt4DirectCols;
  int64_t mma_split_k = kInt4MmaSplitK;
  int64_t mma_tiles = kInt4MmaTiles;
};

struct int4_plan {
  bool gemv = false;  // the gemv kernels take no row0 argument
  const char* entry = nullptr;
  int64_t local[2] = {};              // the work-group size (gemv: {wg, 1})
  int64_t local_bytes = 0;            // a __local buffer argument after row0 (the mma kernels)
  std::vector<int4_launch> launches;  // the tiled grid cut where rows exceed max_groups_y
};
// `wg`: the work-group size the kernels are compiled for (XD_WG, a power of two >= 4). `mma`: the
// device builds xd_int4_mma and the input is f16 or bf16; it is taken for M > 1 when the group size
// allows.
int4_plan plan_int4_mm(const int4_args& a, int64_t wg, int64_t max_groups_y, bool mma = false,
                       const int4_tuning& t = {});

}  // namespace xd::xpu
