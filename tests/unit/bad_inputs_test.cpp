// A catalogue of bad inputs to the public API. Each must throw exactly the documented xd::Error
// subclass (not a parent, not a subclass, not std::exception, no crash), with a message that names
// the operation and the offending shape / dtype / value.
#include "support/throws_exactly.hpp"

#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include "support/stub_device.hpp"
#include "support/throws_exactly.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

namespace {

using xd::Dtype;
using xd::test::throws_exactly;

xd::Device cpu() { return xd::cpu(); }
xd::Tensor f32(xd::IntList sizes) { return xd::zeros(sizes, Dtype::f32, cpu()); }
xd::Tensor of(xd::IntList sizes, Dtype d) { return xd::zeros(sizes, d, cpu()); }

// ------------------------------------------------------------------ the helper itself

TEST(BadInputsHelper, RejectsAParentTypeASubclassAndAMissingSubstring) {
  EXPECT_FALSE(throws_exactly<xd::DeviceError>([] { throw xd::BackendError("x"); }, {}));
  EXPECT_FALSE(throws_exactly<xd::Error>([] { throw xd::ShapeError("x"); }, {}));
  EXPECT_FALSE(throws_exactly<xd::ShapeError>([] { throw xd::ShapeError("abc"); }, {"abd"}));
  EXPECT_FALSE(throws_exactly<xd::ShapeError>([] {}, {}));
  EXPECT_TRUE(throws_exactly<xd::ShapeError>([] { throw xd::ShapeError("abc"); }, {"b"}));
}

// ------------------------------------------------------------------ shape errors

TEST(BadShape, MmInnerDimsDiffer) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::mm(f32({2, 3}), f32({4, 5})), "mm", "[2, 3]", "[4, 5]", "cannot be multiplied");
}

TEST(BadShape, MmOperandIsNotTwoDimensional) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::mm(f32({2, 3, 4}), f32({4, 5})), "mm", "2-d", "[2, 3, 4]");
}

TEST(BadShape, BmmBatchSizesDiffer) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::bmm(f32({2, 3, 4}), f32({3, 4, 5})), "bmm", "batch", "[2, 3, 4]", "[3, 4, 5]");
}

TEST(BadShape, BaddbmmInnerDimsDiffer) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::baddbmm(f32({2, 3, 5}), f32({2, 3, 4}), f32({2, 5, 5})), "baddbmm", "[2, 3, 4]",
                        "[2, 5, 5]");
}

TEST(BadShape, MatmulOfAZeroDimensionalOperand) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::matmul(f32({}), f32({3})), "matmul", "at least one dim", "'self' []",
                        "'other' [3]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::matmul(f32({3}), f32({})), "matmul", "'other' []");
}

TEST(BadShape, MatmulInnerDimsDifferNamingTheCallersShapes) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::matmul(f32({3, 4}), f32({5})), "matmul", "'self' [3, 4]", "'other' [5]",
                        "4 columns vs 5 rows");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::matmul(f32({2, 3, 4}), f32({2, 4})), "matmul", "[2, 3, 4]", "[2, 4]",
                        "4 columns vs 2 rows");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::matmul(f32({4}), f32({2, 3, 5})), "matmul", "4 columns vs 3 rows");
}

TEST(BadShape, MatmulBatchDimsDoNotBroadcast) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::matmul(f32({2, 3, 4}), f32({3, 4, 5})), "matmul", "'self' [2, 3, 4]",
                        "'other' [3, 4, 5]", "batch dim 0: 2 vs 3", "broadcast");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::matmul(f32({1, 2, 3, 4}), f32({5, 3, 4, 5})), "matmul",
                        "batch dim 1: 2 vs 3");
}

TEST(BadDtype, MatmulOfMixedOrIntegerDtypes) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::matmul(f32({3, 4}), of({4, 2}, Dtype::f64)), "matmul", "'self' is f32",
                        "'other' is f64", "does not promote");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::matmul(of({3, 4}, Dtype::i32), of({4}, Dtype::i32)), "matmul", "i32",
                        "f64, f32, f16, bf16");
}

TEST(BadArgument, MatmulOfAnUndefinedTensor) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::matmul(xd::Tensor(), f32({3})), "undefined");
}

TEST(BadShape, AddOperandsDoNotBroadcast) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::add(f32({2, 3}), f32({4, 3})), "add", "[2, 3]", "[4, 3]", "broadcast");
}

TEST(BadShape, WhereBranchDoesNotBroadcast) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::where(of({2, 3}, Dtype::boolean), f32({2, 3}), f32({2})), "where", "[2]",
                        "broadcast");
}

TEST(BadShape, AddmmInputDoesNotBroadcastToResult) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::addmm(f32({3, 3}), f32({2, 4}), f32({4, 5})), "addmm", "[3, 3]", "[2, 5]");
}

