// Views share storage and compute sizes/strides like PyTorch; copies materialise them.
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

using V = std::vector<int64_t>;
V vec(std::span<const int64_t> s) { return {s.begin(), s.end()}; }

xd::Tensor iota(std::initializer_list<int64_t> sizes) {
  int64_t n = 1;
  for (auto s : sizes) n *= s;
  return xd::arange(0.0, static_cast<double>(n), 1.0, xd::Dtype::f32, xd::cpu()).reshape(sizes);
}

TEST(TensorViews, ContiguousTensorHasRowMajorStrides) {
  auto t = xd::empty({2, 3, 4}, xd::Dtype::f32, xd::cpu());
  EXPECT_EQ(vec(t.strides()), (V{12, 4, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.nbytes(), 96u);
}

TEST(TensorViews, TransposeSwapsStridesAndSharesStorage) {
  auto t = iota({2, 3});
  auto tt = t.t();
  EXPECT_EQ(vec(tt.sizes()), (V{3, 2}));
  EXPECT_EQ(vec(tt.strides()), (V{1, 3}));
  EXPECT_FALSE(tt.is_contiguous());
  EXPECT_EQ(tt.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  tt.select(0, 1).copy_(xd::full({2}, 9.0, xd::Dtype::f32, xd::cpu()));  // writes through to t
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0, 9, 2, 3, 9, 5}));
}

TEST(TensorViews, SliceWithStepAndNegativeBounds) {
  auto t = iota({10});
  EXPECT_EQ(t.slice(0, 1, 8, 3).to_vector<float>(), (std::vector<float>{1, 4, 7}));
  EXPECT_EQ(t.slice(0, -3, 100).to_vector<float>(), (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(t.slice(0, 5, 2).numel(), 0);
}

TEST(TensorViews, ViewOfTransposedNeedsCopyButReshapeCopies) {
  auto t = iota({2, 3}).t();
  EXPECT_THROW((void)t.view({6}), xd::ShapeError);
  EXPECT_EQ(t.reshape({6}).to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TensorViews, ViewSplitsAndMergesCompatibleDims) {
  auto t = iota({4, 6}).slice(1, 0, 6);  // still contiguous
  EXPECT_EQ(vec(t.view({2, 2, 6}).strides()), (V{12, 6, 1}));
  EXPECT_EQ(vec(t.view({-1}).sizes()), (V{24}));
  auto p = iota({2, 3, 4}).permute({1, 0, 2});  // [3,2,4], strides [4,12,1]
  EXPECT_EQ(vec(p.view({3, 2, 2, 2}).strides()), (V{4, 12, 2, 1}));
}

TEST(TensorViews, ExpandBroadcastsWithZeroStrides) {
  auto t = iota({3, 1});
  auto e = t.expand({2, 3, 4});
  EXPECT_EQ(vec(e.strides()), (V{0, 1, 0}));
  EXPECT_EQ(e.contiguous().to_vector<float>()[5], 1.0f);
  EXPECT_EQ(xd::sum(e).item<float>(), 2 * 4 * (0 + 1 + 2));
}

TEST(TensorViews, UnsqueezeSqueezeSelectAt) {
  auto t = iota({2, 3});
  EXPECT_EQ(vec(t.unsqueeze(1).sizes()), (V{2, 1, 3}));
  EXPECT_EQ(vec(t.unsqueeze(-1).sizes()), (V{2, 3, 1}));
  EXPECT_EQ(vec(t.unsqueeze(1).squeeze(1).sizes()), (V{2, 3}));
  EXPECT_EQ(t.at<float>({1, 2}), 5.0f);
  EXPECT_EQ(t.select(1, -1).to_vector<float>(), (std::vector<float>{2, 5}));
}

TEST(TensorViews, CastsConvertValues) {
  auto t = xd::tensor<float>({1.5f, -2.5f, 300.0f}, {3}, xd::cpu());
  EXPECT_EQ(t.to(xd::Dtype::i32).to_vector<int32_t>(), (std::vector<int32_t>{1, -2, 300}));
  EXPECT_EQ(t.to(xd::Dtype::bf16).to_vector<float>(), (std::vector<float>{1.5f, -2.5f, 300.0f}));
  EXPECT_EQ(t.to(xd::Dtype::boolean).to_vector<bool>()[0], true);
}

TEST(TensorViews, PrintingShowsValuesDtypeAndDevice) {
  auto t = iota({2, 2});
  EXPECT_EQ(t.str(), "tensor([[0.0000, 1.0000],\n        [2.0000, 3.0000]], dtype=f32, device=cpu:0)");
  EXPECT_EQ(xd::arange(3, xd::Dtype::i64, xd::cpu()).str(), "tensor([0, 1, 2], dtype=i64, device=cpu:0)");
  EXPECT_EQ(xd::Tensor().str(), "tensor(undefined)");
}

}  // namespace
