// INT_MM and SCALED_MM (kernels/quant_mm.cl) as both XPU variants launch them: the call checks
// (as the CPU reference makes them), the argument struct and the grid. The int_mm program is built
// with -DXD_HAS_INT_DOT where the OpenCL device has cl_khr_integer_dot_product; the SPIR-V modules
// never are (a build-time module must load on every device). The launchers are in launchers.hpp.
#pragma once

#include <xd/plugin_abi.h>

#include "matmul.hpp"  // gemm_launch

#include <cstdint>
#include <vector>

namespace xd::xpu {

// Field for field as xd_qmm in quant_mm.cl (8-byte fields only, so no padding question).
struct qmm_args {
  int64_t m, n, k;
  int64_t a_off, a_m, a_k;
  int64_t b_off, b_k, b_n;
  int64_t c_off, c_m, c_n;
  int64_t sa_off, sa_m;
  int64_t sb_off, sb_n;
  int64_t bias_off, bias_n;
  int64_t has_bias;
  int64_t a_fmt, b_fmt;  // 0 e4m3fn, 1 e5m2
  int64_t out_kind;      // 0 f32, 1 f16, 2 bf16
  int64_t bias_kind;
};
static_assert(sizeof(qmm_args) == 23 * 8);

// The views of a call and its arguments. For scaled_mm, `bias` is the view the kernel's bias
// argument gets: the call's bias, or the output when there is none (a valid buffer never read).
struct qmm_call {
  const xd_view* a = nullptr;
  const xd_view* b = nullptr;
  const xd_view* out = nullptr;
  const xd_view* scale_a = nullptr;
  const xd_view* scale_b = nullptr;
  const xd_view* bias = nullptr;
  qmm_args args{};
  bool fast_accum = false;  // scaled_mm: xd_attrs_scaled_mm's use_fast_accum (0 without the struct)
};
// Checks ranks, shapes and dtypes (as the CPU reference does) and fills the arguments.
qmm_call make_int_mm(const xd_kernel_call* c);
qmm_call make_scaled_mm(const xd_kernel_call* c);

// Entry points of quant_mm.cl.
inline constexpr const char* kIntMmEntry = "xd_int_mm";
// quant_mm_mma.cl (NVIDIA tensor cores); scaled_mm's by mat2's format
inline constexpr const char* kIntMmMmaEntry = "xd_int_mm_mma_nt";
inline constexpr const char* kScaledMmMmaE4m3 = "xd_scaled_mm_mma_nt_b_e4m3";
inline constexpr const char* kScaledMmMmaE5m2 = "xd_scaled_mm_mma_nt_b_e5m2";
inline constexpr const char* kScaledMmEntry = "xd_scaled_mm";
// quant_mm_wgmma.cl (Hopper's wgmma, operands packed by kQmmPackWgmma); scaled_mm's by mat2's
// format, taken only for calls that allow fast accumulation
inline constexpr const char* kScaledMmWgmmaE4m3 = "xd_scaled_mm_wgmma_b_e4m3";
inline constexpr const char* kScaledMmWgmmaE5m2 = "xd_scaled_mm_wgmma_b_e5m2";
inline constexpr const char* kQmmPackWgmma = "xd_qmm_pack_wgmma";

struct qmm_plan {
  int64_t block = 0;                  // outputs per work-group along m and n (XD_QB; 128 for _mma_)
  int64_t local[3] = {};              // the work-group size (XD_QL x XD_QL; 128 x 1 for _mma_)
  const char* entry = nullptr;        // plan_int_mm's choice (plan_qmm leaves it to the caller)
  std::vector<gemm_launch> launches;  // row0 and group counts; batch0 unused (0)
  // kScaledMmWgmma*: a and b are first packed into a workspace (kQmmPackWgmma: per operand its
  // ceil(rows / 128) tiles of `steps` k32 images of 256 chunks of 16 bytes); `unpacked_entry` (the
  // _mma_ kernel) runs the same call where no workspace can be had.
  bool packed = false;
  const char* unpacked_entry = nullptr;
  int64_t steps = 0;
};
// `wg`: the work-group size the module is compiled for (XD_WG: XD_QL follows from it);
// `max_groups_yz`: the most work-groups a launch may have along dim 1.
qmm_plan plan_qmm(const qmm_args& g, int64_t wg, int64_t max_groups_yz);
// int_mm's kernel: quant_mm_mma.cl's xd_int_mm_mma_nt where `mma` (the device builds it) and the
// operands suit it (more than 16 rows, n >= 64, k >= 64; a dense along k, b along k, offsets,
// row strides and k multiples of 16), else xd_int_mm over plan_qmm's grid.
qmm_plan plan_int_mm(const qmm_args& g, int64_t wg, int64_t max_groups_yz, bool mma);
// scaled_mm's kernel: quant_mm_mma.cl's xd_scaled_mm_mma_nt_b_<mat2's format> on the same
// conditions, else xd_scaled_mm. With `fast_wgmma` (the device builds quant_mm_wgmma.cl and the
// call allows fast accumulation) and m, n >= kPackedMin (matmul.hpp: packing pays only where tiles
// are read by many work-groups), xd_scaled_mm_wgmma_b_<mat2's format> on packed operands.
qmm_plan plan_scaled_mm(const qmm_args& g, int64_t wg, int64_t max_groups_yz, bool mma, bool fast_wgmma = false);

}  // namespace xd::xpu
