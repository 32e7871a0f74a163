// The op schemas (white-box: core/ops/schema.hpp): every op has one, with its meta function and
// attribute struct, and the meta function's result is what the public op then produces.
#include <xd/xd.hpp>

#include "ops/schema.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace {

using namespace xd::detail;
using xd::Dtype;
using xd::Tensor;
using V = std::vector<int64_t>;

Tensor f32(std::initializer_list<int64_t> sizes) { return xd::ones(sizes, Dtype::f32, xd::cpu()); }

// The meta result describes `outputs` exactly (shapes, dtypes, device; absent ones undefined),
// and carries the kernel attribute struct the schema declares.
void expect_describes(xd_op op, const MetaResult& m, const std::vector<Tensor>& outputs) {
  const OpSchema& s = op_schema(op);
  SCOPED_TRACE(s.name);
  ASSERT_EQ(m.num_outputs, static_cast<int>(outputs.size()));
  ASSERT_EQ(outputs.size(), s.outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorMeta& o = m.outputs[i];
    ASSERT_EQ(o.present, outputs[i].defined()) << "output " << s.outputs[i];
    if (!o.present) continue;
    EXPECT_EQ(V(o.sizes, o.sizes + o.ndim), V(outputs[i].sizes().begin(), outputs[i].sizes().end()))
        << "output " << s.outputs[i];
    EXPECT_EQ(o.dtype, outputs[i].dtype()) << "output " << s.outputs[i];
    EXPECT_EQ(m.device->device, outputs[i].device());
  }
  EXPECT_EQ(m.kernel_attrs_size(), s.attrs.kernel_size);
}

TEST(OpSchema, EveryOpHasOneSchemaWithAMetaFunctionAndAnAttributeStruct) {
  std::set<std::string> names;
  for (int op = 0; op < XD_OP_COUNT_V1_1; ++op) {
    const OpSchema& s = op_schema(op);
    SCOPED_TRACE(op);
    EXPECT_EQ(s.op, op);
    ASSERT_NE(s.name, nullptr);
    EXPECT_TRUE(names.insert(s.name).second) << s.name << " appears twice";
    EXPECT_EQ(find_op(s.name), &s);
    EXPECT_NE(s.meta, nullptr) << s.name << " has no meta function";
    ASSERT_NE(s.attrs.type, nullptr) << s.name << " has no attribute struct";
    EXPECT_GT(s.attrs.size, 0u) << s.name;
    EXPECT_LE(s.inputs.size(), kMaxInputs) << s.name;
    EXPECT_GE(s.outputs.size(), 1u) << s.name;
    EXPECT_LE(s.outputs.size(), kMaxOutputs) << s.name;
  }
  EXPECT_EQ(find_op("no_such_op"), nullptr);
}

TEST(OpSchema, OpsOfOneKindShareTheMetaFunction) {
  for (int a = 0; a < XD_OP_COUNT_V1_1; ++a) {
    for (int b = 0; b < XD_OP_COUNT_V1_1; ++b) {
      if (op_schema(a).kind != op_schema(b).kind) continue;
      EXPECT_EQ(op_schema(a).meta, op_schema(b).meta) << op_schema(a).name << " vs " << op_schema(b).name;
    }
  }
}

TEST(OpSchema, BinaryMetaBroadcastsAndComparisonsGiveBool) {
  const Tensor a = f32({2, 1, 3}), b = f32({4, 3});
  expect_describes(XD_OP_ADD, run_meta(XD_OP_ADD, "add", {&a, &b}, AlphaAttrs{2.0}), {xd::add(a, b, 2.0)});
  expect_describes(XD_OP_MUL, run_meta(XD_OP_MUL, "mul", {&a, &b}, NoAttrs{}), {xd::mul(a, b)});
  expect_describes(XD_OP_GT, run_meta(XD_OP_GT, "gt", {&a, &b}, NoAttrs{}), {xd::gt(a, b)});
  expect_describes(XD_OP_NE, run_meta(XD_OP_NE, "ne", {&a, &b}, NoAttrs{}), {xd::ne(a, b)});
  expect_describes(XD_OP_GE, run_meta(XD_OP_GE, "ge", {&a, &b}, NoAttrs{}), {xd::ge(a, b)});
  expect_describes(XD_OP_LE, run_meta(XD_OP_LE, "le", {&a, &b}, NoAttrs{}), {xd::le(a, b)});
  const MetaResult m = run_meta(XD_OP_EQ, "eq", {&a, &b}, NoAttrs{});
  EXPECT_EQ(m.outputs[0].dtype, Dtype::boolean);
  EXPECT_EQ(V(m.outputs[0].sizes, m.outputs[0].sizes + 3), (V{2, 4, 3}));
}

