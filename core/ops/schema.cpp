#include "ops/schema.hpp"

#include <array>

namespace xd::detail {

namespace {
const std::array<OpSchema, XD_OP_COUNT_V1>& schemas() {
  static const std::array<OpSchema, XD_OP_COUNT_V1> s = {{
      {XD_OP_FILL, "fill", OpKind::fill, {}, {"out"}},
      {XD_OP_ARANGE, "arange", OpKind::arange, {}, {"out"}},
      {XD_OP_RAND, "rand", OpKind::random, {}, {"out"}},
      {XD_OP_RANDN, "randn", OpKind::random, {}, {"out"}},
      {XD_OP_COPY, "copy", OpKind::copy, {"self"}, {"out"}},
      {XD_OP_ADD, "add", OpKind::binary, {"self", "other"}, {"out"}},
      {XD_OP_SUB, "sub", OpKind::binary, {"self", "other"}, {"out"}},
      {XD_OP_MUL, "mul", OpKind::binary, {"self", "other"}, {"out"}},
      {XD_OP_DIV, "div", OpKind::binary, {"self", "other"}, {"out"}},
      {XD_OP_POW, "pow", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_WHERE, "where", OpKind::where, {"condition", "self", "other"}, {"out"}},
      {XD_OP_EQ, "eq", OpKind::compare, {"self", "other"}, {"out"}},
      {XD_OP_LT, "lt", OpKind::compare, {"self", "other"}, {"out"}},
      {XD_OP_GT, "gt", OpKind::compare, {"self", "other"}, {"out"}},
      {XD_OP_NEG, "neg", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_ABS, "abs", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_EXP, "exp", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_LOG, "log", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_SQRT, "sqrt", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_RSQRT, "rsqrt", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_RELU, "relu", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_GELU, "gelu", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_SILU, "silu", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_SIGMOID, "sigmoid", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_TANH, "tanh", OpKind::unary, {"self"}, {"out"}},
      {XD_OP_SUM, "sum", OpKind::reduce, {"self"}, {"out"}},
      {XD_OP_MEAN, "mean", OpKind::reduce, {"self"}, {"out"}},
      {XD_OP_AMAX, "amax", OpKind::reduce, {"self"}, {"out"}},
      {XD_OP_AMIN, "amin", OpKind::reduce, {"self"}, {"out"}},
      {XD_OP_ARGMAX, "argmax", OpKind::argreduce, {"self"}, {"out"}},
      {XD_OP_SOFTMAX, "softmax", OpKind::softmax, {"self"}, {"out"}},
      {XD_OP_LOG_SOFTMAX, "log_softmax", OpKind::softmax, {"self"}, {"out"}},
      {XD_OP_MM, "mm", OpKind::mm, {"self", "mat2"}, {"out"}},
      {XD_OP_ADDMM, "addmm", OpKind::addmm, {"self", "mat1", "mat2"}, {"out"}},
      {XD_OP_BMM, "bmm", OpKind::bmm, {"self", "mat2"}, {"out"}},
      {XD_OP_BADDBMM, "baddbmm", OpKind::baddbmm, {"self", "batch1", "batch2"}, {"out"}},
      {XD_OP_RMS_NORM, "rms_norm", OpKind::rms_norm, {"input", "weight"}, {"output", "rstd"}, 0b10, 0},
      {XD_OP_RMS_NORM_BACKWARD, "rms_norm_backward", OpKind::rms_norm_backward,
       {"grad_out", "input", "rstd", "weight"}, {"grad_input", "grad_weight"}, 0b1000, 0b11},
  }};
  return s;
}
}  // namespace

const OpSchema& op_schema(int op) { return schemas()[static_cast<size_t>(op)]; }

const OpSchema* find_op(std::string_view name) {
  for (const auto& s : schemas())
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace xd::detail
