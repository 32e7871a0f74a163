#include "kernel_table.hpp"

namespace xd::xpu {

namespace {

// The dtype classes of common.cl (xd_N_<tag>): which kernels a variant contains.
enum class kind { floating, f64, integer, boolean, fp8 };

kind kind_of(int32_t dtype) {
  switch (dtype) {
    case XD_DTYPE_F64: return kind::f64;
    case XD_DTYPE_F32:
    case XD_DTYPE_F16:
    case XD_DTYPE_BF16: return kind::floating;
    case XD_DTYPE_BOOL: return kind::boolean;
    case XD_DTYPE_F8E4M3FN:
    case XD_DTYPE_F8E5M2: return kind::fp8;
    default: return kind::integer;
  }
}

bool is_floating(int32_t d) { return kind_of(d) == kind::floating || kind_of(d) == kind::f64; }
bool is_numeric(int32_t d) { return is_floating(d) || kind_of(d) == kind::integer; }
bool is_numeric_bool(int32_t d) { return is_numeric(d) || kind_of(d) == kind::boolean; }

// One row per op: its source, the entry points it may launch and the dtypes it is registered for.
struct row {
  xd_op op;
  const char* source;
  // nullptr-terminated; all nullptr: COPY, whose entry points depend on the target dtype.
  const char* entries[8];
  bool (*dtypes)(int32_t);
};

bool any(int32_t) { return true; }
bool int4_mm_dtype(int32_t d) { return d == XD_DTYPE_F32 || d == XD_DTYPE_F16 || d == XD_DTYPE_BF16; }
bool quantize_dtype(int32_t d) { return d == XD_DTYPE_F32 || d == XD_DTYPE_BF16; }
bool is_i8(int32_t d) { return d == XD_DTYPE_I8; }
bool is_fp8(int32_t d) { return kind_of(d) == kind::fp8; }

// The launchers pick among an op's entry points per call (reduce: _group with _finish for split
// ranges, or _lane; softmax: _row or _lane; matmul: big or tiled), so every one is registered.
const row kRows[] = {
    {XD_OP_FILL, "pointwise", {"xd_fill"}, any},
    {XD_OP_ARANGE, "pointwise", {"xd_arange"}, is_numeric},
    {XD_OP_COPY, "pointwise", {}, any},
    {XD_OP_ADD, "pointwise", {"xd_add"}, is_numeric},
    {XD_OP_SUB, "pointwise", {"xd_sub"}, is_numeric},
    {XD_OP_MUL, "pointwise", {"xd_mul"}, is_numeric},
    {XD_OP_DIV, "pointwise", {"xd_div"}, is_floating},
    {XD_OP_POW, "pointwise", {"xd_pow"}, is_floating},
    {XD_OP_WHERE, "pointwise", {"xd_where"}, is_numeric_bool},
    {XD_OP_EQ, "pointwise", {"xd_eq"}, is_numeric_bool},
    {XD_OP_LT, "pointwise", {"xd_lt"}, is_numeric},
    {XD_OP_GT, "pointwise", {"xd_gt"}, is_numeric},
    {XD_OP_NEG, "pointwise", {"xd_neg"}, is_numeric},
    {XD_OP_ABS, "pointwise", {"xd_abs"}, is_numeric},
    {XD_OP_RELU, "pointwise", {"xd_relu"}, is_numeric},
    {XD_OP_EXP, "pointwise", {"xd_exp"}, is_floating},
    {XD_OP_LOG, "pointwise", {"xd_log"}, is_floating},
    {XD_OP_SQRT, "pointwise", {"xd_sqrt"}, is_floating},
    {XD_OP_RSQRT, "pointwise", {"xd_rsqrt"}, is_floating},
    {XD_OP_GELU, "pointwise", {"xd_gelu"}, is_floating},
    {XD_OP_SILU, "pointwise", {"xd_silu"}, is_floating},
    {XD_OP_SIGMOID, "pointwise", {"xd_sigmoid"}, is_floating},
    {XD_OP_TANH, "pointwise", {"xd_tanh"}, is_floating},
    {XD_OP_RAND, "random", {"xd_rand"}, is_floating},
    {XD_OP_RANDN, "random", {"xd_randn"}, is_floating},
    {XD_OP_SUM, "reduce", {"xd_sum_group", "xd_sum_finish", "xd_sum_lane"}, is_numeric},
    {XD_OP_MEAN, "reduce", {"xd_mean_group", "xd_mean_finish", "xd_mean_lane"}, is_floating},
    {XD_OP_AMAX, "reduce", {"xd_amax_group", "xd_amax_finish", "xd_amax_lane"}, is_numeric},
    {XD_OP_AMIN, "reduce", {"xd_amin_group", "xd_amin_finish", "xd_amin_lane"}, is_numeric},
    {XD_OP_ARGMAX, "reduce", {"xd_argmax_group", "xd_argmax_finish", "xd_argmax_lane"}, is_numeric},
    {XD_OP_SOFTMAX, "softmax", {"xd_softmax_row", "xd_softmax_row_short", "xd_softmax_lane"}, is_floating},
    {XD_OP_LOG_SOFTMAX,
     "softmax",
     {"xd_log_softmax_row", "xd_log_softmax_row_short", "xd_log_softmax_lane"},
     is_floating},
    {XD_OP_RMS_NORM, "rms_norm", {"xd_rms_norm", "xd_rms_norm_short"}, is_floating},
    {XD_OP_RMS_NORM_BACKWARD,
     "rms_norm",
     {"xd_rms_norm_backward", "xd_rms_norm_backward_short", "xd_rms_norm_dw"},
     is_floating},
    {XD_OP_MM, "matmul", {"xd_gemm_tiled", "xd_gemm_big", "xd_gemm_big_dense"}, is_floating},
    {XD_OP_ADDMM, "matmul", {"xd_gemm_tiled", "xd_gemm_big", "xd_gemm_big_dense"}, is_floating},
    {XD_OP_BMM, "matmul", {"xd_gemm_tiled", "xd_gemm_big", "xd_gemm_big_dense"}, is_floating},
    {XD_OP_BADDBMM, "matmul", {"xd_gemm_tiled", "xd_gemm_big", "xd_gemm_big_dense"}, is_floating},
    // int4: the gemv kernel of the smallest row block that holds M, or the tiled one.
    {XD_OP_WEIGHT_INT4_MM,
     "int4",
     {"xd_int4_gemv_m1", "xd_int4_gemv_m1_dense", "xd_int4_gemv_m2", "xd_int4_gemv_m4", "xd_int4_gemv_m8",
      "xd_int4_gemv_m16", "xd_int4_mm_tiled"},
     int4_mm_dtype},
    {XD_OP_QUANTIZE_INT4, "int4", {"xd_quantize_int4"}, quantize_dtype},
    // One entry point for i32 and i64 indices (sparse.cl reads them by a uniform flag).
    {XD_OP_CSR_ADDMM, "sparse", {"xd_csr_mm"}, is_floating},
    {XD_OP_CSR_TO_DENSE, "sparse", {"xd_csr_to_dense"}, is_floating},
    {XD_OP_INT_MM, "quant_mm", {"xd_int_mm"}, is_i8},
    {XD_OP_SCALED_MM, "quant_mm", {"xd_scaled_mm"}, is_fp8},
};

}  // namespace

const char* dtype_tag(int32_t dtype) {
  static const char* const tags[] = {"f64", "f32", "f16", "bf16", "i8", "u8", "i32", "i64", "b8", "e4m3", "e5m2"};
  if (dtype < 0 || dtype >= XD_DTYPE_COUNT_V1) return nullptr;
  return tags[dtype];
}

std::vector<kernel_entry> kernels_for(int32_t dtype, bool fp64) {
  std::vector<kernel_entry> out;
  if (dtype_tag(dtype) == nullptr || (dtype == XD_DTYPE_F64 && !fp64)) return out;
  for (const row& r : kRows) {
    if (!r.dtypes(dtype)) continue;
    if (r.entries[0] != nullptr) {
      for (const char* e : r.entries)
        if (e != nullptr) out.push_back({r.op, r.source, e});
      continue;
    }
    // COPY: bits moved as they are within a dtype, a cast kernel per other target dtype. The
    // cast to f64 exists only where double code is compiled.
    out.push_back({r.op, r.source, "xd_copy_same"});
    for (int32_t to = 0; to < XD_DTYPE_COUNT_V1; ++to) {
      if (to == dtype || (to == XD_DTYPE_F64 && !fp64)) continue;
      out.push_back({r.op, r.source, std::string("xd_copy_to_") + dtype_tag(to)});
    }
  }
  return out;
}

std::vector<xd_op> registered_ops(int32_t dtype) {
  std::vector<xd_op> out;
  if (dtype_tag(dtype) == nullptr) return out;
  for (const row& r : kRows)
    if (r.dtypes(dtype)) out.push_back(r.op);
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
  if (kind_of(dtype) == kind::fp8) out.push_back("xd_where");
  return out;
}

std::vector<int32_t> weight_dtypes(const std::string& source, int32_t dtype) {
  // rms_norm.cl reads the weight as XD_WT; the CPU reference takes a weight of any floating dtype
  // beside a floating x (plugins/cpu/kernels/rms_norm.cpp), so every pair has its module.
  if (source != "rms_norm" || !is_floating(dtype)) return {};
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

}  // namespace xd::xpu
