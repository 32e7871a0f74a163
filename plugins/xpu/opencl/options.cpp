#include "options.hpp"

namespace xd::ocl {

namespace {

constexpr xd_option_desc text(const char* name, const char* doc) {
  return {sizeof(xd_option_desc), name, XD_OPTION_TEXT, 0, {}, {}, nullptr, "", doc};
}

const xd_option_desc kOptions[] = {
    text("XD_CACHE_DIR",
         "Folder of the OpenCL program binary cache (created if missing), or 'off'; unset: ~/.cache/xdispatch "
         "(none without HOME). Entries are keyed by device, driver, source hash and build options and verified by "
         "checksum. Read at the first program build."),
    text("XD_OPENCL_BUILD_OPTIONS",
         "Appended to the build options of every OpenCL program (and part of its cache key), e.g. -cl-mad-enable or "
         "the kernels' tuning defines. A build that fails reports the compiler's log. Read at each program build."),
    {sizeof(xd_option_desc),
     "XD_OPENCL_TIMESTAMPS",
     XD_OPTION_CHOICE,
     0,
     {},
     {},
     "kernel",
     "",
     "kernel: events are timed with an empty kernel even where markers carry timestamps (diagnostics); unset: "
     "probed per device. Read at a device's first timed event."},
    {sizeof(xd_option_desc),
     "XD_OPENCL_INT4_MMA",
     XD_OPTION_FLAG,
     0,
     {},
     {},
     nullptr,
     "1",
     "0: weight_int4_mm never takes the NVIDIA tensor-core kernels (to compare with the CUDA-core ones); 1: it does "
     "where the device builds them. Read when the plugin initialises."},
    {sizeof(xd_option_desc),
     "XD_OPENCL_MATMUL_MMA",
     XD_OPTION_FLAG,
     0,
     {},
     {},
     nullptr,
     "1",
     "0: mm, addmm, bmm, baddbmm, int_mm, scaled_mm and scaled_dot_product_attention never take the NVIDIA "
     "kernels of matmul_mma.cl, quant_mm_mma.cl and attention_mma.cl (tensor cores; the f32 cp.async gemv) and run "
     "the portable ones (to compare them); 1: they do where the device builds them. Read when the plugin "
     "initialises."},
    {sizeof(xd_option_desc),
     "XD_OPENCL_MATMUL_PACKED",
     XD_OPTION_FLAG,
     0,
     {},
     {},
     nullptr,
     "1",
     "0: mm, addmm, bmm and baddbmm in f16 and bf16 never take the packed tensor-core kernels (operands packed into "
     "a workspace, then copied by Hopper's bulk copy engine) and copy with cp.async (to compare them); 1: they do "
     "where the device has the bulk copy engine (compute capability 9.0) and m, n >= 1024. Read when the plugin "
     "initialises."},
    {sizeof(xd_option_desc),
     "XD_OPENCL_MATMUL_WGMMA",
     XD_OPTION_FLAG,
     0,
     {},
     {},
     nullptr,
     "1",
     "0: the packed f16 and bf16 matmuls and scaled_mm with use_fast_accum run the mma.sync kernels, and the matmul "
     "and quant_mm programs are built from source alone; 1: on a device of compute capability 9.x whose driver builds "
     "PTX rewritten for sm_90a (probed when the plugin initialises), they run the wgmma kernels (matmul_wgmma.cl, "
     "quant_mm_wgmma.cl). Read when the plugin initialises."},
    {sizeof(xd_option_desc),
     "XD_OPENCL_MATMUL_TMA",
     XD_OPTION_FLAG,
     0,
     {},
     {},
     nullptr,
     "1",
     "0: the wgmma matmuls pack A and B into a workspace first (xd_gemm_pack_wgmma); 1: where libcuda.so.1 encodes "
     "Hopper's tensor maps (cuTensorMapEncodeTiled), f16 and bf16 mm, addmm, bmm and baddbmm with m, n >= 1024 read "
     "A and B where they are by tensor-map copies (xd_gemm_wgmma_tma), with no packing pass. Read when the plugin "
     "initialises."},
    {sizeof(xd_option_desc),
     "XD_OPENCL_MATMUL_DPAS",
     XD_OPTION_CHOICE,
     0,
     {},
     {},
     "auto|0|emulate|emulate8|emulate16",
     "auto",
     "auto: mm, addmm, bmm, baddbmm in f16 and bf16 take matmul_dpas.cl's kernel (Intel matrix engines) on a "
     "device that reports cl_intel_subgroup_matrix_multiply_accumulate with a smallest sub-group size of 8 or 16; "
     "0: never (the portable kernels run); emulate8, emulate16 (emulate: emulate16): every device builds it with "
     "the extension's builtins emulated in OpenCL C for that sub-group size, a test mode for devices without them "
     "(PoCL), not a fast path. Read when the plugin initialises."},
    {sizeof(xd_option_desc),
     "XD_OPENCL_INT4_TUNING",
     XD_OPTION_INTEGERS,
     4,
     {1, 1, 1, 1},
     {256, 64, 32, 16},
     "lanes,cols,split_k,tiles",
     "32,8,4,4",
     "The int4 kernels' shape as the host sizes their grid (tuning); lanes, cols and tiles must match -DXD_I4D_L, "
     "-DXD_I4D_R and -DXD_I4M_NT in XD_OPENCL_BUILD_OPTIONS: a mismatch is slower, never wrong. Read when the "
     "plugin initialises."},
    {sizeof(xd_option_desc),
     "XD_OPENCL_RMS_BWD_GROUPS_PER_CU",
     XD_OPTION_INTEGER,
     1,
     {1},
     {64},
     nullptr,
     "2",
     "Work-groups per compute unit of rms_norm_backward when the weight gradient is wanted (tuning). Read when the "
     "plugin initialises."},
};

}  // namespace

std::span<const xd_option_desc> declared_options() { return kOptions; }

}  // namespace xd::ocl
