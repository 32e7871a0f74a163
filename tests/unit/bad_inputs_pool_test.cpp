// Bad inputs to max_pool2d, max_pool2d_with_indices and avg_pool2d, each where PyTorch raises:
// the documented xd::Error subclass with a message naming the op and the argument.
#include <xd/xd.hpp>

#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

namespace {

using xd::Dtype;

xd::Tensor of(xd::IntList sizes, Dtype d) { return xd::zeros(sizes, d, xd::cpu()); }
xd::Tensor f32(xd::IntList sizes) { return of(sizes, Dtype::f32); }

TEST(BadPool, ListsOfAnotherLength) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::max_pool2d(f32({1, 4, 4}), {2, 2, 2}), "max_pool2d",
                        "kernel_size must be a single int or a list of two ints [H, W], got 3 ints");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::avg_pool2d(f32({1, 4, 4}), {}), "avg_pool2d", "kernel_size", "got 0 ints");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::avg_pool2d(f32({1, 4, 4}), {2}, {1, 1, 1}), "avg_pool2d",
                        "stride must be omitted (empty), a single int or a list of two ints", "got 3 ints");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::max_pool2d(f32({1, 4, 4}), {2}, {}, {}), "max_pool2d", "padding",
                        "got 0 ints");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::max_pool2d_with_indices(f32({1, 4, 4}), {2}, {}, {0}, {1, 1, 1}),
                        "max_pool2d_with_indices", "dilation", "got 3 ints");
}

TEST(BadPool, NonPositiveKernelStrideDilation) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::max_pool2d(f32({1, 4, 4}), {0, 2}), "max_pool2d",
                        "kernel_size must be positive, got [0, 2]");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::avg_pool2d(f32({1, 4, 4}), {2}, {0}), "avg_pool2d",
                        "stride must be positive, got [0, 0]");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::avg_pool2d(f32({1, 4, 4}), {2}, {1, -1}), "avg_pool2d",
                        "stride must be positive, got [1, -1]");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::max_pool2d(f32({1, 4, 4}), {3}, {}, {0}, {0}), "max_pool2d",
                        "dilation must be positive, got [0, 0]");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::max_pool2d(f32({1, 4, 4}), {int64_t{1} << 31}), "max_pool2d",
                        "kernel_size [2147483648, 2147483648] is out of range (each must fit in 32 bits)");
}

TEST(BadPool, PaddingNegativeOrAboveHalfTheEffectiveKernel) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::max_pool2d(f32({1, 4, 4}), {2}, {}, {-1}), "max_pool2d",
                        "padding must be non-negative, got [-1, -1]");
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::avg_pool2d(f32({1, 4, 4}), {2}, {}, {2}), "avg_pool2d",
                        "padding [2, 2] must be at most half the effective kernel size [2, 2]");
  // Dilation widens the kernel: kernel 3, dilation 2 spans 5, so padding 2 is allowed, 3 is not.
  EXPECT_NO_THROW(xd::max_pool2d(f32({1, 4, 4}), {3}, {1}, {2}, {2}));
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::max_pool2d(f32({1, 4, 4}), {3}, {1}, {0, 3}, {2}), "max_pool2d",
                        "padding [0, 3] must be at most half the effective kernel size [5, 5]");
}

TEST(BadPool, DivisorOverrideZero) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, xd::avg_pool2d(f32({1, 4, 4}), {2}, {}, {0}, false, true, 0), "avg_pool2d",
                        "divisor_override must be non-zero");
}

TEST(BadPool, RankAndEmptyDims) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::max_pool2d(f32({4, 4}), {2}), "max_pool2d",
                        "'self' must be 3-d [C, H, W] or 4-d [N, C, H, W], got 2-d [4, 4]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::avg_pool2d(f32({1, 1, 1, 4, 4}), {2}), "avg_pool2d",
                        "got 5-d [1, 1, 1, 4, 4]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::max_pool2d(f32({1, 0, 4, 4}), {1}), "max_pool2d",
                        "'self' [1, 0, 4, 4] has a size-0 C, H or W dim; only the batch dim N may be 0");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::avg_pool2d(f32({0, 4, 4}), {1}), "avg_pool2d", "'self' [0, 4, 4]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::avg_pool2d(f32({2, 3, 4, 0}), {1}), "avg_pool2d", "size-0 C, H or W");
}

TEST(BadPool, OutputSizeTooSmall) {
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::max_pool2d(f32({1, 1, 4, 4}), {5}), "max_pool2d",
                        "Output size is too small: input (C x H x W) 1x4x4 gives 1x0x0 with kernel_size [5, 5]");
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::avg_pool2d(f32({2, 3, 2}), {1, 3}, {1}, {0}, true, true, 3), "avg_pool2d",
                        "Output size is too small: input (C x H x W) 2x3x2 gives 2x3x0");
  // Dilation: kernel 3 at dilation 2 spans 5 > 4.
  EXPECT_THROWS_EXACTLY(xd::ShapeError, xd::max_pool2d(f32({1, 4, 4}), {3}, {}, {0}, {2}), "max_pool2d",
                        "Output size is too small", "dilation [2, 2]");
}

TEST(BadPool, IntegerAndBoolDtypes) {
  for (Dtype d : {Dtype::i64, Dtype::i32, Dtype::u8, Dtype::boolean}) {
    EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::max_pool2d(of({1, 4, 4}, d), {2}), "max_pool2d",
                          std::string("argument 'self' has dtype ") + xd::dtype_name(d));
    EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::avg_pool2d(of({1, 4, 4}, d), {2}), "avg_pool2d", "f64, f32, f16, bf16");
  }
}

}  // namespace
