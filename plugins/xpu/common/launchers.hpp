// Every XPU op's launcher, written once for both variants over the launcher interface
// (launcher.hpp). One file per op family; kernel_list.cpp registers them.
#pragma once

#include "launcher.hpp"

#include <string>

namespace xd::xpu {

// pointwise.cpp: the entry point of a pointwise op is its list entry's user_data.
xd_status run_pointwise(const xd_kernel_call* c);  // fill, arange, unary and binary ops
xd_status run_compare(const xd_kernel_call* c);    // eq, lt, gt
xd_status run_where(const xd_kernel_call* c);
xd_status run_copy(const xd_kernel_call* c);
// The copy kernel of pointwise.cl from dtype `from` to dtype `to`.
std::string copy_entry(int32_t from, int32_t to);

xd_status run_random(const xd_kernel_call* c);     // random.cpp: rand, randn
xd_status run_reduction(const xd_kernel_call* c);  // reduction.cpp: sum, mean, amax, amin, argmax
xd_status run_softmax(const xd_kernel_call* c);    // softmax.cpp: softmax, log_softmax
xd_status run_rms_norm(const xd_kernel_call* c);   // rms_norm.cpp
xd_status run_rms_norm_backward(const xd_kernel_call* c);
xd_status run_layer_norm(const xd_kernel_call* c);  // layer_norm.cpp
xd_status run_layer_norm_backward(const xd_kernel_call* c);
xd_status run_matmul(const xd_kernel_call* c);   // matmul.cpp: mm, addmm, bmm, baddbmm
xd_status run_int4_mm(const xd_kernel_call* c);  // int4.cpp: weight_int4_mm, quantize_int4
xd_status run_quantize_int4(const xd_kernel_call* c);
xd_status run_int_mm(const xd_kernel_call* c);  // quant_mm.cpp: int_mm, scaled_mm
xd_status run_scaled_mm(const xd_kernel_call* c);
xd_status run_csr(const xd_kernel_call* c);  // sparse.cpp: csr_addmm, csr_to_dense
xd_status run_index_select(const xd_kernel_call* c);  // indexing.cpp
xd_status run_gather(const xd_kernel_call* c);        // indexing.cpp
xd_status run_attention(const xd_kernel_call* c);     // attention.cpp
xd_status run_conv2d(const xd_kernel_call* c);        // conv.cpp
xd_status run_cumsum(const xd_kernel_call* c);        // scan.cpp
xd_status run_topk(const xd_kernel_call* c);          // scan.cpp
// attention.cpp: check_device, and declines head dims the fused kernel cannot hold.
int32_t check_attention(const xd_kernel_call* c, char* reason, size_t reason_size);
// matmul.cpp: mm, addmm, bmm, baddbmm through matmul_dpas.cl (f16, bf16), and the check that
// declines a call on a device without the DPAS kernel or one plan_gemm_dpas does not take, saying why.
xd_status run_matmul_dpas(const xd_kernel_call* c);
int32_t check_matmul_dpas(const xd_kernel_call* c, char* reason, size_t reason_size);
xd_status run_max_pool2d(const xd_kernel_call* c);  // pool.cpp
xd_status run_avg_pool2d(const xd_kernel_call* c);

}  // namespace xd::xpu
