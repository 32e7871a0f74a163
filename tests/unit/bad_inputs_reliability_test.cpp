// Bad inputs found by an adversarial pass (issue "Reliability"): dtype values outside the enum,
// element counts that overflow int64, overlapping copies, scalars a dtype cannot hold, a slice
// step near INT64_MAX and a generator offset near 2^64. Each must be a typed error with a message
// naming the op and the value, or (where PyTorch defines a result) that result.
#include <xd/xd.hpp>

#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

using xd::Dtype;

const Dtype kBad = static_cast<Dtype>(42);
const Dtype kNegative = static_cast<Dtype>(-1);
xd::Device cpu() { return xd::cpu(); }
xd::Tensor f32(xd::IntList sizes) { return xd::zeros(sizes, Dtype::f32, cpu()); }

// ------------------------------------------------------------------ dtype values outside the enum

TEST(BadDtypeValue, EmptyRejectsAValuePastTheEnum) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::empty({2}, kBad, cpu()), "empty", "dtype value 42", "not an xd::Dtype",
                        "f8e5m2");
}

TEST(BadDtypeValue, EmptyRejectsANegativeValue) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::empty({2}, kNegative, cpu()), "empty", "dtype value -1");
}

TEST(BadDtypeValue, FullZerosAndOnesReject) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::full({2}, 1.0, kBad, cpu()), "full", "dtype value 42");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::zeros({2}, kBad, cpu()), "dtype value 42");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::ones({2}, kBad, cpu()), "dtype value 42");
}

TEST(BadDtypeValue, ArangeRandAndRandnReject) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::arange(0.0, 4.0, 1.0, kBad, cpu()), "arange", "dtype value 42");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::rand({2}, kBad, cpu()), "rand", "dtype value 42");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::randn({2}, kBad, cpu()), "randn", "dtype value 42");
}

TEST(BadDtypeValue, ToAndCastReject) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, f32({2}).to(kBad), "to", "dtype value 42");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::cast(f32({2}), kBad), "cast", "dtype value 42");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::cast(f32({2}), kBad, xd::CastMode::saturate), "cast", "dtype value 42");
}

TEST(BadDtypeValue, HostTransfersReject) {
  std::vector<float> host(2);
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::from_host(host.data(), kBad, {2}, cpu()), "from_host", "dtype value 42");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::tensor(std::vector<uint8_t>{1, 2}, {2}, kBad, cpu()), "tensor",
                        "dtype value 42");
}

TEST(BadDtypeValue, ScaledMmOutDtypeAndFp8MaxReject) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, (void)xd::fp8_max(kBad), "fp8_max", "dtype value 42");
  const auto a = xd::zeros({2, 16}, Dtype::f8e4m3fn, cpu());
  const auto b = xd::zeros({16, 16}, Dtype::f8e4m3fn, cpu());
  const auto s = xd::ones({}, Dtype::f32, cpu());
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::scaled_mm(a, b, s, s, std::nullopt, kBad), "scaled_mm", "dtype value 42");
}

TEST(BadDtypeValue, SparseIndexDtypeRejects) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::to_sparse_csr(f32({2, 2}), kBad), "to_sparse_csr");
}

// ------------------------------------------------------------------ element counts beyond int64

TEST(ElementCountOverflow, ExpandWhoseSizeProductOverflowsIsRejected) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, f32({1, 4}).expand({(int64_t{1} << 62) + 1, 4}), "expand",
                        "[4611686018427387905, 4]", "more elements than int64 can count");
}

TEST(ElementCountOverflow, ExpandOfNewLeadingDimsOverflowingIsRejected) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, f32({4}).expand({int64_t{1} << 40, int64_t{1} << 30, 4}), "expand",
                        "more elements than int64 can count");
}

TEST(ElementCountOverflow, ExpandWithAZeroSizeIsEmptyNotAnOverflow) {
  const auto v = f32({1, 1, 4}).expand({0, int64_t{1} << 62, 4});
  EXPECT_EQ(v.numel(), 0);
}

TEST(ElementCountOverflow, LargeButCountableExpandKeepsItsCount) {
  const auto v = f32({1, 4}).expand({int64_t{1} << 60, 4});
  EXPECT_EQ(v.numel(), int64_t{1} << 62);
}