TEST(OpSchema, WhereAndUnaryMetaMatchTheirOps) {
  const Tensor c = xd::gt(f32({3, 1}), f32({1, 2})), a = f32({1}), b = f32({3, 2});
  expect_describes(XD_OP_WHERE, run_meta(XD_OP_WHERE, "where", {&c, &a, &b}, NoAttrs{}), {xd::where(c, a, b)});
  expect_describes(XD_OP_POW, run_meta(XD_OP_POW, "pow", {&b}, PowAttrs{2.0}), {xd::pow(b, 2.0)});
  expect_describes(XD_OP_GELU, run_meta(XD_OP_GELU, "gelu", {&b}, GeluAttrs{xd::GeluApproximate::tanh}),
                   {xd::gelu(b, xd::GeluApproximate::tanh)});
  expect_describes(XD_OP_SILU, run_meta(XD_OP_SILU, "silu", {&b}, NoAttrs{}), {xd::silu(b)});
}

TEST(OpSchema, ReductionMetaDropsOrKeepsDimsAndPicksTheOutputDtype) {
  const Tensor x = f32({2, 3, 4});
  const Tensor i = xd::ones({2, 3}, Dtype::i32, xd::cpu());
  expect_describes(XD_OP_SUM, run_meta(XD_OP_SUM, "sum", {&x}, ReduceAttrs{{1}, false}), {xd::sum(x, {1})});
  expect_describes(XD_OP_MEAN, run_meta(XD_OP_MEAN, "mean", {&x}, ReduceAttrs{{0, 2}, true}),
                   {xd::mean(x, {0, 2}, true)});
  expect_describes(XD_OP_SUM, run_meta(XD_OP_SUM, "sum", {&i}, ReduceAttrs{{}, false}), {xd::sum(i)});  // i64
  expect_describes(XD_OP_ARGMAX, run_meta(XD_OP_ARGMAX, "argmax", {&x}, ReduceAttrs{{-1}, true}),
                   {xd::argmax(x, -1, true)});
  expect_describes(XD_OP_LOG_SOFTMAX, run_meta(XD_OP_LOG_SOFTMAX, "log_softmax", {&x}, DimAttrs{1}),
                   {xd::log_softmax(x, 1)});
  EXPECT_EQ(run_meta(XD_OP_SUM, "sum", {&i}, ReduceAttrs{{}, false}).outputs[0].dtype, Dtype::i64);
}

TEST(OpSchema, MatmulMetaMatchesTheOps) {
  const Tensor a = f32({3, 5}), b = f32({5, 2}), bias = f32({2});
  expect_describes(XD_OP_MM, run_meta(XD_OP_MM, "mm", {&a, &b}, NoAttrs{}), {xd::mm(a, b)});
  expect_describes(XD_OP_ADDMM, run_meta(XD_OP_ADDMM, "addmm", {&bias, &a, &b}, BlasAttrs{0.5, 2.0}),
                   {xd::addmm(bias, a, b, 0.5, 2.0)});
  const Tensor ba = f32({4, 3, 5}), bb = f32({4, 5, 2}), in = f32({1, 3, 1});
  expect_describes(XD_OP_BMM, run_meta(XD_OP_BMM, "bmm", {&ba, &bb}, NoAttrs{}), {xd::bmm(ba, bb)});
  expect_describes(XD_OP_BADDBMM, run_meta(XD_OP_BADDBMM, "baddbmm", {&in, &ba, &bb}, BlasAttrs{1.0, 1.0}),
                   {xd::baddbmm(in, ba, bb)});
}

