// Bad inputs of weight_int4_mm, quantize_int4 and dequantize_int4: each kind gets its typed error,
// with a message naming the op, the argument and what was expected.
#include <xd/xd.hpp>

#include "support/stub_device.hpp"
#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

namespace {

using xd::Dtype;
using xd::Tensor;

Tensor of(xd::IntList sizes, Dtype d) { return xd::zeros(sizes, d, xd::cpu()); }

// A valid problem: M = 3, K = 64, N = 8, g = 32.
struct Operands {
  Tensor x = of({3, 64}, Dtype::f32);
  Tensor w = of({8, 32}, Dtype::u8);
  Tensor s = of({2, 8}, Dtype::f32);
  Tensor z = of({2, 8}, Dtype::i8);
};

TEST(Int4BadInputs, ValidOperandsRun) {
  Operands o;
  const Tensor out = xd::weight_int4_mm(o.x, o.w, o.s, o.z, 32);
  EXPECT_EQ(out.sizes()[0], 3);
  EXPECT_EQ(out.sizes()[1], 8);
}

TEST(Int4BadInputs, GroupSizeNotAPositiveMultipleOf32IsAValueError) {
  Operands o;
  for (int64_t g : {0, -32, 16, 48})
    EXPECT_THROWS_EXACTLY(xd::ValueError, xd::weight_int4_mm(o.x, o.w, o.s, o.z, g), "weight_int4_mm",
                          "group_size must be a positive multiple of 32", std::to_string(g));
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::quantize_int4(of({8, 64}, Dtype::f32), 20), "quantize_int4",
                        "group_size must be a positive multiple of 32, got 20");
}

TEST(Int4BadInputs, OddKIsAShapeError) {
  Operands o;
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int4_mm(of({3, 63}, Dtype::f32), o.w, o.s, o.z, 32),
                        "weight_int4_mm", "'input' [3, 63]", "K = 63, which is odd");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::quantize_int4(of({8, 63}, Dtype::f32), 32), "quantize_int4",
                        "K = 63, which is odd");
}

TEST(Int4BadInputs, KNotAMultipleOfTheGroupSizeIsAShapeError) {
  Operands o;
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int4_mm(o.x, o.w, o.s, o.z, 128), "weight_int4_mm",
                        "K = 64, which is not a multiple of group_size 128");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::quantize_int4(of({8, 96}, Dtype::bf16), 64), "quantize_int4",
                        "K = 96, which is not a multiple of group_size 64");
}

TEST(Int4BadInputs, WeightDtypeAndShape) {
  Operands o;
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::weight_int4_mm(o.x, of({8, 32}, Dtype::i8), o.s, o.z, 32), "weight_int4_mm",
                        "'weight' has dtype i8", "must be u8");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int4_mm(o.x, of({8, 64}, Dtype::u8), o.s, o.z, 32), "weight_int4_mm",
                        "'weight' [8, 64] must be [N, K/2] = [8, 32]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int4_mm(o.x, of({256}, Dtype::u8), o.s, o.z, 32), "weight_int4_mm",
                        "'weight' must be 2-d, got 1-d");
}

TEST(Int4BadInputs, ScalesAndZerosDtypesAndShapes) {
  Operands o;
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::weight_int4_mm(o.x, o.w, of({2, 8}, Dtype::bf16), o.z, 32),
                        "weight_int4_mm", "'input' is f32 but 'scales' is bf16");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int4_mm(o.x, o.w, of({8, 2}, Dtype::f32), o.z, 32), "weight_int4_mm",
                        "'scales' must be [K/group_size, N] = [2, 8], got [8, 2]");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::weight_int4_mm(o.x, o.w, o.s, of({2, 8}, Dtype::u8), 32), "weight_int4_mm",
                        "'zeros' has dtype u8", "i8");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int4_mm(o.x, o.w, o.s, of({1, 8}, Dtype::i8), 32), "weight_int4_mm",
                        "'zeros' must be [K/group_size, N] = [2, 8], got [1, 8]");
}

TEST(Int4BadInputs, InputDtypeAndRank) {
  Operands o;
  for (Dtype d : {Dtype::f64, Dtype::i32, Dtype::u8})
    EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::weight_int4_mm(of({3, 64}, d), o.w, of({2, 8}, d), o.z, 32),
                          "weight_int4_mm", "argument 'input' has dtype", "f32, f16, bf16");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::weight_int4_mm(of({2, 3, 64}, Dtype::f32), o.w, o.s, o.z, 32),
                        "weight_int4_mm", "'input' must be 2-d, got 3-d");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::quantize_int4(of({8, 64}, Dtype::f16), 32), "quantize_int4",
                        "argument 'weight' has dtype f16", "f32, bf16");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::quantize_int4(of({64}, Dtype::f32), 32), "quantize_int4",
                        "'weight' must be 2-d, got 1-d");
}

