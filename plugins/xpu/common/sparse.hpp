// CSR_ADDMM and CSR_TO_DENSE (kernels/sparse.cl) as both XPU variants launch them: the argument
// struct (host mirror of xd_csr), the checks of a call's views, and the grid: one work-group per
// row along x, column blocks along y, rows in launches of at most kCsrRowsPerLaunch. The launcher
// is run_csr (launchers.hpp).
#pragma once

#include <xd/plugin_abi.h>

#include <cstdint>

namespace xd::xpu {

// Field for field as xd_csr in sparse.cl; every field 8 bytes (the floats as a pair), no padding.
struct csr_args {
  int64_t batch, m, n, nnz;  // n: columns of the output (N for csr_mm, K for csr_to_dense)
  int64_t b_off, b_b, b_k, b_n;
  int64_t c_off, c_b, c_m, c_n;
  int64_t i_off, i_b, i_m, i_n;
  int64_t crow_off, col_off, val_off;  // element offsets of the components
  int64_t idx64;                       // indices are i64 (else i32)
  int64_t has_input;                   // beta * input is added
  int64_t alpha_d, beta_d;             // double bits
  float alpha_f, beta_f;
};
static_assert(sizeof(csr_args) == 8 * 23 + 8);

// Columns each work-item of xd_csr_mm accumulates (XD_CSR_COLS), and the largest work-group the
// kernels' local arrays hold (XD_CSR_MAX_WG).
inline constexpr int64_t kCsrCols = 4;
inline constexpr int64_t kCsrMaxGroup = 256;
// Rows per launch: keeps the work-items of dim 0 (rows * group) far below 2^31.
inline constexpr int64_t kCsrRowsPerLaunch = int64_t{1} << 20;

struct csr_call {
  csr_args args{};
  const xd_view* out = nullptr;
  const xd_view* crow = nullptr;
  const xd_view* col = nullptr;
  const xd_view* values = nullptr;
  const xd_view* b = nullptr;      // csr_addmm only
  const xd_view* input = nullptr;  // csr_addmm with beta != 0 only
  int64_t group = 0;               // work-items per work-group (one work-group per row)
  int64_t col_blocks = 1;          // work-groups along dim 1 (csr_addmm: N / (group * kCsrCols))
};

// Checks an XD_OP_CSR_ADDMM or XD_OP_CSR_TO_DENSE call and fills the arguments; `max_group` is
// the largest work-group the device runs these kernels with.
csr_call make_csr(const xd_kernel_call* c, int64_t max_group);

}  // namespace xd::xpu