TEST(ElementCountOverflow, ViewWhoseSizeProductWrapsToTheTensorsCountIsRejected) {
  // 2^32 * 2^32 wraps to 0 in int64 arithmetic: an empty tensor must not accept that shape.
  const auto e = f32({0});
  EXPECT_THROWS_EXACTLY(xd::ShapeError, e.view({int64_t{1} << 32, int64_t{1} << 32}), "view",
                        "more elements than int64 can count");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, e.reshape({int64_t{1} << 32, int64_t{1} << 32}), "reshape",
                        "more elements than int64 can count");
}

TEST(ElementCountOverflow, CreationWhoseSizeProductOverflowsIsRejected) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::empty({int64_t{1} << 62, 8}, Dtype::f32, cpu()), "empty",
                        "more elements than int64 can count");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::zeros({int64_t{1} << 62, 8}, Dtype::f32, cpu()),
                        "more elements than int64 can count");
}

TEST(ElementCountOverflow, BroadcastOfTwoExpandedViewsOverflowingIsRejected) {
  const auto a = f32({1, 1}).expand({int64_t{1} << 40, 1});
  const auto b = f32({1, 1}).expand({1, int64_t{1} << 40});
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::add(a, b), "more elements than int64 can count");
}

// ------------------------------------------------------------------ slice with a huge step

TEST(SliceStep, StepNearInt64MaxGivesTheFirstElement) {
  const auto x = xd::arange(0.0, 10.0, 1.0, Dtype::f32, cpu());
  const auto y = x.slice(0, 2, 5, std::numeric_limits<int64_t>::max());
  ASSERT_EQ(y.numel(), 1);
  EXPECT_EQ(y.item<float>(), 2.0f);
}

TEST(SliceStep, StepAndBoundsNearInt64MaxStayInRange) {
  const auto x = xd::arange(0.0, 10.0, 1.0, Dtype::f32, cpu());
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(x.slice(0, 0, big, big).numel(), 1);
  EXPECT_EQ(x.slice(0, 0, big, 3).numel(), 4);  // 0, 3, 6, 9
  EXPECT_EQ(x.slice(0, std::numeric_limits<int64_t>::min(), big, 2).numel(), 5);
  EXPECT_EQ(x.slice(0, 9, 10, big - 1).to_vector<float>(), std::vector<float>{9.0f});
}

// ------------------------------------------------------------------ generator offset near 2^64

TEST(GeneratorOffset, ReservingPast2To64IsAnErrorNotAWrap) {
  xd::Generator g(7);
  g.set_offset(std::numeric_limits<uint64_t>::max() - 1);
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::rand({100}, Dtype::f32, cpu(), &g), "generator's offset",
                        "18446744073709551614", "passes 2^64", "would repeat");
  EXPECT_EQ(g.offset(), std::numeric_limits<uint64_t>::max() - 1);  // unchanged: nothing was drawn
}

TEST(GeneratorOffset, TheLastBlocksBefore2To64AreStillUsable) {
  xd::Generator g(7);
  g.set_offset(std::numeric_limits<uint64_t>::max() - 10);
  const auto x = xd::rand({4}, Dtype::f32, cpu(), &g);  // one Philox block
  EXPECT_EQ(x.numel(), 4);
  EXPECT_EQ(g.offset(), std::numeric_limits<uint64_t>::max() - 9);
}

// ------------------------------------------------------------------ overlapping copy_