TEST(BadShape, AddmmInputWithExtraDimsDoesNotBroadcastToResult) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::addmm(f32({2, 2, 5}), f32({2, 4}), f32({4, 5})), "addmm", "[2, 2, 5]", "[2, 5]");
}

TEST(BadShape, RmsNormNormalizedShapeIsNotTheTrailingShape) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::rms_norm(f32({2, 4}), {5}), "rms_norm", "[2, 4]", "normalized_shape", "[5]");
}

TEST(BadShape, RmsNormNormalizedShapeHasMoreDimsThanInput) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::rms_norm(f32({4}), {1, 4}), "rms_norm", "[1, 4]", "[4]");
}

TEST(BadShape, RmsNormWeightShape) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::rms_norm(f32({2, 4}), {4}, f32({3})), "rms_norm", "weight", "[3]", "[4]");
}

TEST(BadShape, RmsNormBackwardRstdShape) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::rms_norm_backward(f32({2, 4}), f32({2, 4}), {4}, f32({2, 2}), std::nullopt),
                        "rms_norm_backward", "rstd", "[2, 2]", "[2, 1]");
}

TEST(BadShape, RmsNormBackwardGradOutShape) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::rms_norm_backward(f32({2, 3}), f32({2, 4}), {4}, f32({2, 1}), std::nullopt),
                        "rms_norm_backward", "grad_out", "[2, 3]", "[2, 4]");
}

TEST(BadShape, RmsNormBackwardWeightShape) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::rms_norm_backward(f32({2, 4}), f32({2, 4}), {4}, f32({2, 1}), f32({2, 2})),
                        "rms_norm_backward", "weight", "[2, 2]");
}

TEST(BadShape, CopySourceDoesNotBroadcastToDestination) {
  xd::Tensor dst = f32({2, 3});
  EXPECT_THROWS_EXACTLY(xd::ShapeError, dst.copy_(f32({3, 2})), "copy_", "[3, 2]", "[2, 3]");
}

TEST(BadShape, CopySourceWithMoreDimsThanDestination) {
  xd::Tensor dst = f32({2, 3});
  EXPECT_THROWS_EXACTLY(xd::ShapeError, dst.copy_(f32({2, 1, 3})), "copy_", "[2, 1, 3]", "[2, 3]");
}

TEST(BadShape, ViewWithWrongElementCount) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, f32({2, 3}).view({4, 2}), "view", "[4, 2]", "6 elements");
}

TEST(BadShape, ViewOfTransposeNeedsACopy) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, f32({2, 3}).t().view({6}), "view", "[3, 2]", "[1, 3]", "[6]", "reshape");
}

TEST(BadShape, ReshapeInferredSizeDoesNotDivide) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, f32({2, 3}).reshape({4, -1}), "reshape", "[4, -1]", "6 elements");
}

TEST(BadShape, ExpandToIncompatibleSize) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, f32({2, 3}).expand({4, 3}), "expand", "[2, 3]", "[4, 3]");
}

TEST(BadShape, ExpandToFewerDims) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, f32({2, 3}).expand({3}), "expand", "[3]", "[2, 3]");
}

TEST(BadShape, AmaxOverZeroSizeDim) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::amax(f32({2, 0}), {1}), "amax", "size 0", "[2, 0]");
}

TEST(BadShape, AminOfEmptyTensorOverAllDims) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::amin(f32({0, 3})), "amin", "size 0", "[0, 3]");
}

TEST(BadShape, ArgmaxOverZeroSizeDim) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::argmax(f32({3, 0}), 1), "argmax", "size 0", "[3, 0]");
}

TEST(BadShape, TensorFromBytesWithWrongValueCount) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::tensor(std::vector<uint8_t>{1, 0}, {3}, Dtype::boolean, cpu()), "tensor", "2 values",
                        "[3]");
}

TEST(BadShape, TensorFromVectorWithTooFewValues) {
  // The capacity keeps the buggy over-read inside the allocation; the values must still be counted.
  std::vector<float> v;
  v.reserve(16);
  v.push_back(1.0f);
  v.push_back(2.0f);
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::tensor(v, {3}, cpu()), "tensor", "2 values", "[3]");
}

// ------------------------------------------------------------------ dtype errors

TEST(BadDtype, AddOfMixedDtypes) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::add(f32({2}), of({2}, Dtype::f64)), "add", "f32", "f64", ".to(");
}

TEST(BadDtype, OrderedComparisonsOfBoolAndMixedDtypes) {
  // ne takes bool as eq does; ge and le, like lt and gt, do not order bools.
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::ge(of({2}, Dtype::boolean), of({2}, Dtype::boolean)), "ge", "bool",
                        "f64, f32, f16, bf16, i8, u8, i32, i64");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::le(of({2}, Dtype::boolean), of({2}, Dtype::boolean)), "le", "bool");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::ne(f32({2}), of({2}, Dtype::i64)), "ne", "'self' is f32", "'other' is i64");
}

