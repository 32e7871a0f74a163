// Bad inputs to cumsum and topk: each throws exactly the documented xd::Error subclass, naming the
// op, the argument and what was expected.
#include <xd/xd.hpp>

#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

namespace {

using xd::Dtype;

xd::Tensor of(xd::IntList sizes, Dtype d) { return xd::zeros(sizes, d, xd::cpu()); }
xd::Tensor f32(xd::IntList sizes) { return of(sizes, Dtype::f32); }

// ------------------------------------------------------------------ cumsum

TEST(BadCumsum, DimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::cumsum(f32({2, 3}), 2), "cumsum", "dim 2", "[-2, 1]");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::cumsum(f32({2, 3}), -3), "cumsum", "dim -3", "[-2, 1]");
  // A 0-d tensor takes dim 0 and -1 only, as in PyTorch.
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::cumsum(f32({}), 1), "cumsum", "dim 1", "[-1, 0]");
}

TEST(BadCumsum, DtypeArgumentMustBeNumeric) {
  // torch: "cumsum_out_cpu" not implemented for 'Bool'.
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::cumsum(f32({3}), 0, Dtype::boolean), "cumsum",
                        "argument 'dtype' has dtype bool", "f64, f32");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::cumsum(f32({3}), 0, Dtype::f8e4m3fn), "cumsum",
                        "argument 'dtype' has dtype f8e4m3fn");
}

TEST(BadCumsum, Fp8InputIsADtypeError) {
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::cumsum(of({3}, Dtype::f8e5m2), 0), "cumsum",
                        "argument 'self' has dtype f8e5m2");
}

// ------------------------------------------------------------------ topk

TEST(BadTopk, KOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::topk(f32({2, 3}), 4), "topk", "selected index k out of range", "k = 4",
                        "dim 1 of 'self' [2, 3] has size 3", "[0, 3]");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::topk(f32({2, 3}), -1, 0), "topk", "selected index k out of range", "k = -1",
                        "dim 0");
  // A 0-d tensor counts as one element: k 0 or 1.
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::topk(f32({}), 2), "topk", "selected index k out of range", "size 1");
}

TEST(BadTopk, DimOutOfRange) {
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::topk(f32({2, 3}), 1, 2), "topk", "dim 2", "[-2, 1]");
}

TEST(BadTopk, BoolAndFp8InputsAreDtypeErrors) {
  // torch: "topk_cpu" not implemented for 'Bool'.
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::topk(of({3}, Dtype::boolean), 1), "topk", "argument 'self' has dtype bool",
                        "i64");
  EXPECT_THROWS_EXACTLY(xd::DtypeError, xd::topk(of({3}, Dtype::f8e4m3fn), 1), "topk",
                        "argument 'self' has dtype f8e4m3fn");
}

TEST(BadTopk, UndefinedTensor) { EXPECT_THROWS_EXACTLY(xd::ValueError, xd::topk(xd::Tensor(), 1), "topk", "self"); }

}  // namespace
