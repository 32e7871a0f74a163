// One registration function per kernel file; xd_plugin_init calls them all. The dtype lists are
// the CPU reference's, so the two backends cover the same (op, dtype) pairs.
#pragma once

#include "kernels/launch.hpp"

#include <initializer_list>

namespace xd::ocl {

void register_pointwise(plugin::registrar& r);  // fill, arange, copy, unary, binary, compare, where
void register_random(plugin::registrar& r);     // rand, randn
void register_reduction(plugin::registrar& r);  // sum, mean, amax, amin, argmax
void register_softmax(plugin::registrar& r);    // softmax, log_softmax
void register_rms_norm(plugin::registrar& r);   // rms_norm, rms_norm_backward
void register_matmul(plugin::registrar& r);     // mm, addmm, bmm, baddbmm
void register_int4(plugin::registrar& r);       // weight_int4_mm, quantize_int4
void register_sparse(plugin::registrar& r);     // csr_addmm, csr_to_dense
void register_quant_mm(plugin::registrar& r);   // int_mm, scaled_mm

using dtype_list = std::initializer_list<xd_dtype>;
inline constexpr dtype_list kFloating = {XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16};
inline constexpr dtype_list kNumeric = {XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16,
                                        XD_DTYPE_I8,  XD_DTYPE_U8,  XD_DTYPE_I32, XD_DTYPE_I64};
inline constexpr dtype_list kNumericBool = {XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16, XD_DTYPE_I8,
                                            XD_DTYPE_U8,  XD_DTYPE_I32, XD_DTYPE_I64, XD_DTYPE_BOOL};
inline constexpr dtype_list kAll = {XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16,
                                    XD_DTYPE_I8,  XD_DTYPE_U8,  XD_DTYPE_I32, XD_DTYPE_I64,
                                    XD_DTYPE_BOOL, XD_DTYPE_F8E4M3FN, XD_DTYPE_F8E5M2};

// Registers fn for every dtype of the list, with supports_device() (plus `priority`).
inline void add_kernels(plugin::registrar& r, xd_op op, const char* name, xd_kernel_fn fn, dtype_list dtypes,
                        void* user_data = nullptr, int32_t priority = 0) {
  for (xd_dtype d : dtypes) r.add(op, d, fn, name, supports_device, user_data, priority);
}

using xpu::is_floating;

}  // namespace xd::ocl
