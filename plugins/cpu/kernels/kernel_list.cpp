// The CPU backend's one registration list: every kernel, in the order its dispatch slot tries it,
// as oneDNN keeps its implementation lists. For each op the specialised kernels come first
// (oneDNN's matmul, which declines with a reason what it cannot take) and the reference loop
// last, so the oracle every other backend is checked against always answers. The fast kernels
// (kernels/fast/: vectorised through Highway, multi-threaded) stand in front of the reference
// loops of their op; XD_CPU_KERNELS=reference leaves them out, and xd-conform compares them with
// the loops (the last kernel of each slot) on every run. Each entry is
// defined beside its kernel (op, name, dtypes, check); this file only orders them.
#include "kernels/kernel_list.hpp"

namespace xd::cpu {

extern const plugin::kernel_def def_fill, def_arange, def_rand, def_randn, def_copy;
extern const plugin::kernel_def def_add, def_sub, def_mul, def_div, def_maximum, def_minimum;
extern const plugin::kernel_def def_eq, def_lt, def_gt, def_ne, def_ge, def_le, def_where;
extern const plugin::kernel_def def_neg, def_abs, def_relu, def_exp, def_log, def_sqrt, def_rsqrt, def_gelu, def_silu,
    def_sigmoid, def_tanh, def_pow, def_clamp, def_floor, def_round;
extern const plugin::kernel_def def_sum, def_mean, def_amax, def_amin, def_argmax;
extern const plugin::kernel_def def_softmax, def_log_softmax;
extern const plugin::kernel_def def_mm_loop, def_addmm_loop, def_bmm_loop, def_baddbmm_loop;
extern const plugin::kernel_def def_int_mm_loop, def_scaled_mm_loop;
extern const plugin::kernel_def def_rms_norm, def_rms_norm_backward;
extern const plugin::kernel_def def_layer_norm_fast, def_layer_norm, def_layer_norm_backward;
extern const plugin::kernel_def def_weight_int4_mm_fast, def_weight_int4_mm, def_quantize_int4;
extern const plugin::kernel_def def_csr_addmm, def_csr_to_dense;
extern const plugin::kernel_def def_index_select;
extern const plugin::kernel_def def_gather;
extern const plugin::kernel_def def_scaled_dot_product_attention_fast, def_scaled_dot_product_attention;
extern const plugin::kernel_def def_conv2d;
extern const plugin::kernel_def def_max_pool2d, def_avg_pool2d;
extern const plugin::kernel_def def_cumsum, def_topk;
extern const plugin::kernel_def def_copy_fast, def_add_fast, def_sub_fast, def_mul_fast, def_div_fast;
extern const plugin::kernel_def def_sum_fast, def_mean_fast, def_amax_fast, def_amin_fast, def_argmax_fast;
extern const plugin::kernel_def def_softmax_fast, def_log_softmax_fast, def_rms_norm_fast, def_rms_norm_backward_fast;
extern const plugin::kernel_def def_exp_fast, def_sigmoid_fast, def_silu_fast, def_tanh_fast, def_gelu_fast;
extern const plugin::kernel_def def_eq_fast, def_ne_fast, def_lt_fast, def_le_fast, def_gt_fast, def_ge_fast,
    def_where_fast;
extern const plugin::kernel_def def_log_fast, def_sqrt_fast, def_rsqrt_fast, def_relu_fast, def_neg_fast, def_abs_fast,
    def_pow_fast;
#ifdef XD_CPU_HAVE_DNNL
extern const plugin::kernel_def def_mm_dnnl, def_addmm_dnnl, def_bmm_dnnl, def_baddbmm_dnnl, def_int_mm_dnnl;
extern const plugin::kernel_def def_mm_dnnl_f32, def_addmm_dnnl_f32, def_bmm_dnnl_f32, def_baddbmm_dnnl_f32;
extern const plugin::kernel_def def_conv2d_dnnl;
extern const plugin::kernel_def def_weight_int4_mm_dnnl;
#endif

namespace {

const plugin::kernel_def* const kKernels[] = {
    // creation, random numbers, copies and casts
    &def_fill,
    &def_arange,
    &def_rand,
    &def_randn,
    &def_copy_fast,
    &def_copy,
    // pointwise
    &def_add_fast,
    &def_add,
    &def_sub_fast,
    &def_sub,
    &def_mul_fast,
    &def_mul,
    &def_div_fast,
    &def_div,
    &def_maximum,
    &def_minimum,
    &def_eq_fast,
    &def_eq,
    &def_lt_fast,
    &def_lt,
    &def_gt_fast,
    &def_gt,
    &def_ne_fast,
    &def_ne,
    &def_ge_fast,
    &def_ge,
    &def_le_fast,
    &def_le,
    &def_where_fast,
    &def_where,
    &def_neg_fast,
    &def_neg,
    &def_abs_fast,
    &def_abs,
    &def_relu_fast,
    &def_relu,
    &def_exp_fast,
    &def_exp,
    &def_log_fast,
    &def_log,
    &def_sqrt_fast,
    &def_sqrt,
    &def_rsqrt_fast,
    &def_rsqrt,
    &def_gelu_fast,
    &def_gelu,
    &def_silu_fast,
    &def_silu,
    &def_sigmoid_fast,
    &def_sigmoid,
    &def_tanh_fast,
    &def_tanh,
    &def_pow_fast,
    &def_pow,
    &def_clamp,
    &def_floor,
    &def_round,
    // reductions and softmax
    &def_sum_fast,
    &def_sum,
    &def_mean_fast,
    &def_mean,
    &def_amax_fast,
    &def_amax,
    &def_amin_fast,
    &def_amin,
    &def_argmax_fast,
    &def_argmax,
    &def_softmax_fast,
    &def_softmax,
    &def_log_softmax_fast,
    &def_log_softmax,
// matmul: oneDNN first (native f32/bf16, then f16/bf16 through f32), the loops last
#ifdef XD_CPU_HAVE_DNNL
    &def_mm_dnnl,
    &def_addmm_dnnl,
    &def_bmm_dnnl,
    &def_baddbmm_dnnl,
    &def_int_mm_dnnl,
    &def_mm_dnnl_f32,
    &def_addmm_dnnl_f32,
    &def_bmm_dnnl_f32,
    &def_baddbmm_dnnl_f32,
#endif
    &def_mm_loop,
    &def_addmm_loop,
    &def_bmm_loop,
    &def_baddbmm_loop,
    &def_int_mm_loop,
    &def_scaled_mm_loop,
    // normalisation, quantized and sparse matmul
    &def_rms_norm_fast,
    &def_rms_norm,
    &def_rms_norm_backward_fast,
    &def_rms_norm_backward,
    &def_layer_norm_fast,
    &def_layer_norm,
    &def_layer_norm_backward,
#ifdef XD_CPU_HAVE_DNNL
    &def_weight_int4_mm_dnnl,
#endif
    &def_weight_int4_mm_fast,
    &def_weight_int4_mm,
    &def_quantize_int4,
    &def_csr_addmm,
    &def_csr_to_dense,
    // indexing
    &def_index_select,
    &def_gather,
    // attention
    &def_scaled_dot_product_attention_fast,
    &def_scaled_dot_product_attention,
// convolution: oneDNN first, the reference loop last
#ifdef XD_CPU_HAVE_DNNL
    &def_conv2d_dnnl,
#endif
    &def_conv2d,
    // pooling
    &def_max_pool2d,
    &def_avg_pool2d,
    // scans and selections
    &def_cumsum,
    &def_topk,
};

}  // namespace

void register_kernels(plugin::registrar& r) { plugin::register_kernels(r, kKernels); }

}  // namespace xd::cpu