TEST(Int4BadInputs, UndefinedTensorIsAValueError) {
  Operands o;
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::weight_int4_mm(o.x, Tensor(), o.s, o.z, 32), "weight_int4_mm", "weight");
}

// ------------------------------------------------------------------ dequantize_int4
// A valid problem: N = 8, K = 64, g = 32 (the Operands' weight, scales and zeros).

TEST(DequantizeInt4BadInputs, ValidOperandsRun) {
  Operands o;
  const Tensor w = xd::dequantize_int4(o.w, o.s, o.z, 32);
  EXPECT_EQ(w.sizes()[0], 8);
  EXPECT_EQ(w.sizes()[1], 64);
  EXPECT_EQ(w.dtype(), Dtype::f32);
}

TEST(DequantizeInt4BadInputs, GroupSizeNotAPositiveMultipleOf32IsAValueError) {
  Operands o;
  for (int64_t g : {0, -32, 16, 48})
    EXPECT_THROWS_EXACTLY(xd::ValueError, xd::dequantize_int4(o.w, o.s, o.z, g), "dequantize_int4",
                          "group_size must be a positive multiple of 32", std::to_string(g));
}

TEST(DequantizeInt4BadInputs, UndefinedTensorIsAValueError) {
  Operands o;
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::dequantize_int4(Tensor(), o.s, o.z, 32), "dequantize_int4", "packed");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::dequantize_int4(o.w, Tensor(), o.z, 32), "dequantize_int4", "scales");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::dequantize_int4(o.w, o.s, Tensor(), 32), "dequantize_int4", "zeros");
}

TEST(DequantizeInt4BadInputs, PackedNotU8OrNot2dIsADtypeOrShapeError) {
  Operands o;
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::dequantize_int4(of({8, 32}, Dtype::i8), o.s, o.z, 32), "dequantize_int4",
                        "'packed' has dtype i8", "must be u8");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::dequantize_int4(of({256}, Dtype::u8), o.s, o.z, 32), "dequantize_int4",
                        "'packed' must be 2-d, got 1-d");
}

TEST(DequantizeInt4BadInputs, KNotAMultipleOfTheGroupSizeIsAShapeError) {
  Operands o;
  // packed [8, 16]: K = 32 codes a row.
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::dequantize_int4(of({8, 16}, Dtype::u8), o.s, o.z, 64), "dequantize_int4",
                        "'packed' [8, 16] has K = 32, which is not a multiple of group_size 64");
}

TEST(DequantizeInt4BadInputs, ScalesDtypeMustBeF32F16OrBf16) {
  Operands o;
  for (Dtype d : {Dtype::f64, Dtype::i32, Dtype::u8, Dtype::i8})
    EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::dequantize_int4(o.w, of({2, 8}, d), o.z, 32), "dequantize_int4",
                          std::string("argument 'scales' has dtype ") + xd::dtype_name(d), "f32, f16, bf16");
}

TEST(DequantizeInt4BadInputs, ScalesAndZerosShapesAndZerosDtype) {
  Operands o;
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::dequantize_int4(o.w, of({8, 2}, Dtype::f32), o.z, 32), "dequantize_int4",
                        "'scales' must be [K/group_size, N] = [2, 8], got [8, 2]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::dequantize_int4(o.w, of({16}, Dtype::bf16), o.z, 32), "dequantize_int4",
                        "'scales' must be 2-d, got 1-d");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::dequantize_int4(o.w, o.s, of({2, 8}, Dtype::u8), 32), "dequantize_int4",
                        "'zeros' has dtype u8", "i8");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::dequantize_int4(o.w, o.s, of({1, 8}, Dtype::i8), 32), "dequantize_int4",
                        "'zeros' must be [K/group_size, N] = [2, 8], got [1, 8]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::dequantize_int4(o.w, o.s, of({2, 8, 1}, Dtype::i8), 32), "dequantize_int4",
                        "'zeros' must be 2-d, got 3-d");
}

TEST(DequantizeInt4BadInputs, OperandsOnTwoDevicesAreADeviceError) {
  Operands o;
  const xd::Device stub = xd::test::stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::dequantize_int4(o.w, o.s.to(stub), o.z, 32), "dequantize_int4",
                        "'packed' is on cpu:0", "'scales' is on stubdev:0");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::dequantize_int4(o.w, o.s, o.z.to(stub), 32), "dequantize_int4",
                        "'packed' is on cpu:0", "'zeros' is on stubdev:0");
}

}  // namespace