TEST(BadShape, ComparisonOperandsDoNotBroadcast) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::ne(f32({2, 3}), f32({4, 3})), "ne", "[2, 3]", "[4, 3]", "broadcast");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::le(f32({3}), f32({2})), "le", "[3]", "[2]");
}

TEST(BadDtype, ExpOfInt32) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::exp(of({2}, Dtype::i32)), "exp", "i32", "f32");
}

TEST(BadDtype, WhereConditionIsNotBool) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::where(f32({2}), f32({2}), f32({2})), "where", "condition", "bool", "f32");
}

TEST(BadDtype, WhereBranchesOfDifferentDtypes) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::where(of({2}, Dtype::boolean), f32({2}), of({2}, Dtype::i32)), "where", "f32",
                        "i32");
}

TEST(BadDtype, RmsNormBackwardRstdNotTheAccumulationDtype) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError,
                        xd::rms_norm_backward(f32({2, 4}), f32({2, 4}), {4}, of({2, 1}, Dtype::f16), std::nullopt),
                        "rms_norm_backward", "rstd", "f32", "f16");
}

TEST(BadDtype, RmsNormBackwardF32RstdForF64Input) {
  const xd::Tensor x = of({2, 4}, Dtype::f64);
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::rms_norm_backward(x, x, {4}, f32({2, 1}), std::nullopt), "rms_norm_backward",
                        "rstd", "f64", "f32");
}

// A weight of another floating dtype is accepted (bf16 x, f32 weight); one that is not floating
// is not.
TEST(BadDtype, RmsNormWeightOfIntegers) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::rms_norm(f32({2, 4}), {4}, of({4}, Dtype::i32)), "rms_norm",
                        "argument 'weight' has dtype i32", "f64, f32, f16, bf16");
  EXPECT_THROWS_EXACTLY(xd::DtypeError,
                        xd::rms_norm_backward(f32({2, 4}), f32({2, 4}), {4}, f32({2, 1}), of({4}, Dtype::u8)),
                        "rms_norm_backward", "argument 'weight' has dtype u8");
}

TEST(BadDtype, RmsNormOfIntegers) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::rms_norm(of({2, 4}, Dtype::i64), {4}), "rms_norm", "i64");
}

TEST(BadDtype, MmOfInt32) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::mm(of({2, 2}, Dtype::i32), of({2, 2}, Dtype::i32)), "mm", "i32");
}

TEST(BadDtype, RandWithInt32Dtype) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::rand({2}, Dtype::i32, cpu()), "rand", "i32");
}

TEST(BadDtype, RandnWithBoolDtype) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::randn({2}, Dtype::boolean, cpu()), "randn", "bool");
}

TEST(BadDtype, MeanOfIntegers) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::mean(of({3}, Dtype::i64)), "mean", "i64");
}

TEST(BadDtype, SoftmaxOfIntegers) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::softmax(of({3}, Dtype::u8), 0), "softmax", "u8");
}

TEST(BadDtype, LtOfBools) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::lt(of({3}, Dtype::boolean), of({3}, Dtype::boolean)), "lt", "bool");
}

TEST(BadDtype, ArangeWithBoolDtype) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::arange(0.0, 3.0, 1.0, Dtype::boolean, cpu()), "arange", "bool");
}

// ------------------------------------------------------------------ device errors

TEST(BadDevice, DefaultConstructedDevice) {
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::empty({2}, Dtype::f32, xd::Device()), "no device", "xd::cpu()");
}

TEST(BadDevice, MoveToDefaultConstructedDevice) {
  EXPECT_THROWS_EXACTLY(xd::DeviceError, f32({2}).to(xd::Device()), "no device");
}

TEST(BadDevice, NonexistentDeviceIndex) {
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::Device::parse("cpu:7"), "cpu:7", "does not exist", "1 visible device");
}

TEST(BadDevice, DeviceTypeOfNoLoadedBackend) {
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::zeros({1}, Dtype::f32, xd::Device(99, 0)), "99", "no loaded backend");
}

TEST(BadDevice, UnknownBackendListsAvailableOnes) {
  EXPECT_THROWS_EXACTLY(xd::BackendError, xd::Device::parse("nosuch"), "'nosuch'", "not available", "available: cpu",
                        "Load report");
}

TEST(BadDevice, MalformedDeviceText) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::Device::parse("cpu:x"), "cpu:x", "NAME:INDEX");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::Device::parse("cpu:"), "cpu:");
}

// Operands on two devices: cpu and the stub plugin's device (support/stub_device.hpp).
using xd::test::stub_device;
xd::Tensor f32_on(xd::Device d, xd::IntList sizes) { return f32(sizes).to(d); }

TEST(BadDevice, AddOfTensorsOnTwoDevices) {
  const xd::Device stub = stub_device();
  ASSERT_NE(stub, cpu());
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::add(f32({2, 3}), f32_on(stub, {2, 3})), "add", "'self' is on cpu:0",
                        "'other' is on stubdev:0", ".to(device)");
}

