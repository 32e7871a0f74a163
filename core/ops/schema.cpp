#include "ops/schema.hpp"

#include "ops/meta_functions.hpp"

#include <array>

namespace xd::detail {

namespace {

// The attribute structs, by op; K: the xd_attrs_* struct the kernel receives.
template <class A, class K = void>
AttrsInfo at() {
  return attrs_info<A, K>();
}

const std::array<OpSchema, kOpCount>& schemas() {
  // clang-format off
  static const std::array<OpSchema, kOpCount> s = {{
      {XD_OP_FILL, "fill", OpKind::fill, {}, {"out"}, meta_fill, at<FillAttrs, xd_attrs_scalar>()},
      {XD_OP_ARANGE, "arange", OpKind::arange, {}, {"out"}, meta_arange, at<ArangeAttrs, xd_attrs_arange>()},
      {XD_OP_RAND, "rand", OpKind::random, {}, {"out"}, meta_random, at<RandomAttrs, xd_attrs_random>()},
      {XD_OP_RANDN, "randn", OpKind::random, {}, {"out"}, meta_random, at<RandomAttrs, xd_attrs_random>()},
      {XD_OP_COPY, "copy", OpKind::copy, {"self"}, {"out"}, meta_copy, at<CopyAttrs>()},
      {XD_OP_ADD, "add", OpKind::binary, {"self", "other"}, {"out"}, meta_binary, at<AlphaAttrs, xd_attrs_scalar>()},
      {XD_OP_SUB, "sub", OpKind::binary, {"self", "other"}, {"out"}, meta_binary, at<AlphaAttrs, xd_attrs_scalar>()},
      {XD_OP_MUL, "mul", OpKind::binary, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
      {XD_OP_DIV, "div", OpKind::binary, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
      {XD_OP_POW, "pow", OpKind::unary, {"self"}, {"out"}, meta_unary, at<PowAttrs, xd_attrs_scalar>()},
      {XD_OP_WHERE, "where", OpKind::where, {"condition", "self", "other"}, {"out"}, meta_where, at<NoAttrs>()},
      {XD_OP_EQ, "eq", OpKind::compare, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
      {XD_OP_LT, "lt", OpKind::compare, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
      {XD_OP_GT, "gt", OpKind::compare, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
      {XD_OP_NEG, "neg", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_ABS, "abs", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_EXP, "exp", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_LOG, "log", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_SQRT, "sqrt", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_RSQRT, "rsqrt", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_RELU, "relu", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_GELU, "gelu", OpKind::unary, {"self"}, {"out"}, meta_unary, at<GeluAttrs, xd_attrs_gelu>()},
      {XD_OP_SILU, "silu", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_SIGMOID, "sigmoid", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_TANH, "tanh", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_SUM, "sum", OpKind::reduce, {"self"}, {"out"}, meta_reduce, at<ReduceAttrs, xd_attrs_reduce>()},
      {XD_OP_MEAN, "mean", OpKind::reduce, {"self"}, {"out"}, meta_reduce, at<ReduceAttrs, xd_attrs_reduce>()},
      {XD_OP_AMAX, "amax", OpKind::reduce, {"self"}, {"out"}, meta_reduce, at<ReduceAttrs, xd_attrs_reduce>()},
      {XD_OP_AMIN, "amin", OpKind::reduce, {"self"}, {"out"}, meta_reduce, at<ReduceAttrs, xd_attrs_reduce>()},
      {XD_OP_ARGMAX, "argmax", OpKind::argreduce, {"self"}, {"out"}, meta_reduce, at<ReduceAttrs, xd_attrs_reduce>()},
      {XD_OP_SOFTMAX, "softmax", OpKind::softmax, {"self"}, {"out"}, meta_softmax, at<DimAttrs, xd_attrs_dim>()},
      {XD_OP_LOG_SOFTMAX, "log_softmax", OpKind::softmax, {"self"}, {"out"}, meta_softmax, at<DimAttrs, xd_attrs_dim>()},
      {XD_OP_MM, "mm", OpKind::mm, {"self", "mat2"}, {"out"}, meta_matmul, at<NoAttrs>()},
      {XD_OP_ADDMM, "addmm", OpKind::addmm, {"self", "mat1", "mat2"}, {"out"}, meta_matmul, at<BlasAttrs, xd_attrs_blas>()},
      {XD_OP_BMM, "bmm", OpKind::bmm, {"self", "mat2"}, {"out"}, meta_matmul, at<NoAttrs>()},
      {XD_OP_BADDBMM, "baddbmm", OpKind::baddbmm, {"self", "batch1", "batch2"}, {"out"}, meta_matmul,
       at<BlasAttrs, xd_attrs_blas>()},
      {XD_OP_RMS_NORM, "rms_norm", OpKind::rms_norm, {"input", "weight"}, {"output", "rstd"}, meta_rms_norm,
       at<RmsNormAttrs, xd_attrs_rms_norm>(), 0b10, 0},
      {XD_OP_RMS_NORM_BACKWARD, "rms_norm_backward", OpKind::rms_norm_backward,
       {"grad_out", "input", "rstd", "weight"}, {"grad_input", "grad_weight"}, meta_rms_norm_backward,
       at<RmsNormBackwardAttrs, xd_attrs_rms_norm_backward>(), 0b1000, 0b11},
      {XD_OP_INT_MM, "int_mm", OpKind::int_mm, {"self", "mat2"}, {"out"}, meta_int_mm, at<NoAttrs>()},
      {XD_OP_SCALED_MM, "scaled_mm", OpKind::scaled_mm, {"self", "mat2", "scale_a", "scale_b", "bias"}, {"out"},
       meta_scaled_mm, at<ScaledMmAttrs>(), 0b10000, 0},
      {XD_OP_WEIGHT_INT4_MM, "weight_int4_mm", OpKind::weight_int4_mm, {"input", "weight", "scales", "zeros"}, {"out"},
       meta_weight_int4_mm, at<Int4Attrs, xd_attrs_int4>()},
      {XD_OP_QUANTIZE_INT4, "quantize_int4", OpKind::quantize_int4, {"weight"}, {"packed", "scales", "zeros"},
       meta_quantize_int4, at<Int4Attrs, xd_attrs_int4>()},
      // Sparse CSR (include/xd/sparse.hpp): the public mm/addmm/bmm/baddbmm overloads taking a
      // SparseCsr all run csr_addmm; `self` (the addend) is absent for mm and bmm.
      {XD_OP_CSR_ADDMM, "csr_addmm", OpKind::csr_addmm, {"self", "crow_indices", "col_indices", "values", "mat2"},
       {"out"}, meta_csr_addmm, at<CsrMatmulAttrs, xd_attrs_blas>(), 0b1, 0},
      {XD_OP_CSR_TO_DENSE, "csr_to_dense", OpKind::csr_to_dense, {"crow_indices", "col_indices", "values"}, {"out"},
       meta_csr_to_dense, at<CsrToDenseAttrs>()},
      {XD_OP_MAXIMUM, "maximum", OpKind::binary, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
      {XD_OP_MINIMUM, "minimum", OpKind::binary, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
      {XD_OP_CLAMP, "clamp", OpKind::unary, {"self"}, {"out"}, meta_clamp, at<ClampAttrs, xd_attrs_clamp>()},
      {XD_OP_FLOOR, "floor", OpKind::unary, {"self"}, {"out"}, meta_unary, at<NoAttrs>()},
      {XD_OP_ROUND, "round", OpKind::unary, {"self"}, {"out"}, meta_unary, at<RoundAttrs, xd_attrs_round>()},
      {XD_OP_INDEX_SELECT, "index_select", OpKind::index_select, {"self", "index"}, {"out"}, meta_index_select,
       at<DimAttrs, xd_attrs_dim>()},
      {XD_OP_LAYER_NORM, "layer_norm", OpKind::layer_norm, {"input", "weight", "bias"}, {"output", "mean", "rstd"},
       meta_layer_norm, at<LayerNormAttrs, xd_attrs_rms_norm>(), 0b110, 0},
      {XD_OP_LAYER_NORM_BACKWARD, "layer_norm_backward", OpKind::layer_norm_backward,
       {"grad_out", "input", "mean", "rstd", "weight", "bias"}, {"grad_input", "grad_weight", "grad_bias"},
       meta_layer_norm_backward, at<LayerNormBackwardAttrs, xd_attrs_layer_norm_backward>(), 0b110000, 0b111},
      {XD_OP_GATHER, "gather", OpKind::gather, {"self", "index"}, {"out"}, meta_gather, at<DimAttrs, xd_attrs_dim>()},
      {XD_OP_SCALED_DOT_PRODUCT_ATTENTION, "scaled_dot_product_attention", OpKind::attention,
       {"query", "key", "value", "attn_mask"}, {"out"}, meta_attention, at<AttentionAttrs, xd_attrs_attention>(),
       0b1000, 0},
      {XD_OP_CONV2D, "conv2d", OpKind::conv2d, {"input", "weight", "bias"}, {"out"}, meta_conv2d,
       at<Conv2dAttrs, xd_attrs_conv2d>(), 0b100, 0},
      {XD_OP_MAX_POOL2D, "max_pool2d", OpKind::pool2d, {"self"}, {"out", "indices"}, meta_pool2d,
       at<Pool2dAttrs, xd_attrs_pool2d>(), 0, 0b10},
      {XD_OP_AVG_POOL2D, "avg_pool2d", OpKind::pool2d, {"self"}, {"out"}, meta_pool2d, at<Pool2dAttrs, xd_attrs_pool2d>()},
      {XD_OP_CUMSUM, "cumsum", OpKind::cumsum, {"self"}, {"out"}, meta_cumsum, at<CumsumAttrs, xd_attrs_dim>()},
      {XD_OP_TOPK, "topk", OpKind::topk, {"self"}, {"values", "indices"}, meta_topk, at<TopkAttrs, xd_attrs_topk>()},
      {XD_OP_NE, "ne", OpKind::compare, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
      {XD_OP_GE, "ge", OpKind::compare, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
      {XD_OP_LE, "le", OpKind::compare, {"self", "other"}, {"out"}, meta_binary, at<NoAttrs>()},
  }};
  // clang-format on
  return s;
}
}  // namespace

const OpSchema& op_schema(int op) { return schemas()[static_cast<size_t>(op)]; }

const OpSchema* find_op(std::string_view name) {
  for (const auto& s : schemas())
    if (name == s.name) return &s;
  return nullptr;
}

void throw_schema_mismatch(const OpSchema& s, const std::type_info& attrs, size_t inputs) {
  throw Error(std::string("internal error: ") + s.name + " was called with attribute struct " + attrs.name() + " and " +
              std::to_string(inputs) + " inputs, but its schema has " + s.attrs.type->name() + " and " +
              std::to_string(s.inputs.size()) + " inputs (core/ops/schema.cpp)");
}

}  // namespace xd::detail

namespace xd {

const char* op_kind_name(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::fill: return "fill";
    case OpKind::arange: return "arange";
    case OpKind::random: return "random";
    case OpKind::copy: return "copy";
    case OpKind::binary: return "binary";
    case OpKind::compare: return "compare";
    case OpKind::where: return "where";
    case OpKind::unary: return "unary";
    case OpKind::reduce: return "reduce";
    case OpKind::argreduce: return "argreduce";
    case OpKind::softmax: return "softmax";
    case OpKind::mm: return "mm";
    case OpKind::addmm: return "addmm";
    case OpKind::bmm: return "bmm";
    case OpKind::baddbmm: return "baddbmm";
    case OpKind::rms_norm: return "rms_norm";
    case OpKind::rms_norm_backward: return "rms_norm_backward";
    case OpKind::int_mm: return "int_mm";
    case OpKind::scaled_mm: return "scaled_mm";
    case OpKind::csr_addmm: return "csr_addmm";
    case OpKind::csr_to_dense: return "csr_to_dense";
    case OpKind::index_select: return "index_select";
    case OpKind::layer_norm: return "layer_norm";
    case OpKind::layer_norm_backward: return "layer_norm_backward";
    case OpKind::gather: return "gather";
    case OpKind::attention: return "attention";
    case OpKind::conv2d: return "conv2d";
    case OpKind::pool2d: return "pool2d";
    case OpKind::cumsum: return "cumsum";
    case OpKind::topk: return "topk";
    case OpKind::weight_int4_mm: return "weight_int4_mm";
    case OpKind::quantize_int4: return "quantize_int4";
  }
  return "?";
}

std::vector<OpSchema> op_schemas() {
  std::vector<OpSchema> out;
  for (int op = 0; op < detail::kOpCount; ++op) {
    const detail::OpSchema& s = detail::op_schema(op);
    OpSchema o;
    o.op = op;
    o.name = s.name;
    o.kind = s.kind;
    o.inputs.assign(s.inputs.begin(), s.inputs.end());
    o.outputs.assign(s.outputs.begin(), s.outputs.end());
    o.optional_inputs = s.optional_inputs;
    o.optional_outputs = s.optional_outputs;
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace xd
