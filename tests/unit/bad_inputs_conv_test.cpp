// Bad inputs to conv2d: each throws exactly the documented xd::Error subclass, naming conv2d, the
// argument and what was expected, where PyTorch's conv2d raises.
#include <xd/xd.hpp>

#include "support/stub_device.hpp"
#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using xd::Dtype;
using xd::test::stub_device;

xd::Tensor f32(xd::IntList sizes) { return xd::zeros(sizes, Dtype::f32, xd::cpu()); }

TEST(BadConv2d, InputRankIsAShapeError) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::conv2d(f32({2, 3}), f32({4, 3, 1, 1})), "conv2d", "4-d (batched) input",
                        "unbatched [C, H, W]", "[2, 3]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::conv2d(f32({1, 1, 3, 5, 5}), f32({4, 1, 1, 1})), "conv2d",
                        "[1, 1, 3, 5, 5]");
}

TEST(BadConv2d, WeightRankIsAShapeError) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::conv2d(f32({1, 3, 5, 5}), f32({4, 3, 3})), "conv2d", "4-d weight",
                        "[4, 3, 3]");
}

TEST(BadConv2d, ChannelsThatDoNotMatchTheWeight) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::conv2d(f32({1, 4, 5, 5}), f32({8, 3, 3, 3})), "conv2d", "groups=1",
                        "weight of size [8, 3, 3, 3]", "expected input[1, 4, 5, 5] to have 3 channels",
                        "got 4 channels");
  EXPECT_THROWS_EXACTLY(xd::ShapeError,
                        xd::conv2d(f32({1, 4, 5, 5}), f32({8, 4, 3, 3}), std::nullopt, {1}, {0}, {1}, 2), "conv2d",
                        "groups=2", "to have 8 channels");
}

TEST(BadConv2d, OutputChannelsNotDivisibleByGroups) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError,
                        xd::conv2d(f32({1, 4, 5, 5}), f32({3, 2, 3, 3}), std::nullopt, {1}, {0}, {1}, 2), "conv2d",
                        "groups=2", "divisible by 2 at dimension 0", "[3, 2, 3, 3]");
}

TEST(BadConv2d, NonPositiveGroupsStrideDilationAndNegativePadding) {
  const xd::Tensor x = f32({1, 2, 5, 5}), w = f32({2, 2, 3, 3});
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::conv2d(x, w, std::nullopt, {1}, {0}, {1}, 0), "conv2d",
                        "non-positive groups", "groups=0");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::conv2d(x, w, std::nullopt, {1, 0}), "conv2d", "non-positive stride",
                        "stride=[1, 0]");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::conv2d(x, w, std::nullopt, {1}, {0}, {0}), "conv2d",
                        "dilation should be greater than zero");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::conv2d(x, w, std::nullopt, {1}, {-1}), "conv2d",
                        "negative padding is not supported", "padding=[-1]");
}

TEST(BadConv2d, ListsOfTheWrongLength) {
  const xd::Tensor x = f32({1, 2, 5, 5}), w = f32({2, 2, 3, 3});
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::conv2d(x, w, std::nullopt, {1, 1, 1}), "conv2d",
                        "expected stride to be a single integer value or a list of 2 values", "stride=[1, 1, 1]");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::conv2d(x, w, std::nullopt, {1}, {1, 1, 1}), "conv2d", "expected padding",
                        "padding=[1, 1, 1]");
  const std::vector<int64_t> none;
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::conv2d(x, w, std::nullopt, {1}, {0}, none), "conv2d", "expected dilation",
                        "dilation=[]");
}

TEST(BadConv2d, KernelLargerThanThePaddedInput) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::conv2d(f32({1, 1, 2, 2}), f32({1, 1, 3, 3})), "conv2d",
                        "padded input size per channel: (2 x 2)", "Kernel size: (3 x 3)",
                        "can't be greater than actual input size");
  // Dilation counts: a 2x2 kernel at dilation 3 spans 4.
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::conv2d(f32({1, 1, 3, 3}), f32({1, 1, 2, 2}), std::nullopt, {1}, {0}, {3}),
                        "conv2d", "Kernel size: (4 x 4)");
}

TEST(BadConv2d, BiasOfTheWrongShape) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::conv2d(f32({1, 2, 5, 5}), f32({4, 2, 3, 3}), f32({3})), "conv2d",
                        "expected bias to be 1-dimensional with 4 elements", "bias of size [3]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::conv2d(f32({1, 2, 5, 5}), f32({4, 2, 3, 3}), f32({1, 4})), "conv2d",
                        "bias of size [1, 4]");
}

TEST(BadConv2d, SamePaddingWithStride) {
  EXPECT_THROWS_EXACTLY(xd::ValueError,
                        xd::conv2d(f32({1, 2, 5, 5}), f32({4, 2, 3, 3}), std::nullopt, {2}, xd::ConvPadding::same),
                        "conv2d", "padding='same' is not supported for strided convolutions");
}

TEST(BadConv2d, IntegerAndMixedDtypes) {
  EXPECT_THROWS_EXACTLY(
      xd::DtypeError,
      xd::conv2d(xd::zeros({1, 2, 5, 5}, Dtype::i32, xd::cpu()), xd::zeros({4, 2, 3, 3}, Dtype::i32, xd::cpu())),
      "conv2d", "'input' has dtype i32");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::conv2d(f32({1, 2, 5, 5}), xd::zeros({4, 2, 3, 3}, Dtype::f64, xd::cpu())),
                        "conv2d", "'weight' is f64", "does not promote");
  EXPECT_THROWS_EXACTLY(xd::DtypeError,
                        xd::conv2d(f32({1, 2, 5, 5}), f32({4, 2, 3, 3}), xd::zeros({4}, Dtype::f16, xd::cpu())),
                        "conv2d", "'bias' is f16");
}

TEST(BadConv2d, UndefinedAndForeignDeviceOperands) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::conv2d(xd::Tensor(), f32({4, 2, 3, 3})), "conv2d", "input");
  const xd::Device stub = stub_device();
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::conv2d(f32({1, 2, 5, 5}), f32({4, 2, 3, 3}).to(stub)), "conv2d",
                        "'weight' is on stubdev:0");
}

}  // namespace