TEST(BadDevice, MmOfMatricesOnTwoDevices) {
  const xd::Device stub = stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::mm(f32_on(stub, {2, 3}), f32({3, 4})), "mm", "'self' is on stubdev:0",
                        "'mat2' is on cpu:0", ".to(device)");
}

TEST(BadDevice, MatmulOfBatchesOnTwoDevices) {
  const xd::Device stub = stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::matmul(f32({2, 2, 3}), f32_on(stub, {3, 4})), "matmul",
                        "'self' is on cpu:0", "'other' is on stubdev:0", ".to(device)");
}

TEST(BadDevice, AddmmInputOnAnotherDeviceThanTheMatrices) {
  const xd::Device stub = stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::addmm(f32_on(stub, {4}), f32({2, 3}), f32({3, 4})), "addmm",
                        "'self' is on stubdev:0", "'mat1' is on cpu:0");
}

TEST(BadDevice, WhereWithConditionOrBranchOnAnotherDevice) {
  const xd::Device stub = stub_device();
  const xd::Tensor cond = xd::gt(f32({2, 3}), f32({2, 3}));
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::where(cond.to(stub), f32({2, 3}), f32({2, 3})), "where",
                        "'condition' is on stubdev:0", "'self' is on cpu:0");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::where(cond, f32({2, 3}), f32_on(stub, {2, 3})), "where",
                        "'self' is on cpu:0", "'other' is on stubdev:0");
}

// ------------------------------------------------------------------ layer_norm (every error kind)

TEST(BadShape, LayerNormNormalizedShapeIsNotTheTrailingShape) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::layer_norm(f32({2, 4}), {5}), "layer_norm", "[2, 4]", "normalized_shape",
                        "[5]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::layer_norm(f32({4}), {1, 4}), "layer_norm", "[1, 4]", "[4]");
}

TEST(BadShape, LayerNormWeightAndBiasShapes) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::layer_norm(f32({2, 4}), {4}, f32({3})), "layer_norm", "weight", "[3]",
                        "[4]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::layer_norm(f32({2, 4}), {4}, f32({4}), f32({2, 4})), "layer_norm", "bias",
                        "[2, 4]", "[4]");
}

TEST(BadShape, LayerNormBackwardStatisticsAndGradOutShapes) {
  const xd::Tensor x = f32({2, 4}), s = f32({2, 1});
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::layer_norm_backward(x, x, {4}, f32({2, 2}), s, std::nullopt, std::nullopt),
                        "layer_norm_backward", "mean", "[2, 2]", "[2, 1]", "as layer_norm returns it");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::layer_norm_backward(x, x, {4}, s, f32({2}), std::nullopt, std::nullopt),
                        "layer_norm_backward", "rstd", "[2]", "[2, 1]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::layer_norm_backward(f32({2, 3}), x, {4}, s, s, std::nullopt, std::nullopt),
                        "layer_norm_backward", "grad_out", "[2, 3]", "[2, 4]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::layer_norm_backward(x, x, {4}, s, s, f32({4}), f32({5})),
                        "layer_norm_backward", "bias", "[5]", "[4]");
}

TEST(BadDtype, LayerNormOfIntegersAndMixedParameterDtypes) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::layer_norm(of({2, 4}, Dtype::i64), {4}), "layer_norm", "i64");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::layer_norm(f32({2, 4}), {4}, of({4}, Dtype::f16)), "layer_norm", "weight",
                        "f16");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::layer_norm(f32({2, 4}), {4}, std::nullopt, of({4}, Dtype::bf16)),
                        "layer_norm", "bias", "bf16");
}

TEST(BadDtype, LayerNormBackwardStatisticsNotTheAccumulationDtype) {
  const xd::Tensor x = f32({2, 4}), s = f32({2, 1});
  EXPECT_THROWS_EXACTLY(xd::DtypeError,
                        xd::layer_norm_backward(x, x, {4}, of({2, 1}, Dtype::f16), s, std::nullopt, std::nullopt),
                        "layer_norm_backward", "mean", "f32", "f16");
  const xd::Tensor xd64 = of({2, 4}, Dtype::f64), s64 = of({2, 1}, Dtype::f64);
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::layer_norm_backward(xd64, xd64, {4}, s64, s, std::nullopt, std::nullopt),
                        "layer_norm_backward", "rstd", "f64", "f32");
  EXPECT_THROWS_EXACTLY(xd::DtypeError,
                        xd::layer_norm_backward(of({2, 4}, Dtype::f16), x, {4}, s, s, std::nullopt, std::nullopt),
                        "layer_norm_backward", "grad_out", "f16");
}

