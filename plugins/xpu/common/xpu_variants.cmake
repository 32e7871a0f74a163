# Which dtype variants of each plugins/xpu/kernels/*.cl source exist, defined once for the build.
# A backend that compiles the sources ahead of time (Level Zero: SPIR-V) builds exactly these;
# the C++ side (kernel_list.cpp) says which entry points each variant must contain, and
# tests/plugins/levelzero checks the two against each other.
#
# common.cl is a prelude, not a program: every other source is compiled with it in front
# (as the OpenCL plugin concatenates it at run time).
#
# Tags are the kernel-source tags of xd_dtype (common.cl: -DXD_DT=<tag>). A variant is built in
# two flavours where it makes sense: "fp64" (-DXD_HAS_FP64, for devices with cl_khr_fp64) and
# "base" (no double code at all, so a device without fp64 accepts the module). f64 variants exist
# only in the fp64 flavour.

set(XD_XPU_PRELUDE common)
set(XD_XPU_ALL_TAGS f64 f32 f16 bf16 i8 u8 i32 i64 b8 e4m3 e5m2)
set(XD_XPU_FLOAT_TAGS f64 f32 f16 bf16)
set(XD_XPU_NUMERIC_TAGS f64 f32 f16 bf16 i8 u8 i32 i64)

# XD_XPU_TAGS_<source>: the variants of kernels/<source>.cl; a source not listed here is built
# for every tag (with a warning: add it here so that the build stays small).
set(XD_XPU_TAGS_pointwise ${XD_XPU_ALL_TAGS})
set(XD_XPU_TAGS_random ${XD_XPU_FLOAT_TAGS})
# reduce.cl: sum, amax, amin, argmax are registered for the integer dtypes too (mean is not:
# the .cl guards it with XD_FLOATING).
set(XD_XPU_TAGS_reduce ${XD_XPU_NUMERIC_TAGS})
set(XD_XPU_TAGS_softmax ${XD_XPU_FLOAT_TAGS})
set(XD_XPU_TAGS_rms_norm ${XD_XPU_FLOAT_TAGS})
# layer_norm.cl: weight and bias in x's dtype, so one module per x dtype.
set(XD_XPU_TAGS_layer_norm ${XD_XPU_FLOAT_TAGS})
set(XD_XPU_TAGS_matmul ${XD_XPU_FLOAT_TAGS})
# int4.cl: weight_int4_mm for f32, f16, bf16 inputs; quantize_int4 only for f32 and bf16 weights
# (the .cl guards it, and kernel_list.cpp lists it for those two only).
set(XD_XPU_TAGS_int4 f32 f16 bf16)
set(XD_XPU_TAGS_sparse ${XD_XPU_FLOAT_TAGS})
# quant_mm.cl: int_mm for i8, scaled_mm keyed on a's fp8 format (b's format is an argument).
set(XD_XPU_TAGS_quant_mm i8 e4m3 e5m2)
# indexing.cl: index_select and gather move elements of every dtype.
set(XD_XPU_TAGS_indexing ${XD_XPU_ALL_TAGS})
# attention.cl: scaled_dot_product_attention, floating only.
set(XD_XPU_TAGS_attention ${XD_XPU_FLOAT_TAGS})
# conv.cl: conv2d, floating only.
set(XD_XPU_TAGS_conv ${XD_XPU_FLOAT_TAGS})
# pool.cl: max_pool2d and avg_pool2d, floating only.
set(XD_XPU_TAGS_pool ${XD_XPU_FLOAT_TAGS})
# scan.cl: cumsum (keyed on the result's dtype) and topk, the numeric dtypes.
set(XD_XPU_TAGS_scan ${XD_XPU_NUMERIC_TAGS})

# matmul_dpas.cl: the matmul family on Intel's matrix engines (cl_intel_subgroup_matrix_multiply_accumulate),
# f16 and bf16 only.
set(XD_XPU_TAGS_matmul_dpas f16 bf16)

# XD_XPU_MODULES_<source>: a source built into several modules instead of one named after it, each
# "<module>=<definition>[,<definition>...]" (the names and definitions of kernel_list.cpp's
# program_sources and program_defines, which the OpenCL plugin builds from; tests/plugins/levelzero
# checks the modules' entry points and sub-group sizes against them). matmul_dpas.cl: one module per
# sub-group size of the builtins' two operand layouts, without matmul.cl's kernels.
set(XD_XPU_MODULES_matmul_dpas "matmul_dpas8=XD_GEMM_EPILOGUE_ONLY,XD_DPAS_SG=8"
                               "matmul_dpas16=XD_GEMM_EPILOGUE_ONLY,XD_DPAS_SG=16")
# XD_XPU_INCLUDES_<source>: other sources compiled in front of it, after the prelude (as
# program_sources orders them): matmul_dpas.cl reads matmul.cl's argument struct and epilogue.
set(XD_XPU_INCLUDES_matmul_dpas matmul)
# XD_XPU_SPIRV_VERSION_<source>: the SPIR-V version of its modules where it is not 1.0.
# matmul_dpas.cl requires its sub-group size (intel_reqd_sub_group_size), which SPIR-V expresses as
# the SubgroupSize execution mode of SPIR-V 1.1 (llvm-spirv-15 refuses it at 1.0); such modules are
# validated with spirv-val's OpenCL 2.2 rules, the OpenCL environment that accepts SPIR-V 1.1.
set(XD_XPU_SPIRV_VERSION_matmul_dpas 1.1)

# XD_XPU_WTAGS_<source>: a second dtype the source is specialised on (-DXD_WT=<wtag>), for each of
# its tags. rms_norm.cl reads the weight in its own dtype, and the CPU reference accepts any
# floating weight beside any floating x, so each (x, weight) pair gets a module, tagged
# "<tag>_<wtag>" (plain "<tag>" where the two are equal). A pair with f64 on either side exists in
# the fp64 flavour only. kernel_list.cpp (weight_dtypes) must list the same dtypes.
set(XD_XPU_WTAGS_rms_norm ${XD_XPU_FLOAT_TAGS})

# The work-group size the reduction kernels are compiled for (-DXD_WG): a build-time constant
# for SPIR-V, so it must fit every target device; 256 does on every Intel GPU.
set(XD_XPU_SPIRV_WORK_GROUP 256)
