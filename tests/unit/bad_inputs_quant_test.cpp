// Bad inputs to int_mm, scaled_mm and the saturating cast: each throws exactly the documented
// xd::Error subclass with a message naming the op, the argument and what was expected.
#include <xd/xd.hpp>

#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {

using xd::Dtype;

xd::Tensor of(xd::IntList sizes, Dtype d) { return xd::zeros(sizes, d, xd::cpu()); }
xd::Tensor e4(xd::IntList sizes) { return of(sizes, Dtype::f8e4m3fn); }
xd::Tensor f32(xd::IntList sizes) { return of(sizes, Dtype::f32); }
xd::Tensor one() { return f32({}); }

// ------------------------------------------------------------------ int_mm

TEST(BadIntMm, OperandsMustBeI8) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::int_mm(of({2, 3}, Dtype::u8), of({3, 4}, Dtype::i8)), "int_mm", "'self'",
                        "u8", "takes i8");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::int_mm(of({2, 3}, Dtype::i8), of({3, 4}, Dtype::i32)), "int_mm", "'mat2'",
                        "i32", "takes i8");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::int_mm(f32({2, 3}), f32({3, 4})), "int_mm", "f32", "takes i8");
}

TEST(BadIntMm, InnerDimsDiffer) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::int_mm(of({2, 3}, Dtype::i8), of({4, 5}, Dtype::i8)), "int_mm", "[2, 3]",
                        "[4, 5]", "cannot be multiplied");
}

TEST(BadIntMm, OperandsMustBeTwoDimensional) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::int_mm(of({2, 3, 4}, Dtype::i8), of({4, 5}, Dtype::i8)), "int_mm",
                        "'self' must be 2-d", "3-d");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::int_mm(of({2, 3}, Dtype::i8), of({3}, Dtype::i8)), "int_mm",
                        "'mat2' must be 2-d", "1-d");
}

TEST(BadIntMm, UndefinedOperand) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::int_mm(xd::Tensor(), of({3, 4}, Dtype::i8)), "int_mm", "self");
}

// ------------------------------------------------------------------ scaled_mm

TEST(BadScaledMm, OperandsMustBeFp8) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::scaled_mm(of({2, 3}, Dtype::bf16), e4({3, 4}), one(), one()), "scaled_mm",
                        "'self'", "bf16", "f8e4m3fn, f8e5m2");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::scaled_mm(e4({2, 3}), of({3, 4}, Dtype::i8), one(), one()), "scaled_mm",
                        "'mat2'", "i8", "f8e4m3fn, f8e5m2");
}

TEST(BadScaledMm, MixedFp8FormatsAreAccepted) {
  const xd::Tensor out = xd::scaled_mm(e4({2, 3}), of({3, 4}, Dtype::f8e5m2), one(), one());
  EXPECT_EQ(out.dtype(), Dtype::bf16);
  EXPECT_EQ(out.sizes()[0], 2);
  EXPECT_EQ(out.sizes()[1], 4);
}

TEST(BadScaledMm, ScalesMustBeF32) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::scaled_mm(e4({2, 3}), e4({3, 4}), of({}, Dtype::bf16), one()), "scaled_mm",
                        "'scale_a'", "bf16", "takes f32");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::scaled_mm(e4({2, 3}), e4({3, 4}), one(), of({1}, Dtype::f64)), "scaled_mm",
                        "'scale_b'", "f64", "takes f32");
}

TEST(BadScaledMm, ScaleShapesMustBeTensorwiseOrRowwise) {
  // A per-row scale_a with a tensor-wise scale_b, transposed row-wise scales, wrong lengths.
  using Shape = std::vector<int64_t>;
  for (const auto& [sa, sb] : std::vector<std::pair<Shape, Shape>>{
           {{2, 1}, {}}, {{1, 2}, {4, 1}}, {{3, 1}, {1, 4}}, {{2, 1}, {1, 5}}, {{2}, {4}}, {{1, 1, 1}, {1}}}) {
    SCOPED_TRACE(::testing::PrintToString(sa) + " " + ::testing::PrintToString(sb));
    EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::scaled_mm(e4({2, 3}), e4({3, 4}), f32(sa), f32(sb)), "scaled_mm",
                          "scale_a", "scale_b", "tensor-wise", "row-wise (scale_a [2, 1] and scale_b [1, 4])");
  }
}

TEST(BadScaledMm, InnerDimsDiffer) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::scaled_mm(e4({2, 3}), e4({5, 4}), one(), one()), "scaled_mm", "[2, 3]",
                        "[5, 4]", "cannot be multiplied");
}

TEST(BadScaledMm, OperandsMustBeTwoDimensional) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::scaled_mm(e4({3}), e4({3, 4}), one(), one()), "scaled_mm",
                        "'self' must be 2-d");
}

TEST(BadScaledMm, OutDtypeMustBeF32F16OrBf16) {
  for (Dtype d : {Dtype::f64, Dtype::i32, Dtype::f8e4m3fn}) {
    SCOPED_TRACE(xd::dtype_name(d));
    EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::scaled_mm(e4({2, 3}), e4({3, 4}), one(), one(), std::nullopt, d),
                          "scaled_mm", "out_dtype", xd::dtype_name(d), "f32, f16, bf16");
  }
}

TEST(BadScaledMm, BiasDtypeMustBeOutDtypeOrBf16) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::scaled_mm(e4({2, 3}), e4({3, 4}), one(), one(), f32({4}), Dtype::f16),
                        "scaled_mm", "'bias' has dtype f32", "out_dtype f16", "f16 or bf16");
  // bf16 bias with an f32 out is accepted (PyTorch's rule).
  EXPECT_NO_THROW((void)xd::scaled_mm(e4({2, 3}), e4({3, 4}), one(), one(), of({4}, Dtype::bf16), Dtype::f32));
}

TEST(BadScaledMm, BiasShapeMustBeN) {
  for (const std::vector<int64_t>& s : std::vector<std::vector<int64_t>>{{5}, {2, 4}, {1, 4}, {}}) {
    SCOPED_TRACE(::testing::PrintToString(s));
    EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::scaled_mm(e4({2, 3}), e4({3, 4}), one(), one(), of(s, Dtype::bf16)),
                          "scaled_mm", "'bias'", "1-d of size N = 4");
  }
}

// ------------------------------------------------------------------ cast(.., CastMode::saturate)

TEST(BadCast, SaturateNeedsAnFp8Target) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::cast(f32({3}), Dtype::f16, xd::CastMode::saturate), "cast",
                        "CastMode::saturate", "f8e4m3fn, f8e5m2", "f16");
}

TEST(BadCast, SaturateFromBool) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::cast(of({3}, Dtype::boolean), Dtype::f8e5m2, xd::CastMode::saturate),
                        "cast", "bool");
}

TEST(BadCast, Fp8MaxOfANonFp8Dtype) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::fp8_max(Dtype::bf16), "fp8_max", "bf16");
}

}  // namespace