TEST(BadValue, LayerNormEpsAndEmptyNormalizedShape) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::layer_norm(f32({2, 4}), {}), "layer_norm", "normalized_shape");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::layer_norm(f32({2, 4}), {4}, std::nullopt, std::nullopt, -1.0),
                        "layer_norm", "eps", "-1");
  EXPECT_THROWS_EXACTLY(
      xd::ValueError,
      xd::layer_norm(f32({2, 4}), {4}, std::nullopt, std::nullopt, std::numeric_limits<double>::infinity()),
      "layer_norm", "eps", "inf");
}

TEST(BadDevice, LayerNormParametersOnAnotherDevice) {
  const xd::Device stub = stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::layer_norm(f32({2, 4}), {4}, f32_on(stub, {4})), "layer_norm",
                        "'input' is on cpu:0", "'weight' is on stubdev:0");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::layer_norm(f32({2, 4}), {4}, f32({4}), f32_on(stub, {4})), "layer_norm",
                        "'bias' is on stubdev:0");
  const xd::Tensor x = f32({2, 4}), s = f32({2, 1});
  EXPECT_THROWS_EXACTLY(xd::DeviceError,
                        xd::layer_norm_backward(x, x, {4}, f32_on(stub, {2, 1}), s, std::nullopt, std::nullopt),
                        "layer_norm_backward", "'mean' is on stubdev:0");
}

// ------------------------------------------------------------------ index errors

TEST(BadIndex, SumDimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::sum(f32({2, 3}), {2}), "sum", "dim 2", "2-d", "[-2, 1]");
}

TEST(BadIndex, SoftmaxDimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::softmax(f32({2, 3}), -3), "softmax", "dim -3");
}

TEST(BadIndex, ArgmaxDimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::argmax(f32({2, 3}), 5), "argmax", "dim 5");
}

TEST(BadIndex, TransposeDimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, f32({2, 3}).transpose(0, 5), "transpose", "dim 5");
}

TEST(BadIndex, SelectIndexOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, f32({3, 4}).select(0, 3), "select", "index 3", "size 3");
  EXPECT_THROWS_EXACTLY(xd::IndexError, f32({3, 4}).select(1, -5), "select", "index -5", "size 4");
}

TEST(BadIndex, AtWithWrongIndexCount) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, f32({2, 3}).at<float>({1}), "at()", "1 ind", "2-d");
}

TEST(BadIndex, AtIndexOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, f32({2, 3}).at<float>({0, 9}), "index 9", "size 3");
}

TEST(BadIndex, SizeOfDimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, f32({2, 3}).size(2), "dim 2");
}

TEST(BadIndex, SliceOfZeroDimTensor) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, f32({}).slice(0, 0, 1), "slice", "0-d");
}

// ------------------------------------------------------------------ value errors

TEST(BadValue, EmptyWithNegativeSize) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::empty({2, -1}, Dtype::f32, cpu()), "negative size -1", "[2, -1]");
}

TEST(BadValue, EmptyWithElementCountOverflowingInt64) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::empty({big, big, big}, Dtype::f32, cpu()), "[1099511627776, 1099511627776, 1099511627776]",
                        "int64");
}

TEST(BadValue, SumWithDuplicateDims) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::sum(f32({2, 3}), {0, -2}), "sum", "dim 0", "more than once", "[0, -2]");
}

TEST(BadValue, ArangeWithZeroStep) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::arange(0.0, 5.0, 0.0, Dtype::f32, cpu()), "arange", "step", "nonzero");
}

TEST(BadValue, ArangeStepWithWrongSign) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::arange(0.0, 10.0, -1.0, Dtype::f32, cpu()), "arange", "sign", "-1");
}

TEST(BadValue, ArangeFractionalStepForIntegerDtype) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::arange(0.0, 5.0, 0.5, Dtype::i64, cpu()), "arange", "integers", "i64");
}

TEST(BadValue, ArangeNonFiniteEnd) {
  EXPECT_THROWS_EXACTLY(xd::ValueError,
                        xd::arange(0.0, std::numeric_limits<double>::infinity(), 1.0, Dtype::f32, cpu()), "arange",
                        "finite");
}

TEST(BadValue, PermuteWithRepeatedDim) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, f32({2, 3}).permute({0, 0}), "permute", "dim 0", "twice", "[0, 0]");
}

TEST(BadValue, PermuteWithWrongDimCount) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, f32({2, 3}).permute({1, 0, 2}), "permute", "3 dims", "2-d");
}

TEST(BadValue, SliceWithZeroStep) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, f32({4}).slice(0, 0, 4, 0), "slice", "step", "positive", "0");
}

TEST(BadValue, ViewWithTwoInferredSizes) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, f32({2, 3}).view({-1, -1}), "view", "-1", "[-1, -1]");
}

TEST(BadValue, AddWithUndefinedTensor) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::add(f32({2}), xd::Tensor()), "add", "'other'", "undefined");
}

TEST(BadValue, MmWithUndefinedTensor) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::mm(xd::Tensor(), f32({2, 2})), "mm", "'self'", "undefined");
}

