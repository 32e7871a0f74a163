// Reductions and softmax on the opencl device against the CPU reference: every strategy of the
// launcher (work-group per output with and without splits, work-item per output), dims in every
// position, transposed inputs, empty and size-1 dims, NaN and infinities, integer wraparound.
#include "test_util.hpp"

namespace {

using namespace xdo;

struct ReduceCase {
  std::string name;
  Shape shape;
  std::vector<int64_t> dims;  // empty: all
  bool transpose;             // reduce a transposed view of the input
};

std::vector<ReduceCase> reduce_cases() {
  return {{"all of 3x4x5", {3, 4, 5}, {}, false},
          {"last dim 7x1000 (dense rows)", {7, 1000}, {1}, false},
          {"first dim 2000x3 (few outputs, strided)", {2000, 3}, {0}, false},
          {"short rows 3000x5 (work-item per output)", {3000, 5}, {1}, false},
          {"dim 0 of 5x3000 (work-item per output)", {5, 3000}, {0}, false},
          {"middle dims 4x6x5x3", {4, 6, 5, 3}, {1, 2}, false},
          {"outer and inner dims 6x7x8", {6, 7, 8}, {0, 2}, false},
          {"everything, 300001 elements (split)", {300001}, {}, false},
          {"transposed 9x50", {50, 9}, {1}, true},
          {"size-1 dim", {5, 1, 4}, {1}, false},
          {"scalar", {}, {}, false}};
}

Tensor input_for(const ReduceCase& rc, Dtype d, uint32_t seed) {
  // Positive floats: the reference sums in double, these kernels in float, and a sum that
  // cancels would make the comparison measure the cancellation.
  const Tensor x = xd::is_floating(d) ? random_tensor(rc.shape, d, seed, 0.5, 4) : random_tensor(rc.shape, d, seed, -100, 100);
  return rc.transpose ? x.t() : x;
}

TEST(OpenclReduction, SumMeanAmaxAminMatchTheCpuForEveryDimLayout) {
  for (Dtype d : usable(numeric_dtypes()))
    for (const auto& rc : reduce_cases()) {
      const Tensor x = input_for(rc, d, 3);
      const Tol t = sum_tol(d);
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::sum(in[0], rc.dims); }, t)) << "sum " << name_of(d) << " " << rc.name;
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::amax(in[0], rc.dims, true); }, kExact))
          << "amax " << name_of(d) << " " << rc.name;
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::amin(in[0], rc.dims); }, kExact))
          << "amin " << name_of(d) << " " << rc.name;
      if (xd::is_floating(d)) {
        EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::mean(in[0], rc.dims, true); }, t))
            << "mean " << name_of(d) << " " << rc.name;
      }
    }
}

TEST(OpenclReduction, ArgmaxMatchesTheCpuIncludingTiesAndNan) {
  for (Dtype d : usable(numeric_dtypes())) {
    // Few distinct values: many ties, the first index must win.
    const Tensor x = random_tensor({37, 300}, d, 5, 0, 4);
    for (int64_t dim : {0, 1})
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::argmax(in[0], dim); }, kExact)) << name_of(d) << " dim " << dim;
    EXPECT_TRUE(same_as_cpu({random_tensor({100003}, d, 6, 0, 50)}, [](const auto& in) { return xd::argmax(in[0], 0, true); }, kExact))
        << name_of(d) << " long";
    EXPECT_TRUE(same_as_cpu({random_tensor({3000, 4}, d, 7, 0, 3)}, [](const auto& in) { return xd::argmax(in[0], 1); }, kExact))
        << name_of(d) << " short rows";
  }
  for (Dtype d : usable(float_dtypes())) {
    const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
    const Tensor x = make({1, nan, 3, nan, inf, 2, -inf, inf, 5, 5, 1, 0}, {3, 4}, d);
    for (int64_t dim : {0, 1}) {
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::argmax(in[0], dim); }, kExact)) << name_of(d);
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::amax(in[0], {dim}); }, kExact)) << name_of(d);
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::amin(in[0], {dim}); }, kExact)) << name_of(d);
    }
  }
}

