// Bad inputs to cat/stack, gather and TorchAO's quantisation workflows (quantize_int8, weight_int8_mm,
// quantize_per_token_int8, int8_dynamic_mm, quantize_fp8): each throws exactly the documented
// xd::Error subclass, naming the helper (not an inner op), the argument and what was expected.
#include <xd/xd.hpp>

#include "support/stub_device.hpp"
#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using xd::Dtype;
using xd::test::stub_device;

xd::Tensor of(xd::IntList sizes, Dtype d) { return xd::zeros(sizes, d, xd::cpu()); }
xd::Tensor f32(xd::IntList sizes) { return of(sizes, Dtype::f32); }
xd::Tensor i8(xd::IntList sizes) { return of(sizes, Dtype::i8); }

// ------------------------------------------------------------------ cat, stack

TEST(BadCat, EmptyListIsAValueError) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::cat({}), "cat", "non-empty list");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::stack({}), "stack", "non-empty list");
}

TEST(BadCat, UndefinedTensorIsNamedByPosition) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::cat({f32({2}), xd::Tensor()}), "cat", "tensors[1]");
}

TEST(BadCat, ZeroDimensionalTensor) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::cat({f32({})}), "cat", "tensors[0] is zero-dimensional", "stack");
}

TEST(BadCat, SizesDifferOutsideTheDim) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::cat({f32({2, 3}), f32({2, 4})}, 0), "cat",
                        "sizes must match except in dim 0", "tensors[1] [2, 4]", "tensors[0] [2, 3]", "in dim 1");
}

TEST(BadCat, RanksDiffer) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::cat({f32({2, 3}), f32({2, 3, 1})}, 0), "cat", "same number of dims",
                        "is 2-d", "is 3-d");
}

TEST(BadCat, DimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::cat({f32({2, 3}), f32({2, 3})}, 2), "cat", "dim 2", "[-2, 1]");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::stack({f32({2, 3})}, 3), "stack", "dim 3", "[-3, 2]");
}

TEST(BadCat, MixedDtypesAreNotPromoted) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::cat({f32({2}), of({2}, Dtype::f64)}), "cat", "'tensors[1]' is f64",
                        "'tensors[0]' is f32", "does not promote");
}

TEST(BadCat, TensorsOnTwoDevices) {
  const xd::Device stub = stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::cat({f32({2}), f32({2}).to(stub)}), "cat", "'tensors[1]' is on stubdev:0",
                        "'tensors[0]' is on cpu:0");
}

TEST(BadStack, ShapesDiffer) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::stack({f32({2, 3}), f32({3, 2})}), "stack", "same shape",
                        "tensors[0] is [2, 3]", "tensors[1] is [3, 2]");
}

// ------------------------------------------------------------------ gather

xd::Tensor i64s(std::vector<int64_t> v, xd::IntList sizes) { return xd::tensor(v, sizes, xd::cpu()); }

TEST(BadGather, IndexOutOfRangeIsAnIndexErrorNamingTheEntry) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::gather(f32({2, 3}), 1, i64s({0, 1, 3, 0}, {2, 2})), "gather",
                        "index 3 (at position 2) is out of range for dim 1 of size 3", "do not wrap");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::gather(f32({2, 3}), 0, i64s({-1}, {1, 1})), "gather", "index -1");
}

TEST(BadGather, DimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::gather(f32({2, 3}), 2, i64s({0}, {1, 1})), "gather", "dim 2", "[-2, 1]");
}

TEST(BadGather, RanksDifferOrIndexLargerOutsideDim) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::gather(f32({2, 3}), 1, i64s({0}, {1})), "gather",
                        "'index' [1] must have the rank of 'self' [2, 3] (2-d), got 1-d");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::gather(f32({2, 3}), 1, i64s({0, 0, 0}, {3, 1})), "gather",
                        "'index' [3, 1] is larger than 'self' [2, 3] in dim 0 (3 > 2); only dim 1 may be larger");
}

TEST(BadGather, IndexDtypeAndDevice) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::gather(f32({2, 3}), 1, f32({2, 1})), "gather",
                        "argument 'index' has dtype f32");
  const xd::Device stub = stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::gather(f32({2, 3}), 1, i64s({0, 0}, {2, 1}).to(stub)), "gather",
                        "'index' is on stubdev:0");
}

// ------------------------------------------------------------------ int8 weight-only