TEST(BadValue, CopyFromUndefinedTensor) {
  xd::Tensor dst = f32({2});
  EXPECT_THROWS_EXACTLY(xd::ValueError, dst.copy_(xd::Tensor()), "copy_", "'src'", "undefined");
}

TEST(BadValue, AccessorsOfUndefinedTensor) {
  const xd::Tensor t;
  EXPECT_THROWS_EXACTLY(xd::ValueError, t.numel(), "undefined");
  EXPECT_THROWS_EXACTLY(xd::ValueError, t.dtype(), "undefined");
  EXPECT_THROWS_EXACTLY(xd::ValueError, t.to(Dtype::f64), "undefined");
}

TEST(BadValue, SizeAndStrideOfUndefinedTensor) {
  // Must throw before anything dereferences the missing implementation.
  const xd::Tensor t;
  EXPECT_THROWS_EXACTLY(xd::ValueError, t.size(0), "undefined");
  EXPECT_THROWS_EXACTLY(xd::ValueError, t.stride(0), "undefined");
}

TEST(BadValue, ItemOfMultiElementTensor) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, f32({2, 3}).item<float>(), "item()", "6 elements");
}

TEST(BadValue, ItemOfEmptyTensor) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, f32({0}).item<float>(), "item()", "0 elements");
}

TEST(BadValue, ParseUnknownDtype) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::parse_dtype("f17"), "'f17'", "f32", "bf16", "f8e5m2");
}

TEST(BadValue, AddWithNonIntegerAlphaOnInt32) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::add(of({2}, Dtype::i32), of({2}, Dtype::i32), 1.5), "add", "alpha", "1.5", "i32");
}

TEST(BadValue, SubWithNonIntegerAlphaOnUint8) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::sub(of({2}, Dtype::u8), of({2}, Dtype::u8), 0.5), "sub", "alpha", "u8");
}

TEST(BadValue, RmsNormWithEmptyNormalizedShape) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::rms_norm(f32({2, 4}), {}), "rms_norm", "normalized_shape");
}

TEST(BadValue, RmsNormWithNegativeEps) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::rms_norm(f32({2, 4}), {4}, std::nullopt, -1.0), "rms_norm", "eps", "-1");
}

TEST(BadValue, AddmmWithNonFiniteBeta) {
  EXPECT_THROWS_EXACTLY(xd::ValueError,
                        xd::addmm(f32({2, 2}), f32({2, 2}), f32({2, 2}), std::numeric_limits<double>::quiet_NaN()),
                        "addmm", "beta", "finite");
}

TEST(BadValue, FullWithNanIntoIntegerTensor) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({2}, std::numeric_limits<double>::quiet_NaN(), Dtype::i32, cpu()), "full",
                        "nan", "i32");
}

TEST(BadValue, FromHostWithNullData) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::from_host(nullptr, Dtype::f32, {3}, cpu()), "from_host", "null");
}

TEST(BadValue, TransposeShorthandOfThreeDims) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, f32({2, 3, 4}).t(), "t()", "2 dims", "3");
}

TEST(BadValue, EnableUnknownKernel) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::set_kernel_enabled("cpu.no.such.kernel", false), "'cpu.no.such.kernel'");
}

// ------------------------------------------------------------------ layout errors

TEST(BadLayout, NineDims) {
  EXPECT_THROWS_EXACTLY(xd::LayoutError, xd::empty({1, 1, 1, 1, 1, 1, 1, 1, 1}, Dtype::f32, cpu()), "9", "8");
}

TEST(BadLayout, ReshapeToNineDims) {
  EXPECT_THROWS_EXACTLY(xd::LayoutError, f32({2}).reshape({1, 1, 1, 1, 1, 1, 1, 1, 2}), "reshape", "9", "8");
}

TEST(BadLayout, UnsqueezeBeyondEightDims) {
  EXPECT_THROWS_EXACTLY(xd::LayoutError, f32({1, 1, 1, 1, 1, 1, 1, 1}).unsqueeze(0), "unsqueeze", "8");
}

TEST(BadLayout, ExpandToNineDims) {
  EXPECT_THROWS_EXACTLY(xd::LayoutError, f32({2}).expand({1, 1, 1, 1, 1, 1, 1, 1, 2}), "expand", "8");
}

TEST(BadLayout, CopyIntoExpandedDestinationOverlaps) {
  // Several destination elements share one memory location: PyTorch refuses this write.
  xd::Tensor dst = f32({1, 3}).expand({4, 3});
  EXPECT_THROWS_EXACTLY(xd::LayoutError, dst.copy_(xd::ones({4, 3}, Dtype::f32, cpu())), "copy_");
}

// ------------------------------------------------------------------ clamp, floor, round

TEST(BadValue, ClampWithNeitherBound) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::clamp(f32({2}), std::nullopt, std::nullopt), "clamp",
                        "at least one of 'min' or 'max' must not be None");
}