TEST(OpenclReduction, EmptyReductionsGiveZeroSumAndNanMean) {
  for (Dtype d : usable(numeric_dtypes())) {
    const Tensor x = random_tensor({4, 0}, d, 1);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return xd::sum(in[0], {1}); }, kExact)) << name_of(d);
    if (xd::is_floating(d)) {
      EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return xd::mean(in[0], {1}); }, kExact)) << name_of(d);
    }
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return xd::sum(in[0], {0}); }, kExact)) << name_of(d);
  }
}

TEST(OpenclReduction, IntegerSumsAccumulateInI64AndWrap) {
  const Tensor big = make(std::vector<double>(5000, 127), {5000}, Dtype::i8);
  EXPECT_TRUE(same_as_cpu({big}, [](const auto& in) { return xd::sum(in[0]); }, kExact));
  const Tensor wrap = make({9.2e18, 9.2e18, 1}, {3}, Dtype::i64);
  EXPECT_TRUE(same_as_cpu({wrap}, [](const auto& in) { return xd::sum(in[0]); }, kExact));
}

TEST(OpenclSoftmax, SoftmaxAndLogSoftmaxMatchTheCpuAlongEveryDim) {
  struct Case {
    std::string name;
    Shape shape;
    int64_t dim;
  };
  const std::vector<Case> cases = {{"last dim 6x1000 (cached rows)", {6, 1000}, 1},
                                   {"odd rows 5x37", {5, 37}, 1},
                                   {"one element rows", {9, 1}, 1},
                                   {"long rows 3x9001 (uncached)", {3, 9001}, 1},
                                   {"dim 0 of 7x3000 (work-item per row)", {7, 3000}, 0},
                                   {"dim 0 of 300x5 (strided rows)", {300, 5}, 0},
                                   {"middle dim of 4x33x6", {4, 33, 6}, 1},
                                   {"scalar", {}, 0}};
  for (Dtype d : usable(float_dtypes()))
    for (const auto& sc : cases) {
      const Tensor x = random_tensor(sc.shape, d, 4, -6, 6);
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::softmax(in[0], sc.dim); }, sum_tol(d)))
          << "softmax " << name_of(d) << " " << sc.name;
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::log_softmax(in[0], sc.dim); }, sum_tol(d)))
          << "log_softmax " << name_of(d) << " " << sc.name;
      EXPECT_TRUE(same_as_cpu({x}, [&](const auto& in) { return xd::softmax(in[0].transpose(0, -1), 0); }, sum_tol(d)))
          << "softmax of a transposed view " << name_of(d) << " " << sc.name;
    }
}

TEST(OpenclSoftmax, RowsWithNanOrInfinityBecomeNanLikeTheCpu) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  for (Dtype d : usable(float_dtypes())) {
    const Tensor x = make({1, 2, 3, 4, -inf, -inf, -inf, -inf, 1, nan, 2, 3, 1, inf, 2, 3, -inf, 0, -inf, 1}, {5, 4}, d);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return xd::softmax(in[0], 1); }, sum_tol(d))) << name_of(d);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return xd::log_softmax(in[0], 1); }, sum_tol(d))) << name_of(d);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return xd::softmax(in[0], 0); }, sum_tol(d))) << name_of(d);
    // Long rows take the online (one pass for max and sum) path.
    std::vector<double> v = random_values(4 * 9001, -5, 5, d, 3);
    v[100] = inf;                                          // row 0: +inf
    v[9001 + 5000] = nan;                                  // row 1: NaN
    for (size_t i = 2 * 9001; i < 3 * 9001; ++i) v[i] = -inf;  // row 2: all -inf
    v[3 * 9001 + 9000] = -inf;                             // row 3: one -inf, at the end
    const Tensor y = make(v, {4, 9001}, d);
    EXPECT_TRUE(same_as_cpu({y}, [](const auto& in) { return xd::softmax(in[0], 1); }, sum_tol(d))) << name_of(d);
    EXPECT_TRUE(same_as_cpu({y}, [](const auto& in) { return xd::log_softmax(in[0], 1); }, sum_tol(d))) << name_of(d);
  }
}

}  // namespace
