#include "kernel_list.hpp"

#include <xd/dtype_set.hpp>

#include "launchers.hpp"

#include <algorithm>

namespace xd::xpu {

namespace {

// One entry: the kernel as the plugin registers it (op, name, dtypes, launcher, check; the
// pointwise launchers read their entry point from user_data), and the program and entry points
// it may launch. No entry points listed: copy's, which depend on the target dtype.
struct entry {
  plugin::kernel_def kernel;
  const char* source;
  std::array<const char*, 8> entries;
  // Registered only where a device of the plugin builds matmul_dpas.cl (registration::matmul_dpas),
  // from one program per sub-group size (kDpasPrograms) instead of `source`.
  bool dpas = false;
};

constexpr DtypeSet kFloat = dtypes::compute_floating;
constexpr DtypeSet kNumeric = dtypes::numeric;
constexpr DtypeSet kNumericBool = dtypes::numeric_bool;

constexpr entry kernel(xd_op op, const char* name, DtypeSet dtypes, const char* source, xd_kernel_fn fn,
                       std::array<const char*, 8> entries) {
  return {{op, name, dtypes, fn, nullptr, check_device}, source, entries};
}
// The matmul family on Intel's matrix engines (matmul_dpas.cl), before the general kernel of its op:
// check_matmul_dpas declines what the DPAS kernel does not take, and the general kernel runs it.
constexpr entry dpas(xd_op op, const char* name) {
  return {{op, name, DtypeSet{XD_DTYPE_F16, XD_DTYPE_BF16}, run_matmul_dpas, nullptr, check_matmul_dpas},
          "matmul_dpas",
          {"xd_gemm_dpas"},
          true};
}
constexpr std::array<const char*, 2> kDpasPrograms = {"matmul_dpas8", "matmul_dpas16"};

// A pointwise.cl op: one entry point, which its launcher reads from user_data.
constexpr entry pointwise(xd_op op, const char* name, DtypeSet dtypes, xd_kernel_fn fn, const char* entry_point) {
  return {{op, name, dtypes, fn, nullptr, check_device, const_cast<char*>(entry_point)}, "pointwise", {entry_point}};
}

// The list. Mostly one kernel per (op, dtype): each launcher picks among its op's entry points per
// call (reduce: _group with _finish for split ranges, or _lane; softmax: _row or _lane; matmul:
// big, big dense or tiled; int4: the gemv of the smallest row block that holds M, the tensor-core
// or the tiled kernel), so every entry point it may pick is listed. A kernel specialised for some
// calls goes before the general one of its op, with a check that declines the others: the matmul
// family's DPAS kernels (registered only where a device builds them).
constexpr std::array<const char*, 8> kMatmulEntries = {"xd_gemm_tiled",     "xd_gemm_big",       "xd_gemm_big_dense",
                                                       "xd_gemm_skinny_m1", "xd_gemm_skinny_m4", "xd_gemm_skinny_m8",
                                                       "xd_gemm_skinny_m16"};

constexpr entry kList[] = {
    pointwise(XD_OP_FILL, "fill", dtypes::all, run_pointwise, "xd_fill"),
    pointwise(XD_OP_ARANGE, "arange", kNumeric, run_pointwise, "xd_arange"),
    kernel(XD_OP_COPY, "copy", dtypes::all, "pointwise", run_copy, {}),
    pointwise(XD_OP_ADD, "add", kNumeric, run_pointwise, "xd_add"),
    pointwise(XD_OP_SUB, "sub", kNumeric, run_pointwise, "xd_sub"),
    pointwise(XD_OP_MUL, "mul", kNumeric, run_pointwise, "xd_mul"),
    pointwise(XD_OP_DIV, "div", kFloat, run_pointwise, "xd_div"),
    pointwise(XD_OP_MAXIMUM, "maximum", kNumeric, run_pointwise, "xd_maximum"),
    pointwise(XD_OP_MINIMUM, "minimum", kNumeric, run_pointwise, "xd_minimum"),
    pointwise(XD_OP_POW, "pow", kFloat, run_pointwise, "xd_pow"),
    pointwise(XD_OP_WHERE, "where", kNumericBool, run_where, "xd_where"),
    pointwise(XD_OP_EQ, "eq", kNumericBool, run_compare, "xd_eq"),
    pointwise(XD_OP_LT, "lt", kNumeric, run_compare, "xd_lt"),
    pointwise(XD_OP_GT, "gt", kNumeric, run_compare, "xd_gt"),
    pointwise(XD_OP_NE, "ne", kNumericBool, run_compare, "xd_ne"),
    pointwise(XD_OP_GE, "ge", kNumeric, run_compare, "xd_ge"),
    pointwise(XD_OP_LE, "le", kNumeric, run_compare, "xd_le"),
    pointwise(XD_OP_NEG, "neg", kNumeric, run_pointwise, "xd_neg"),
    pointwise(XD_OP_ABS, "abs", kNumeric, run_pointwise, "xd_abs"),
    pointwise(XD_OP_RELU, "relu", kNumeric, run_pointwise, "xd_relu"),
    pointwise(XD_OP_EXP, "exp", kFloat, run_pointwise, "xd_exp"),
    pointwise(XD_OP_LOG, "log", kFloat, run_pointwise, "xd_log"),
    pointwise(XD_OP_SQRT, "sqrt", kFloat, run_pointwise, "xd_sqrt"),
    pointwise(XD_OP_RSQRT, "rsqrt", kFloat, run_pointwise, "xd_rsqrt"),
    pointwise(XD_OP_GELU, "gelu", kFloat, run_pointwise, "xd_gelu"),
    pointwise(XD_OP_SILU, "silu", kFloat, run_pointwise, "xd_silu"),
    pointwise(XD_OP_SIGMOID, "sigmoid", kFloat, run_pointwise, "xd_sigmoid"),
    pointwise(XD_OP_TANH, "tanh", kFloat, run_pointwise, "xd_tanh"),
    pointwise(XD_OP_CLAMP, "clamp", kNumeric, run_pointwise, "xd_clamp"),
    pointwise(XD_OP_FLOOR, "floor", kNumeric, run_pointwise, "xd_floor"),
    pointwise(XD_OP_ROUND, "round", kNumeric, run_pointwise, "xd_round"),
    kernel(XD_OP_RAND, "rand", kFloat, "random", run_random, {"xd_rand"}),
    kernel(XD_OP_RANDN, "randn", kFloat, "random", run_random, {"xd_randn"}),
    kernel(XD_OP_SUM, "sum", kNumeric, "reduce", run_reduction, {"xd_sum_group", "xd_sum_finish", "xd_sum_lane"}),
    kernel(XD_OP_MEAN, "mean", kFloat, "reduce", run_reduction, {"xd_mean_group", "xd_mean_finish", "xd_mean_lane"}),
    kernel(XD_OP_AMAX, "amax", kNumeric, "reduce", run_reduction, {"xd_amax_group", "xd_amax_finish", "xd_amax_lane"}),
    kernel(XD_OP_AMIN, "amin", kNumeric, "reduce", run_reduction, {"xd_amin_group", "xd_amin_finish", "xd_amin_lane"}),
    kernel(XD_OP_ARGMAX, "argmax", kNumeric, "reduce", run_reduction,
           {"xd_argmax_group", "xd_argmax_finish", "xd_argmax_lane"}),
    kernel(XD_OP_SOFTMAX, "softmax", kFloat, "softmax", run_softmax,
           {"xd_softmax_row", "xd_softmax_row_short", "xd_softmax_lane"}),
    kernel(XD_OP_LOG_SOFTMAX, "log_softmax", kFloat, "softmax", run_softmax,
           {"xd_log_softmax_row", "xd_log_softmax_row_short", "xd_log_softmax_lane"}),
    kernel(XD_OP_RMS_NORM, "rms_norm", kFloat, "rms_norm", run_rms_norm, {"xd_rms_norm", "xd_rms_norm_short"}),
    kernel(XD_OP_RMS_NORM_BACKWARD, "rms_norm_backward", kFloat, "rms_norm", run_rms_norm_backward,
           {"xd_rms_norm_backward", "xd_rms_norm_backward_short", "xd_rms_norm_dw"}),
    kernel(XD_OP_LAYER_NORM, "layer_norm", kFloat, "layer_norm", run_layer_norm, {"xd_layer_norm"}),
    kernel(XD_OP_LAYER_NORM_BACKWARD, "layer_norm_backward", kFloat, "layer_norm", run_layer_norm_backward,
           {"xd_layer_norm_backward", "xd_layer_norm_dwdb"}),
    dpas(XD_OP_MM, "mm.dpas"),
    dpas(XD_OP_ADDMM, "addmm.dpas"),
    dpas(XD_OP_BMM, "bmm.dpas"),
    dpas(XD_OP_BADDBMM, "baddbmm.dpas"),
    kernel(XD_OP_MM, "mm", kFloat, "matmul", run_matmul, kMatmulEntries),
    kernel(XD_OP_ADDMM, "addmm", kFloat, "matmul", run_matmul, kMatmulEntries),
    kernel(XD_OP_BMM, "bmm", kFloat, "matmul", run_matmul, kMatmulEntries),
    kernel(XD_OP_BADDBMM, "baddbmm", kFloat, "matmul", run_matmul, kMatmulEntries),
    // The NVIDIA kernels (xd_gemm_mma_*, xd_gemm_async_* of matmul_mma.cl and matmul_mma_stream.cl, xd_int_mm_mma_nt of
    // quant_mm_mma.cl, xd_int4_mma_* of int4_mma.cl) exist only in NVIDIA builds of the OpenCL
    // programs (-DXD_NV_MMA), so they are not listed among the entry points every module has.
    kernel(XD_OP_WEIGHT_INT4_MM, "weight_int4_mm", DtypeSet{XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16}, "int4",
           run_int4_mm,
           {"xd_int4_gemv_m1", "xd_int4_gemv_m1_dense", "xd_int4_gemv_m2", "xd_int4_gemv_m4", "xd_int4_gemv_m8",
            "xd_int4_gemv_m16", "xd_int4_mm_tiled"}),
    kernel(XD_OP_QUANTIZE_INT4, "quantize_int4", DtypeSet{XD_DTYPE_F32, XD_DTYPE_BF16}, "int4", run_quantize_int4,
           {"xd_quantize_int4"}),
    // One entry point for i32 and i64 indices (sparse.cl reads them by a uniform flag).
    kernel(XD_OP_CSR_ADDMM, "csr_addmm", kFloat, "sparse", run_csr, {"xd_csr_mm"}),
    kernel(XD_OP_CSR_TO_DENSE, "csr_to_dense", kFloat, "sparse", run_csr, {"xd_csr_to_dense"}),
    kernel(XD_OP_INT_MM, "int_mm", DtypeSet{XD_DTYPE_I8}, "quant_mm", run_int_mm, {"xd_int_mm"}),
    kernel(XD_OP_SCALED_MM, "scaled_mm", dtypes::fp8, "quant_mm", run_scaled_mm, {"xd_scaled_mm"}),
    kernel(XD_OP_INDEX_SELECT, "index_select", dtypes::all, "indexing", run_index_select, {"xd_index_select"}),
    kernel(XD_OP_GATHER, "gather", dtypes::all, "indexing", run_gather, {"xd_gather"}),
    {{XD_OP_SCALED_DOT_PRODUCT_ATTENTION, "scaled_dot_product_attention", kFloat, run_attention, nullptr,
      check_attention},
     "attention",
     {"xd_attention"}},
    kernel(XD_OP_CONV2D, "conv2d", kFloat, "conv", run_conv2d, {"xd_conv2d"}),
    kernel(XD_OP_MAX_POOL2D, "max_pool2d", kFloat, "pool", run_max_pool2d, {"xd_max_pool2d"}),
    kernel(XD_OP_AVG_POOL2D, "avg_pool2d", kFloat, "pool", run_avg_pool2d, {"xd_avg_pool2d"}),
    kernel(XD_OP_CUMSUM, "cumsum", kNumeric, "scan", run_cumsum, {"xd_cumsum_row", "xd_cumsum_lane"}),
    kernel(XD_OP_TOPK, "topk", kNumeric, "scan", run_topk, {"xd_topk"}),
};

}  // namespace

void register_kernels(plugin::registrar& r, const registration& what) {
  for (const entry& e : kList)
    if (!e.dpas || what.matmul_dpas) plugin::register_kernel(r, e.kernel);
}

std::vector<kernel_entry_point> kernels_for(int32_t dtype, bool fp64) {
  std::vector<kernel_entry_point> out;
  if (dtype_tag(dtype) == nullptr || (dtype == XD_DTYPE_F64 && !fp64)) return out;
  for (const entry& e : kList) {
    if (!e.kernel.dtypes.contains(dtype)) continue;
    if (e.dpas) {
      for (const char* program : kDpasPrograms) out.push_back({e.kernel.op, program, e.entries[0]});
      continue;
    }
    if (e.entries[0] != nullptr) {
      for (const char* name : e.entries)
        if (name != nullptr) out.push_back({e.kernel.op, e.source, name});
      continue;
    }
    // COPY: bits moved as they are within a dtype, a cast kernel per other target dtype. The cast
    // to f64 exists only where double code is compiled.
    for (int32_t to = 0; to < XD_DTYPE_COUNT_V1; ++to)
      if (to == dtype || to != XD_DTYPE_F64 || fp64) out.push_back({e.kernel.op, e.source, copy_entry(dtype, to)});
  }
  return out;
}

std::vector<xd_op> registered_ops(int32_t dtype) {
  std::vector<xd_op> out;
  for (const entry& e : kList)
    if (e.kernel.dtypes.contains(dtype) && std::find(out.begin(), out.end(), e.kernel.op) == out.end())
      out.push_back(e.kernel.op);
  return out;
}

std::vector<std::string> compiled_but_unused(int32_t dtype, bool fp64) {
  std::vector<std::string> out;
  const char* tag = dtype_tag(dtype);
  if (tag == nullptr || (dtype == XD_DTYPE_F64 && !fp64)) return out;
  // pointwise.cl defines the cast to every dtype, its own included; a copy within a dtype takes
  // xd_copy_same instead (bit-exact, NaN payloads kept).
  out.push_back(std::string("xd_copy_to_") + tag);
  // pointwise.cl compiles xd_where for fp8 too, but the CPU reference (the oracle) has no fp8
  // WHERE, so no backend registers it.
  if (dtypes::fp8.contains(dtype)) out.push_back("xd_where");
  return out;
}

std::vector<int32_t> weight_dtypes(const std::string& source, int32_t dtype) {
  // rms_norm.cl reads the weight as XD_WT; the CPU reference takes a weight of any floating dtype
  // beside a floating x (plugins/cpu/kernels/rms_norm.cpp), so every pair has its program.
  if (source != "rms_norm" || !kFloat.contains(dtype)) return {};
  return {XD_DTYPE_F64, XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16};
}

std::string module_tag(int32_t dtype, int32_t wtype) {
  const char* tag = dtype_tag(dtype);
  if (tag == nullptr) return {};
  if (wtype < 0 || wtype == dtype) return tag;
  const char* wtag = dtype_tag(wtype);
  return wtag == nullptr ? std::string() : std::string(tag) + "_" + wtag;
}

bool parse_module_tag(const std::string& tag, int32_t& dtype, int32_t& wtype) {
  const size_t cut = tag.find('_');
  const std::string first = tag.substr(0, cut), second = cut == std::string::npos ? first : tag.substr(cut + 1);
  dtype = wtype = -1;
  for (int32_t d = 0; d < XD_DTYPE_COUNT_V1; ++d) {
    if (first == dtype_tag(d)) dtype = d;
    if (second == dtype_tag(d)) wtype = d;
  }
  return dtype >= 0 && wtype >= 0 && (cut == std::string::npos || dtype != wtype);
}

bool module_needs_fp64(int32_t dtype, int32_t wtype) { return dtype == XD_DTYPE_F64 || wtype == XD_DTYPE_F64; }

std::vector<std::string> program_sources(const std::string& source) {
  // int4_mma.cl, mma_common.cl, matmul_mma[_stream].cl, quant_mm_mma.cl and attention_mma.cl: empty without XD_NV_MMA
  // (and for dtypes they do not serve); wgmma_common.cl, matmul_wgmma.cl and quant_mm_wgmma.cl without XD_NV_WGMMA
  if (source == "int4") return {"common", "int4", "int4_mma"};
  if (source == "matmul")
    return {"common", "matmul", "mma_common", "matmul_mma", "matmul_mma_stream", "wgmma_common", "matmul_wgmma"};
  if (source == "quant_mm")
    return {"common", "quant_mm", "mma_common", "quant_mm_mma", "wgmma_common", "quant_mm_wgmma"};
  if (source == "attention") return {"common", "attention", "mma_common", "attention_mma"};
  // matmul_dpas.cl reads matmul.cl's argument struct and epilogue (program_defines leaves out its kernels).
  if (source == "matmul_dpas8" || source == "matmul_dpas16") return {"common", "matmul", "matmul_dpas"};
  return {"common", source};
}

std::vector<std::string> program_defines(const std::string& source) {
  // Level Zero's build makes the same modules (xpu_variants.cmake: XD_XPU_MODULES_matmul_dpas);
  // tests/plugins/levelzero checks their entry points and sub-group sizes against these.
  if (source == "matmul_dpas8") return {"XD_GEMM_EPILOGUE_ONLY", "XD_DPAS_SG=8"};
  if (source == "matmul_dpas16") return {"XD_GEMM_EPILOGUE_ONLY", "XD_DPAS_SG=16"};
  return {};
}

}  // namespace xd::xpu