TEST(BadValue, ClampIntegerTensorWithAFractionalOrNaNBound) {
  // PyTorch would promote to a floating result; xdispatch does not promote, so it refuses.
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::clamp(of({2}, Dtype::i32), 1.5), "clamp", "min 1.5",
                        "must be an integer for i32 tensors");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::clamp(of({2}, Dtype::i64), 0.0, std::numeric_limits<double>::quiet_NaN()),
                        "clamp", "max nan", "must be an integer for i64 tensors");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::clamp(of({2}, Dtype::u8), std::numeric_limits<double>::infinity()), "clamp",
                        "min inf", "must be an integer for u8 tensors");
}

TEST(BadValue, ClampBoundOutsideTheDtype) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::clamp(of({2}, Dtype::i8), 1000.0), "clamp", "min 1000",
                        "cannot be converted to i8 without overflow", "-128 .. 127");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::clamp(of({2}, Dtype::u8), -256.0), "clamp", "min -256", "u8",
                        "-255 .. -1 wrap");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::clamp(of({2}, Dtype::f16), 1e5), "clamp", "min 100000",
                        "cannot be converted to f16 without overflow");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::clamp(f32({2}), std::nullopt, 1e39), "clamp", "max 9.9999999999999994e+38",
                        "f32");
}

TEST(BadDtype, ClampFloorRoundOfBoolAndFp8) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::clamp(of({2}, Dtype::boolean), 0.0), "clamp", "'self' has dtype bool",
                        "f64, f32, f16, bf16, i8, u8, i32, i64");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::floor(of({2}, Dtype::boolean)), "floor", "'self' has dtype bool");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::round(of({2}, Dtype::f8e4m3fn)), "round", "'self' has dtype f8e4m3fn");
}

TEST(BadDtype, RoundIntegerTensorWithDecimals) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::round(of({2}, Dtype::i32), 2), "round", "dtype i32",
                        "round with decimals 2 takes f64, f32, f16, bf16", "decimals 0 an integer tensor is copied");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::round(of({2}, Dtype::u8), -1), "round", "decimals -1");
}

// ------------------------------------------------------------------ out of memory

TEST(BadSize, ByteCountOverflowingSixtyFourBits) {
  const int64_t n = int64_t{1} << 31;  // 2^62 elements of 8 bytes
  EXPECT_THROWS_EXACTLY(xd::OutOfMemoryError, xd::empty({n, n}, Dtype::i64, cpu()), "[2147483648, 2147483648]", "i64",
                        "64 bits");
}

TEST(BadSize, AllocationLargerThanMemoryStatesTheSize) {
  // 2^50 bytes: no machine has that; the error must say how much was asked for.
  EXPECT_THROWS_EXACTLY(xd::OutOfMemoryError, xd::empty({int64_t{1} << 48}, Dtype::f32, cpu()), "cpu");
}

// ------------------------------------------------------------------ index_select, embedding

xd::Tensor i64s(std::vector<int64_t> v, xd::IntList sizes) { return xd::tensor(v, sizes, cpu()); }

TEST(BadDtype, IndexSelectIndexNotAnInteger) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::index_select(f32({2, 3}), 0, f32({1})), "index_select",
                        "'index' has dtype f32", "takes i32, i64");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::index_select(f32({2, 3}), 0, of({1}, Dtype::i8)), "index_select",
                        "'index' has dtype i8");
}

TEST(BadShape, IndexSelectIndexOfRankTwo) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::index_select(f32({2, 3}), 0, i64s({0, 1}, {1, 2})), "index_select",
                        "'index' must be 1-d or 0-d, got 2-d [1, 2]");
}

TEST(BadIndex, IndexSelectDimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::index_select(f32({2, 3}), 2, i64s({0}, {1})), "index_select",
                        "dim 2 is out of range for a 2-d tensor", "[-2, 1]");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::index_select(f32({2, 3}), -3, i64s({0}, {1})), "index_select", "dim -3");
}

TEST(BadIndex, IndexSelectIndexOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::index_select(f32({2, 3}), 1, i64s({0, 3}, {2})), "index_select",
                        "index 3 (at position 1) is out of range for dim 1 of size 3", "[0, 3)");
  // PyTorch does not wrap negative indices here either.
  const xd::Tensor negative = xd::tensor(std::vector<int32_t>{1, -1}, {2}, cpu());
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::index_select(f32({2, 3}), 0, negative), "index_select",
                        "index -1 (at position 1)", "negative indices do not wrap");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::index_select(f32({0, 3}), 0, i64s({0}, {1})), "index_select",
                        "index 0 (at position 0) is out of range for dim 0 of size 0");
}