TEST(OverlappingCopy, PartialOverlapOfTwoSlicesIsAnError) {
  auto x = xd::arange(0.0, 8.0, 1.0, Dtype::f32, cpu());
  EXPECT_THROWS_EXACTLY(xd::LayoutError, x.slice(0, 1, 8).copy_(x.slice(0, 0, 7)), "copy_", "partially overlap",
                        "clone()");
  // Nothing was written.
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(OverlappingCopy, CopyFromOwnTransposeIsAnError) {
  auto y = xd::arange(0.0, 9.0, 1.0, Dtype::f32, cpu()).reshape({3, 3});
  EXPECT_THROWS_EXACTLY(xd::LayoutError, y.copy_(y.t()), "copy_", "[3, 3]", "strides [1, 3]", "partially overlap");
}

TEST(OverlappingCopy, CopyOntoItselfIsANoOp) {
  auto x = xd::arange(0.0, 6.0, 1.0, Dtype::f32, cpu());
  x.copy_(x);
  x.slice(0, 1, 4).copy_(x.slice(0, 1, 4));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(OverlappingCopy, InterleavedStridedViewsCopyThroughATemporary) {
  // Even and odd elements: the byte ranges meet, the elements do not; and a reversed-order
  // overlap of strided views (x[0:6:2] <- x[2:8:2]) must read before it writes.
  auto x = xd::arange(0.0, 8.0, 1.0, Dtype::f32, cpu());
  x.slice(0, 0, 8, 2).copy_(x.slice(0, 1, 8, 2));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 1, 3, 3, 5, 5, 7, 7}));
  auto z = xd::arange(0.0, 8.0, 1.0, Dtype::f32, cpu());
  z.slice(0, 2, 8, 2).copy_(z.slice(0, 0, 6, 2));
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{0, 1, 0, 3, 2, 5, 4, 7}));
}

TEST(OverlappingCopy, StridedOverlapWithACastCopiesThroughATemporary) {
  auto m = xd::arange(0.0, 16.0, 1.0, Dtype::f32, cpu()).reshape({4, 4});
  // Column 0 <- row 0 (the (0,0) element is in both).
  m.select(1, 0).copy_(m.select(0, 0));
  EXPECT_EQ(m.select(1, 0).to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
}

TEST(OverlappingCopy, DisjointSlicesOfOneTensorCopyDirectly) {
  auto x = xd::arange(0.0, 8.0, 1.0, Dtype::f32, cpu());
  x.slice(0, 4, 8).copy_(x.slice(0, 0, 4));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3}));
}

// ------------------------------------------------------------------ scalars a dtype cannot hold

TEST(ScalarRange, FullRejectsValuesOutsideAnIntegerDtype) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, 300, Dtype::i8, cpu()), "full", "value 300", "i8",
                        "without overflow", "-128 .. 127");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, -129, Dtype::i8, cpu()), "value -129", "i8");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, 1e10, Dtype::i32, cpu()), "value 10000000000", "i32");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, 256, Dtype::u8, cpu()), "value 256", "u8");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, -256, Dtype::u8, cpu()), "value -256", "u8");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, 9.3e18, Dtype::i64, cpu()), "i64");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, 9223372036854775808.0, Dtype::i64, cpu()), "i64");
}

TEST(ScalarRange, FullRejectsNanAndInfinityForIntegers) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, std::nan(""), Dtype::i32, cpu()), "value nan", "i32",
                        "has no NaN");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, INFINITY, Dtype::i64, cpu()), "value inf", "has no infinity");
}

TEST(ScalarRange, FullAcceptsTheEdgesOfEachIntegerDtype) {
  EXPECT_EQ(xd::full({1}, 127, Dtype::i8, cpu()).item<int8_t>(), 127);
  EXPECT_EQ(xd::full({1}, -128, Dtype::i8, cpu()).item<int8_t>(), -128);
  EXPECT_EQ(xd::full({1}, 255, Dtype::u8, cpu()).item<uint8_t>(), 255);
  EXPECT_EQ(xd::full({1}, 2147483647, Dtype::i32, cpu()).item<int32_t>(), 2147483647);
  EXPECT_EQ(xd::full({1}, -9223372036854775808.0, Dtype::i64, cpu()).item<int64_t>(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(xd::full({1}, 2.9, Dtype::i32, cpu()).item<int32_t>(), 2);  // truncates, as PyTorch
}

TEST(ScalarRange, NegativeIntegersWrapIntoU8AsPyTorchDoes) {
  EXPECT_EQ(xd::full({1}, -1, Dtype::u8, cpu()).item<uint8_t>(), 255);
  EXPECT_EQ(xd::full({1}, -255, Dtype::u8, cpu()).item<uint8_t>(), 1);
}

TEST(ScalarRange, FullRejectsFiniteValuesBeyondAFloatingDtype) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, 1e300, Dtype::f32, cpu()), "full", "f32", "without overflow");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, 70000, Dtype::f16, cpu()), "value 70000", "f16");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, 1e39, Dtype::bf16, cpu()), "bf16");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, 449, Dtype::f8e4m3fn, cpu()), "f8e4m3fn");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::full({1}, INFINITY, Dtype::f8e4m3fn, cpu()), "f8e4m3fn", "has no infinity");
}

