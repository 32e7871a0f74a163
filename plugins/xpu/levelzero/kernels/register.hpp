// Kernel registration from the shared table (plugins/xpu/common/kernel_table.hpp): every
// (op, dtype) the table lists gets its Level Zero launcher. Driver-free: a test calls it with a
// host that records what is registered.
#pragma once

#include <xd/plugin.hpp>

namespace xd::l0 {

void register_kernels(plugin::registrar& r);

// The launchers, one file each (argument order: the .cl kernels').
xd_status run_reduction(const xd_kernel_call* c);  // sum, mean, amax, amin, argmax (reduce.cl)
xd_status run_softmax(const xd_kernel_call* c);    // softmax.cl
xd_status run_log_softmax(const xd_kernel_call* c);
xd_status run_rms_norm(const xd_kernel_call* c);  // rms_norm.cl
xd_status run_rms_norm_backward(const xd_kernel_call* c);
xd_status run_matmul(const xd_kernel_call* c);  // mm, addmm, bmm, baddbmm (matmul.cl)
xd_status run_int4_mm(const xd_kernel_call* c);  // weight_int4_mm (int4.cl)
xd_status run_quantize_int4(const xd_kernel_call* c);
xd_status run_csr(const xd_kernel_call* c);     // csr_addmm, csr_to_dense (sparse.cl)
xd_status run_int_mm(const xd_kernel_call* c);  // quant_mm.cl
xd_status run_scaled_mm(const xd_kernel_call* c);

}  // namespace xd::l0