TEST(BadIndex, IndexSelectScalarSelfTakesOneIndex) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::index_select(f32({}), 0, i64s({0, 0}, {2})), "index_select",
                        "a 0-d 'self' takes an index of one element, got 2 elements");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::index_select(f32({}), 0, i64s({1}, {1})), "index_select",
                        "index 1 (at position 0) is out of range for dim 0 of size 1");
}

TEST(BadShape, EmbeddingWeightNotTwoD) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::embedding(f32({4}), i64s({0}, {1})), "embedding",
                        "'weight' must be 2-d [num_embeddings, embedding_dim], got 1-d [4]");
}

TEST(BadDtype, EmbeddingIndicesNotAnInteger) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::embedding(f32({4, 3}), f32({2})), "embedding", "'indices' has dtype f32");
}

TEST(BadValue, EmbeddingPaddingIdxOutsideTheTable) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::embedding(f32({4, 3}), i64s({0}, {1}), 4), "embedding",
                        "padding_idx 4 must be within num_embeddings (in [-4, 4))");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::embedding(f32({4, 3}), i64s({0}, {1}), -5), "embedding", "padding_idx -5");
}

TEST(BadIndex, EmbeddingIndexOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::embedding(f32({4, 3}), i64s({1, 2, 4, 0}, {2, 2})), "embedding",
                        "index 4 (at position 2) is out of range for dim 0 of size 4");
}

// ------------------------------------------------------------------ scaled_dot_product_attention

xd::Tensor sdpa(const xd::Tensor& q, const xd::Tensor& k, const xd::Tensor& v,
                const std::optional<xd::Tensor>& mask = std::nullopt, bool causal = false) {
  return xd::scaled_dot_product_attention(q, k, v, mask, causal);
}

TEST(BadShape, AttentionOperandBelowRankTwo) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, sdpa(f32({4}), f32({5, 4}), f32({5, 3})), "scaled_dot_product_attention",
                        "'query' must have at least 2 dims [..., L, E], got 1-d [4]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, sdpa(f32({2, 4}), f32({5, 4}), f32({})), "scaled_dot_product_attention",
                        "'value' must have at least 2 dims [..., S, Ev], got 0-d []");
}

TEST(BadShape, AttentionEmbeddingOrLengthMismatch) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, sdpa(f32({2, 4}), f32({5, 3}), f32({5, 3})), "scaled_dot_product_attention",
                        "'key' [5, 3] must have query's embedding size 4 in its last dim (query [2, 4])");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, sdpa(f32({2, 4}), f32({5, 4}), f32({6, 3})), "scaled_dot_product_attention",
                        "'value' [6, 3] must have key's length 5 in dim -2 (key [5, 4])");
}

TEST(BadShape, AttentionLeadingDimsDoNotBroadcast) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, sdpa(f32({2, 3, 4}), f32({3, 5, 4}), f32({3, 5, 4})),
                        "scaled_dot_product_attention", "the leading (batch) dims of 'key' [3]",
                        "do not broadcast with those of the other operands [2]");
}

TEST(BadShape, AttentionMaskDoesNotBroadcast) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError,
                        sdpa(f32({2, 3, 4}), f32({2, 5, 4}), f32({2, 5, 4}), of({3, 4}, Dtype::boolean)),
                        "scaled_dot_product_attention",
                        "'attn_mask' [3, 4] does not broadcast to the attention weights' shape [2, 3, 5]");
  // A mask may not grow the batch (PyTorch adds it in place).
  EXPECT_THROWS_EXACTLY(xd::ShapeError, sdpa(f32({3, 4}), f32({5, 4}), f32({5, 4}), f32({2, 3, 5})),
                        "scaled_dot_product_attention", "'attn_mask' [2, 3, 5] does not broadcast");
}

TEST(BadDtype, AttentionDtypes) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, sdpa(of({2, 4}, Dtype::i32), of({5, 4}, Dtype::i32), of({5, 4}, Dtype::i32)),
                        "scaled_dot_product_attention", "argument 'query' has dtype i32");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, sdpa(f32({2, 4}), of({5, 4}, Dtype::f16), f32({5, 4})),
                        "scaled_dot_product_attention", "'query' is f32 but 'key' is f16");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, sdpa(f32({2, 4}), f32({5, 4}), f32({5, 4}), of({2, 5}, Dtype::f64)),
                        "scaled_dot_product_attention",
                        "'attn_mask' has dtype f64, but it must be bool or query's dtype f32");
}

TEST(BadValue, AttentionCausalWithMask) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, sdpa(f32({2, 4}), f32({5, 4}), f32({5, 4}), of({2, 5}, Dtype::boolean), true),
                        "scaled_dot_product_attention", "attn_mask and is_causal cannot both be set");
}

TEST(BadDevice, AttentionOperandsOnTwoDevices) {
  const xd::Device stub = stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, sdpa(f32({2, 4}), f32_on(stub, {5, 4}), f32({5, 4})),
                        "scaled_dot_product_attention", "'query' is on cpu:0 but 'key' is on stubdev:0");
}

}  // namespace
