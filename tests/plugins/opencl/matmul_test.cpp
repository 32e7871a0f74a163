// mm, addmm, bmm and baddbmm on the opencl device against the CPU reference: every kernel (the
// register-tiled ones for large shapes — general, and dense with aligned operands — and the tiled
// one for small and skinny shapes), transposed
// and strided operands, edges that do not fill a tile, K = 0, beta = 0 with NaN in the input,
// and broadcast inputs.
#include "test_util.hpp"

namespace {

using namespace xdo;

// Products of values in [-1, 1) summed over K: an f32 result is off by a few units of K * eps.
Tol mm_tol(Dtype d) {
  switch (d) {
    case Dtype::f64: return {1e-12, 1e-12};
    case Dtype::f32: return {1e-5, 1e-5};
    case Dtype::f16: return {2e-3, 2e-3};
    default: return {1.6e-2, 1.6e-2};
  }
}

struct MmCase {
  std::string name;
  int64_t m, k, n;
  bool ta, tb;  // operands given as transposed views
};

std::vector<MmCase> mm_cases() {
  return {{"tiny 1x1x1", 1, 1, 1, false, false},
          {"small odd 5x3x7", 5, 3, 7, false, false},
          {"skinny 200x9x3", 200, 9, 3, false, false},
          {"big tiles 130x70x150", 130, 70, 150, false, false},
          {"big, a transposed", 129, 33, 140, true, false},
          {"big, b transposed", 140, 40, 129, false, true},
          {"big, both transposed", 136, 17, 131, true, true},
          {"small, both transposed", 20, 30, 10, true, true},
          {"K = 0", 6, 0, 5, false, false},
          // dense operands (n, k multiples of 4): a tile past m and n, k past a step, k under a step
          {"big dense 130x36x132", 130, 36, 132, false, false},
          {"big dense, k < step 256x12x128", 256, 12, 128, false, false}};
}

Tensor operand(int64_t rows, int64_t cols, bool transposed, Dtype d, uint32_t seed) {
  return transposed ? random_tensor({cols, rows}, d, seed, -1, 1).t() : random_tensor({rows, cols}, d, seed, -1, 1);
}

TEST(OpenclMatmul, MmAndAddmmMatchTheCpu) {
  for (Dtype d : usable(float_dtypes()))
    for (const auto& mc : mm_cases()) {
      const Tensor a = operand(mc.m, mc.k, mc.ta, d, 1);
      const Tensor b = operand(mc.k, mc.n, mc.tb, d, 2);
      const Tensor bias = random_tensor({mc.n}, d, 3, -1, 1);
      EXPECT_TRUE(same_as_cpu({a, b}, [](const auto& in) { return xd::mm(in[0], in[1]); }, mm_tol(d)))
          << "mm " << name_of(d) << " " << mc.name;
      EXPECT_TRUE(same_as_cpu({bias, a, b}, [](const auto& in) { return xd::addmm(in[0], in[1], in[2], 0.5, 2.0); },
                              mm_tol(d)))
          << "addmm " << name_of(d) << " " << mc.name;
    }
}

TEST(OpenclMatmul, BetaZeroIgnoresNanInTheInput) {
  for (Dtype d : usable(float_dtypes())) {
    const Tensor input = xd::full({4, 150}, std::nan(""), d, cpu());
    const Tensor a = operand(4, 8, false, d, 4), b = operand(8, 150, false, d, 5);
    EXPECT_TRUE(same_as_cpu({input, a, b}, [](const auto& in) { return xd::addmm(in[0], in[1], in[2], 0.0, 1.5); },
                            mm_tol(d)))
        << name_of(d);
    const Tensor input2 = xd::full({140, 150}, std::nan(""), d, cpu());
    const Tensor a2 = operand(140, 8, false, d, 4);
    EXPECT_TRUE(same_as_cpu({input2, a2, b}, [](const auto& in) { return xd::addmm(in[0], in[1], in[2], 0.0, 1.0); },
                            mm_tol(d)))
        << name_of(d) << " big";
  }
}

TEST(OpenclMatmul, BmmAndBaddbmmMatchTheCpu) {
  for (Dtype d : usable(float_dtypes())) {
    const Tensor a = random_tensor({3, 5, 7}, d, 6, -1, 1);
    const Tensor b = random_tensor({3, 9, 7}, d, 7, -1, 1).transpose(1, 2);
    const Tensor input = random_tensor({5, 1}, d, 8, -1, 1);
    EXPECT_TRUE(same_as_cpu({a, b}, [](const auto& in) { return xd::bmm(in[0], in[1]); }, mm_tol(d))) << name_of(d);
    EXPECT_TRUE(same_as_cpu({input, a, b}, [](const auto& in) { return xd::baddbmm(in[0], in[1], in[2], 1.0, -1.0); },
                            mm_tol(d)))
        << name_of(d);
    const Tensor A = random_tensor({2, 130, 40}, d, 9, -1, 1);
    const Tensor B = random_tensor({2, 40, 131}, d, 10, -1, 1);
    EXPECT_TRUE(same_as_cpu({A, B}, [](const auto& in) { return xd::bmm(in[0], in[1]); }, mm_tol(d))) << name_of(d) << " big";
    EXPECT_TRUE(same_as_cpu({A, B}, [](const auto& in) { return xd::bmm(in[0].slice(0, 1, 2), in[1].slice(0, 1, 2)); }, mm_tol(d)))
        << name_of(d) << " offset batch";
  }
}

TEST(OpenclMatmul, EmptyShapesProduceEmptyOrScaledResults) {
  for (Dtype d : usable({Dtype::f32, Dtype::f16})) {
    EXPECT_TRUE(same_as_cpu({operand(0, 4, false, d, 1), operand(4, 3, false, d, 2)},
                            [](const auto& in) { return xd::mm(in[0], in[1]); }, kExact));
    EXPECT_TRUE(same_as_cpu({random_tensor({3, 5}, d, 3), operand(3, 0, false, d, 4), operand(0, 5, false, d, 5)},
                            [](const auto& in) { return xd::addmm(in[0], in[1], in[2], 2.0, 1.0); }, kExact));
  }
}

}  // namespace