TEST(BadQuantizeInt8, WeightMustBeFloatingAndTwoDimensional) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::quantize_int8(of({4, 8}, Dtype::i32)), "quantize_int8",
                        "argument 'weight' has dtype i32");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::quantize_int8(f32({8})), "quantize_int8", "'weight' must be 2-d", "1-d");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::quantize_int8(f32({4, 0})), "quantize_int8", "[4, 0]",
                        "rows of no elements");
}

TEST(BadWeightInt8Mm, DtypesOfInputWeightAndScales) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::weight_int8_mm(of({2, 8}, Dtype::f64), i8({4, 8}), f32({4})),
                        "weight_int8_mm", "argument 'input' has dtype f64", "f32, f16, bf16");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::weight_int8_mm(f32({2, 8}), of({4, 8}, Dtype::u8), f32({4})),
                        "weight_int8_mm", "argument 'weight' has dtype u8", "takes i8");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::weight_int8_mm(f32({2, 8}), i8({4, 8}), of({4}, Dtype::bf16)),
                        "weight_int8_mm", "argument 'scales' has dtype bf16", "takes f32");
}

TEST(BadWeightInt8Mm, Shapes) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int8_mm(f32({}), i8({4, 8}), f32({4})), "weight_int8_mm",
                        "'input' must have at least one dim");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int8_mm(f32({2, 8}), i8({4, 8, 1}), f32({4})), "weight_int8_mm",
                        "'weight' must be 2-d");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int8_mm(f32({2, 3, 8}), i8({4, 7}), f32({4})), "weight_int8_mm",
                        "'input' [2, 3, 8] has K = 8", "'weight' [4, 7]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int8_mm(f32({2, 8}), i8({4, 8}), f32({4, 1})), "weight_int8_mm",
                        "'scales' must be [N] = [4]", "[4, 1]");
}

TEST(BadWeightInt8Mm, OperandsOnTwoDevices) {
  const xd::Device stub = stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::weight_int8_mm(f32({2, 8}), i8({4, 8}).to(stub), f32({4})),
                        "weight_int8_mm", "'weight' is on stubdev:0", "'input' is on cpu:0");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::int8_dynamic_mm(f32({2, 8}), i8({4, 8}), f32({4}).to(stub)),
                        "int8_dynamic_mm", "'scales' is on stubdev:0");
}

// ------------------------------------------------------------------ int8 dynamic activation

TEST(BadInt8Dynamic, PerTokenQuantizationNeedsRows) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::quantize_per_token_int8(i8({2, 8})), "quantize_per_token_int8",
                        "argument 'input' has dtype i8");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::quantize_per_token_int8(f32({})), "quantize_per_token_int8", "0-d");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::quantize_per_token_int8(f32({3, 0})), "quantize_per_token_int8", "[3, 0]",
                        "rows of no elements");
}

TEST(BadInt8Dynamic, MatmulOperands) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::int8_dynamic_mm(f32({2, 8}), f32({4, 8}), f32({4})), "int8_dynamic_mm",
                        "argument 'weight' has dtype f32", "takes i8");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::int8_dynamic_mm(f32({2, 8}), i8({4, 8}), of({4}, Dtype::i32)),
                        "int8_dynamic_mm", "argument 'scales' has dtype i32");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::int8_dynamic_mm(f32({2, 8}), i8({4, 6}), f32({4})), "int8_dynamic_mm",
                        "has K = 8", "[4, 6]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::int8_dynamic_mm(f32({2, 0}), i8({4, 0}), f32({4})), "int8_dynamic_mm",
                        "K = 0");
}

// ------------------------------------------------------------------ fp8 scaling

TEST(BadQuantizeFp8, DtypesDimAndEmptyInputs) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::quantize_fp8(i8({2, 3})), "quantize_fp8", "argument 'input' has dtype i8");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::quantize_fp8(f32({2, 3}), Dtype::bf16), "quantize_fp8",
                        "argument 'fp8_dtype' has dtype bf16", "f8e4m3fn");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::quantize_fp8(f32({2, 3}), Dtype::f8e4m3fn, 2), "quantize_fp8", "dim 2");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::quantize_fp8(f32({0, 3})), "quantize_fp8", "is empty");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::quantize_fp8(f32({2, 0}), Dtype::f8e5m2, 1), "quantize_fp8",
                        "no elements along dim 1");
}

}  // namespace
