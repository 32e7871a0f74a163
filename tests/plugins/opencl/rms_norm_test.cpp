// rms_norm and rms_norm_backward on the opencl device against the CPU reference: dense rows
// (register-cached), long rows, strided and transposed inputs, strided weights, several
// normalized dims, no weight, empty and single-element rows, and every
// output mask of the backward pass.
#include "test_util.hpp"

#include <optional>

namespace {

using namespace xdo;

struct NormCase {
  std::string name;
  Shape shape;
  Shape normalized;
  bool weight;
  bool transpose;  // normalise a transposed view (rows strided)
};

std::vector<NormCase> norm_cases() {
  return {{"dense rows 6x256", {6, 256}, {256}, true, false},
          {"odd rows 5x37", {5, 37}, {37}, true, false},
          {"no weight 4x100", {4, 100}, {100}, false, false},
          {"long rows 3x3001", {3, 3001}, {3001}, true, false},
          {"two normalized dims 3x4x20", {3, 4, 20}, {4, 20}, true, false},
          {"transposed 40x7 (strided rows)", {40, 7}, {40}, true, true},
          {"single element rows 9x1", {9, 1}, {1}, true, false},
          {"no rows 0x8", {0, 8}, {8}, true, false},
          {"whole tensor 50", {50}, {50}, true, false}};
}

TEST(OpenclRmsNorm, ForwardMatchesTheCpu) {
  for (Dtype d : usable(float_dtypes()))
    for (const auto& nc : norm_cases()) {
      const Tensor x0 = random_tensor(nc.shape, d, 1);
      const Tensor x = nc.transpose ? x0.t() : x0;
      const Tensor w = random_tensor(nc.normalized, d, 2, 0.5, 2);
      auto op = [&](const std::vector<Tensor>& in, int which) {
        const std::optional<Tensor> weight = nc.weight ? std::optional<Tensor>(in[1]) : std::nullopt;
        auto [y, rstd] = xd::rms_norm(in[0], nc.normalized, weight, 1e-5);
        return which == 0 ? y : rstd;
      };
      EXPECT_TRUE(same_as_cpu({x, w}, [&](const auto& in) { return op(in, 0); }, sum_tol(d))) << "y " << name_of(d) << " " << nc.name;
      EXPECT_TRUE(same_as_cpu({x, w}, [&](const auto& in) { return op(in, 1); }, sum_tol(d == Dtype::f64 ? d : Dtype::f32)))
          << "rstd " << name_of(d) << " " << nc.name;
    }
}

// (The core requires the weight in x's dtype, so only the kernels' same-dtype programs are
// reachable through the API.)
TEST(OpenclRmsNorm, StridedWeightsMatchTheCpu) {
  for (Dtype d : usable(float_dtypes()))
    for (Dtype wd : {d}) {
      const Tensor x = random_tensor({7, 96}, d, 3);
      const Tensor w = random_tensor({2, 96}, wd, 4, 0.5, 2).select(0, 1);
      const Tensor ws = random_tensor({192}, wd, 5, 0.5, 2).slice(0, 0, 192, 2);
      for (const Tensor& weight : {w, ws}) {
        EXPECT_TRUE(same_as_cpu({x, weight}, [](const auto& in) { return std::get<0>(xd::rms_norm(in[0], {96}, in[1])); },
                                sum_tol(d)))
            << name_of(d) << " weight " << name_of(wd);
        const Tensor g = random_tensor({7, 96}, d, 6);
        EXPECT_TRUE(same_as_cpu({g, x, weight}, [](const auto& in) {
          auto [y, rstd] = xd::rms_norm(in[1], {96}, in[2]);
          return std::get<1>(xd::rms_norm_backward(in[0], in[1], {96}, rstd, in[2]));
        }, sum_tol(wd == Dtype::f64 ? Dtype::f32 : wd)))
            << "dw " << name_of(d) << " weight " << name_of(wd);
      }
    }
}

TEST(OpenclRmsNorm, BackwardMatchesTheCpuForEveryMask) {
  for (Dtype d : usable(float_dtypes()))
    for (const auto& nc : norm_cases()) {
      const Tensor x0 = random_tensor(nc.shape, d, 7);
      const Tensor x = nc.transpose ? x0.t() : x0;
      const Tensor g = random_tensor(x.sizes().size() ? Shape(x.sizes().begin(), x.sizes().end()) : Shape{}, d, 8);
      const Tensor w = random_tensor(nc.normalized, d, 9, 0.5, 2);
      for (auto mask : std::vector<std::array<bool, 2>>{{true, true}, {true, false}, {false, true}}) {
        if (!nc.weight && mask[1]) continue;
        for (int which : {0, 1}) {
          if (!mask[static_cast<size_t>(which)]) continue;
          auto op = [&](const std::vector<Tensor>& in) {
            const std::optional<Tensor> weight = nc.weight ? std::optional<Tensor>(in[2]) : std::nullopt;
            auto [y, rstd] = xd::rms_norm(in[1], nc.normalized, weight);
            auto [dx, dw] = xd::rms_norm_backward(in[0], in[1], nc.normalized, rstd, weight, mask);
            return which == 0 ? dx : dw;
          };
          // dw sums over rows: judged with the summation tolerance scaled by the row count.
          Tol t = sum_tol(d);
          if (which == 1) t.atol *= 4;
          EXPECT_TRUE(same_as_cpu({g, x, w}, op, t))
              << (which == 0 ? "dx " : "dw ") << name_of(d) << " " << nc.name << " mask " << mask[0] << mask[1];
        }
      }
    }
}

TEST(OpenclRmsNorm, ManyRowsSpreadOverWorkGroupsGiveTheSameDw) {
  const Tensor x = random_tensor({1000, 64}, Dtype::f32, 10);
  const Tensor g = random_tensor({1000, 64}, Dtype::f32, 11);
  const Tensor w = random_tensor({64}, Dtype::f32, 12, 0.5, 2);
  EXPECT_TRUE(same_as_cpu({g, x, w}, [](const auto& in) {
    auto [y, rstd] = xd::rms_norm(in[1], {64}, in[2]);
    return std::get<1>(xd::rms_norm_backward(in[0], in[1], {64}, rstd, in[2]));
  }, Tol{1e-4, 1e-4}));
}

}  // namespace
