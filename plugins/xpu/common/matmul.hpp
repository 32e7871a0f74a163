// MM, ADDMM, BMM, BADDBMM (kernels/matmul.cl) as both XPU variants launch them: one batched
// problem with arbitrary strides; the register-tiled kernels (128 x 128 tiles, _dense for aligned
// operands) for shapes that fill such tiles, the plain tiled kernel for small, skinny or odd
// ones, the grid cut into launches where rows or batches exceed the device's grid. The launcher
// is run_matmul (launchers.hpp); the argument struct and the plan are here for its tests, and
// gemm_launch for quant_mm's.
#pragma once

#include <xd/plugin_abi.h>

#include <cstdint>
#include <vector>

namespace xd::xpu {

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
gemm_call make_gemm(const xd_kernel_call* c);

struct gemm_launch {
  int64_t row0 = 0, batch0 = 0;  // the kernel's row0 / batch0 arguments
  int64_t groups[3] = {};        // work-groups along n (columns), rows, batch
};
struct gemm_plan {
  bool big = false;       // 128 x 128 tiles: xd_gemm_big (16 x 16 work-items), xd_gemm_mma_* (128 x 1)
  int64_t tile = 0;       // outputs per work-group along each of m and n
  int64_t local[3] = {};  // the work-group size
  const char* entry = nullptr;
  std::vector<gemm_launch> launches;  // the grid cut where rows or batches exceed max_groups_yz
};
// `wg`: the work-group size the kernels are compiled for (XD_WG: XD_GT follows from it);
// `max_groups_yz`: the most work-groups a launch may have along dims 1 and 2; `mma`: the device
// builds matmul_mma.cl's tensor-core kernels and the dtype is f16 or bf16. They are taken for
// shapes that fill their 128 x 128 tiles (m > 16, n >= 64, k >= 32), A dense along k, B dense
// along n (xd_gemm_mma_nn) or along k (xd_gemm_mma_nt), every offset and stride a multiple of 8
// elements and the dense extents (k; n for nn) too.
// `async_f32`: the device builds matmul_mma.cl's f32 kernels and the dtype is f32; then 2 <= m <= 16
// with the same alignment in chunks of 4 floats takes xd_gemm_async_skinny_nn / _nt (with mma,
// m in 2..16 takes xd_gemm_mma_skinny[64]_nn / _nt).
gemm_plan plan_gemm(const gemm_args& g, int64_t wg, int64_t max_groups_yz, bool mma = false, bool async_f32 = false);

}  // namespace xd::xpu
