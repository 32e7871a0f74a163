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

// One row per op: the entry point and the dtypes it is registered for.
struct row {
  xd_op op;
  const char* source;
  const char* entry;  // nullptr: COPY, whose entry points depend on the target dtype
  bool (*dtypes)(int32_t);
};

bool any(int32_t) { return true; }

const row kRows[] = {
    {XD_OP_FILL, "pointwise", "xd_fill", any},
    {XD_OP_ARANGE, "pointwise", "xd_arange", is_numeric},
    {XD_OP_COPY, "pointwise", nullptr, any},
    {XD_OP_ADD, "pointwise", "xd_add", is_numeric},
    {XD_OP_SUB, "pointwise", "xd_sub", is_numeric},
    {XD_OP_MUL, "pointwise", "xd_mul", is_numeric},
    {XD_OP_DIV, "pointwise", "xd_div", is_floating},
    {XD_OP_POW, "pointwise", "xd_pow", is_floating},
    {XD_OP_WHERE, "pointwise", "xd_where", is_numeric_bool},
    {XD_OP_EQ, "pointwise", "xd_eq", is_numeric_bool},
    {XD_OP_LT, "pointwise", "xd_lt", is_numeric},
    {XD_OP_GT, "pointwise", "xd_gt", is_numeric},
    {XD_OP_NEG, "pointwise", "xd_neg", is_numeric},
    {XD_OP_ABS, "pointwise", "xd_abs", is_numeric},
    {XD_OP_RELU, "pointwise", "xd_relu", is_numeric},
    {XD_OP_EXP, "pointwise", "xd_exp", is_floating},
    {XD_OP_LOG, "pointwise", "xd_log", is_floating},
    {XD_OP_SQRT, "pointwise", "xd_sqrt", is_floating},
    {XD_OP_RSQRT, "pointwise", "xd_rsqrt", is_floating},
    {XD_OP_GELU, "pointwise", "xd_gelu", is_floating},
    {XD_OP_SILU, "pointwise", "xd_silu", is_floating},
    {XD_OP_SIGMOID, "pointwise", "xd_sigmoid", is_floating},
    {XD_OP_TANH, "pointwise", "xd_tanh", is_floating},
    {XD_OP_RAND, "random", "xd_rand", is_floating},
    {XD_OP_RANDN, "random", "xd_randn", is_floating},
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
    if (r.entry != nullptr) {
      out.push_back({r.op, r.source, r.entry});
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

std::vector<std::string> launcher_pending(const std::string& source, int32_t dtype) {
  if (!is_floating(dtype)) return {};  // xpu_variants.cmake builds these sources for floats only
  if (source == "reduce") {
    std::vector<std::string> out;
    for (const char* op : {"sum", "mean", "amax", "amin", "argmax"})
      for (const char* part : {"_group", "_finish", "_lane"}) out.push_back(std::string("xd_") + op + part);
    return out;
  }
  if (source == "softmax") return {"xd_softmax_row", "xd_softmax_lane", "xd_log_softmax_row", "xd_log_softmax_lane"};
  if (source == "rms_norm") return {"xd_rms_norm", "xd_rms_norm_backward", "xd_rms_norm_dw"};
  if (source == "matmul") return {"xd_gemm_tiled", "xd_gemm_big"};
  return {};
}

}  // namespace xd::xpu