TEST(OpSchema, NormMetaGivesTheAccumulationDtypeForRstdAndHonoursTheOutputMask) {
  const Tensor x = xd::ones({2, 3, 8}, Dtype::bf16, xd::cpu()), w = xd::ones({8}, Dtype::bf16, xd::cpu());
  auto [y, rstd] = xd::rms_norm(x, {8}, w);
  expect_describes(XD_OP_RMS_NORM, run_meta(XD_OP_RMS_NORM, "rms_norm", {&x, &w}, RmsNormAttrs{{8}, std::nullopt}),
                   {y, rstd});
  EXPECT_EQ(rstd.dtype(), Dtype::f32);
  auto [dx, dw] = xd::rms_norm_backward(y, x, {8}, rstd, w, {true, false});
  expect_describes(XD_OP_RMS_NORM_BACKWARD,
                   run_meta(XD_OP_RMS_NORM_BACKWARD, "rms_norm_backward", {&y, &x, &rstd, &w},
                            RmsNormBackwardAttrs{{8}, {true, false}}),
                   {dx, dw});
  EXPECT_FALSE(dw.defined());
}

TEST(OpSchema, QuantisedMetaMatchesTheOps) {
  const Tensor a = xd::ones({4, 6}, Dtype::i8, xd::cpu()), b = xd::ones({6, 3}, Dtype::i8, xd::cpu());
  expect_describes(XD_OP_INT_MM, run_meta(XD_OP_INT_MM, "int_mm", {&a, &b}, NoAttrs{}), {xd::int_mm(a, b)});
  const Tensor w = f32({3, 64});
  auto [packed, scales, zeros] = xd::quantize_int4(w, 32);
  expect_describes(XD_OP_QUANTIZE_INT4, run_meta(XD_OP_QUANTIZE_INT4, "quantize_int4", {&w}, Int4Attrs{32}),
                   {packed, scales, zeros});
  const Tensor x = f32({2, 64});
  expect_describes(XD_OP_WEIGHT_INT4_MM,
                   run_meta(XD_OP_WEIGHT_INT4_MM, "weight_int4_mm", {&x, &packed, &scales, &zeros}, Int4Attrs{32}),
                   {xd::weight_int4_mm(x, packed, scales, zeros, 32)});
}

TEST(OpSchema, CreationMetaTakesShapeDtypeAndDeviceFromItsAttributes) {
  expect_describes(XD_OP_FILL, run_meta(XD_OP_FILL, "full", {}, FillAttrs{{2, 5}, 7.0, Dtype::i32, xd::cpu()}),
                   {xd::full({2, 5}, 7.0, Dtype::i32, xd::cpu())});
  expect_describes(XD_OP_ARANGE,
                   run_meta(XD_OP_ARANGE, "arange", {}, ArangeAttrs{1.0, 10.0, 2.0, Dtype::i64, xd::cpu()}),
                   {xd::arange(1.0, 10.0, 2.0, Dtype::i64, xd::cpu())});
  expect_describes(XD_OP_RANDN, run_meta(XD_OP_RANDN, "randn", {}, RandomAttrs{{3}, Dtype::f64, xd::cpu()}),
                   {xd::randn({3}, Dtype::f64, xd::cpu())});
}

TEST(OpSchema, MetaFunctionsThrowTheOpsOwnErrors) {
  const Tensor a = f32({2, 3}), b = f32({4, 3});
  try {
    (void)run_meta(XD_OP_ADD, "add", {&a, &b}, AlphaAttrs{1.0});
    FAIL() << "expected ShapeError";
  } catch (const xd::ShapeError& meta_error) {
    try {
      (void)xd::add(a, b);
      FAIL() << "expected ShapeError";
    } catch (const xd::ShapeError& op_error) {
      EXPECT_STREQ(meta_error.what(), op_error.what());
    }
  }
}

TEST(OpSchema, CallWithAnotherAttributeStructIsAnInternalError) {
  const Tensor a = f32({2});
  try {
    (void)run_meta(XD_OP_ADD, "add", {&a, &a}, NoAttrs{});
    FAIL() << "expected xd::Error";
  } catch (const xd::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("internal error: add"), std::string::npos) << m;
    EXPECT_NE(m.find("core/ops/schema.cpp"), std::string::npos) << m;
  }
  EXPECT_THROW((void)run_meta(XD_OP_ADD, "add", {&a}, AlphaAttrs{1.0}), xd::Error);  // one input of two
}

}  // namespace