TEST(ScalarRange, FullKeepsInfinityNanAndTheLargestFiniteValue) {
  EXPECT_EQ(xd::full({1}, INFINITY, Dtype::f32, cpu()).item<float>(), INFINITY);
  EXPECT_TRUE(std::isnan(xd::full({1}, std::nan(""), Dtype::f16, cpu()).to(Dtype::f32).item<float>()));
  EXPECT_EQ(xd::full({1}, 65504, Dtype::f16, cpu()).to(Dtype::f32).item<float>(), 65504.0f);
  EXPECT_EQ(xd::full({1}, 1e300, Dtype::f64, cpu()).item<double>(), 1e300);
  EXPECT_EQ(xd::full({1}, 5, Dtype::boolean, cpu()).item<bool>(), true);
}

TEST(ScalarRange, AlphaMustFitTheTensorsDtype) {
  const auto i64 = xd::ones({2}, Dtype::i64, cpu());
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::add(i64, i64, 1e20), "add", "alpha", "i64", "without overflow");
  const auto i8 = xd::ones({2}, Dtype::i8, cpu());
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::sub(i8, i8, 200), "sub", "alpha 200", "i8");
  const auto f = f32({2});
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::add(f, f, 1e39), "add", "alpha", "f32");
  EXPECT_EQ(xd::add(i8, i8, 127).to_vector<int8_t>(), (std::vector<int8_t>{-128, -128}));  // wraps like PyTorch
}

TEST(ScalarRange, ArangeRejectsBoundsBeyondTheDtype) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::arange(0.0, 1e19, 1e18, Dtype::i64, cpu()), "arange", "end", "i64");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::arange(-1e19, 0.0, 1e18, Dtype::i64, cpu()), "arange", "start", "i64");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::arange(0.0, 300.0, 1.0, Dtype::i8, cpu()), "arange", "last value 299",
                        "i8");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::arange(0.0, 200.0, 1e19, Dtype::i64, cpu()), "arange", "step");
  EXPECT_EQ(xd::arange(0.0, 128.0, 1.0, Dtype::i8, cpu()).numel(), 128);  // 0 .. 127 fit
}

}  // namespace

// ------------------------------------------------------------------ fuzzer findings (tests/fuzz/regressions/ops)

namespace {

TEST(FuzzFinding, RmsNormRowsOfNoElementsGiveNanRstd) {
  const auto x = xd::zeros({3, 0}, Dtype::f32, cpu());
  auto [y, rstd] = xd::rms_norm(x, {0});
  EXPECT_EQ(y.numel(), 0);
  ASSERT_EQ(rstd.sizes().size(), 2u);
  for (float v : rstd.to_vector<float>()) EXPECT_TRUE(std::isnan(v));
}

TEST(FuzzFinding, BoolAddWithAHugeAlphaIsADtypeErrorBeforeAnyConversion) {
  const auto b = xd::ones({2}, Dtype::boolean, cpu());
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::sub(b, b, 9.3e18), "sub", "bool");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::add(b, b, -1e300), "add", "bool");
}

TEST(FuzzFinding, RmsNormAddsASubnormalEpsInF32) {
  // A zero row: rstd = 1/sqrt(0 + eps) with eps rounded to f32 (1e-45 -> 2^-149), as PyTorch.
  const auto x = xd::zeros({1, 4}, Dtype::f16, cpu());
  auto [y, rstd] = xd::rms_norm(x, {4}, std::nullopt, 1e-45);
  EXPECT_FLOAT_EQ(rstd.item<float>(), static_cast<float>(1.0 / std::sqrt(1.401298464324817e-45)));
}

}  // namespace
