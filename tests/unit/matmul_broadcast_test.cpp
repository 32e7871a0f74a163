// xd::matmul against a plain loop over torch.matmul's rules (vectors, folding, broadcast batches).
// The inputs are small integers in f32, so every product and sum is exact whatever order the
// kernels add in, and the comparison is exact.
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace {

using V = std::vector<int64_t>;

int64_t numel(const V& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

// Values -3..3 in a pattern that differs between the operands, on the CPU, contiguous.
xd::Tensor ints(const V& sizes, int seed) {
  const int64_t n = numel(sizes);
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>((i * 5 + seed * 3) % 7 - 3);
  return xd::tensor(v, sizes, xd::cpu());
}

// Index of `idx` (the result's batch index, right-aligned) into a tensor with batch sizes `b`.
int64_t batch_offset(const V& idx, const V& b) {
  int64_t off = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    const int64_t j = idx[idx.size() - b.size() + i];
    off = off * b[i] + (b[i] == 1 ? 0 : j);
  }
  return off;
}

// torch.matmul by definition: the result's shape and values, row-major.
std::pair<V, std::vector<float>> reference(const V& sa, const V& sb, const std::vector<float>& a,
                                           const std::vector<float>& b) {
  V a2 = sa, b2 = sb;
  if (a2.size() == 1) a2.insert(a2.begin(), 1);
  if (b2.size() == 1) b2.push_back(1);
  const int64_t m = a2[a2.size() - 2], k = a2.back(), n = b2.back();
  const V ba(a2.begin(), a2.end() - 2), bb(b2.begin(), b2.end() - 2);
  const size_t nb = std::max(ba.size(), bb.size());
  V batch(nb);
  for (size_t i = 0; i < nb; ++i) {
    const int64_t x = i + ba.size() >= nb ? ba[i + ba.size() - nb] : 1;
    const int64_t y = i + bb.size() >= nb ? bb[i + bb.size() - nb] : 1;
    batch[i] = x == 1 ? y : x;
  }
  std::vector<float> out;
  V idx(nb, 0);
  for (int64_t t = 0; t < numel(batch); ++t) {
    int64_t r = t;
    for (size_t i = nb; i-- > 0;) {
      idx[i] = r % batch[i];
      r /= batch[i];
    }
    const int64_t oa = batch_offset(idx, ba) * m * k, ob = batch_offset(idx, bb) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += a[static_cast<size_t>(oa + i * k + p)] * b[static_cast<size_t>(ob + p * n + j)];
        out.push_back(s);
      }
  }
  V shape = batch;
  if (sa.size() > 1) shape.push_back(m);
  if (sb.size() > 1) shape.push_back(n);
  return {shape, out};
}

struct Case {
  V a, b;
};

class MatmulShapes : public ::testing::TestWithParam<Case> {};

TEST_P(MatmulShapes, MatchesTorchMatmulsRules) {
  const Case& c = GetParam();
  const xd::Tensor a = ints(c.a, 1), b = ints(c.b, 2);
  const auto [shape, want] = reference(c.a, c.b, a.to_vector<float>(), b.to_vector<float>());
  const xd::Tensor got = xd::matmul(a, b);
  EXPECT_EQ(V(got.sizes().begin(), got.sizes().end()), shape);
  EXPECT_EQ(got.to_vector<float>(), want);
}

INSTANTIATE_TEST_SUITE_P(VectorsMatricesAndBatches, MatmulShapes,
                         ::testing::Values(Case{{5}, {5}}, Case{{3, 5}, {5}}, Case{{5}, {5, 4}}, Case{{3, 5}, {5, 4}},
                                           Case{{2, 3, 5}, {5, 4}}, Case{{2, 3, 5}, {5}}, Case{{5}, {2, 5, 4}},
                                           Case{{3, 5}, {2, 5, 4}}, Case{{2, 3, 5}, {2, 5, 4}},
                                           Case{{2, 1, 3, 5}, {4, 5, 6}}, Case{{1, 3, 5}, {7, 1, 5, 2}},
                                           Case{{4, 2, 1, 3, 5}, {2, 1, 5, 4}}, Case{{2, 2, 2, 2, 2, 3, 5}, {5}},
                                           Case{{0, 3, 5}, {5, 4}}, Case{{2, 0, 5}, {2, 5, 4}},
                                           Case{{2, 3, 0}, {2, 0, 4}}, Case{{0}, {0}}, Case{{3, 0}, {0}}));

TEST(Matmul, VectorDotIsZeroDimensional) {
  const xd::Tensor d = xd::matmul(ints({6}, 1), ints({6}, 2));
  EXPECT_EQ(d.dim(), 0);
  EXPECT_EQ(d.numel(), 1);
}

TEST(Matmul, NonContiguousOperandsGiveTheSameResult) {
  // A batch whose rows are not evenly strided (a transposed view) cannot fold into mm's rows as
  // a view; reshape copies it, and the result is the contiguous operand's.
  const xd::Tensor a = ints({2, 5, 3}, 1).transpose(1, 2);  // [2, 3, 5]
  const xd::Tensor b = ints({4, 5}, 2).t();                 // [5, 4]
  EXPECT_EQ(xd::matmul(a, b).to_vector<float>(), xd::matmul(a.contiguous(), b.contiguous()).to_vector<float>());
  const xd::Tensor b3 = ints({3, 1, 4, 5}, 2).transpose(2, 3);  // [3, 1, 5, 4]
  EXPECT_EQ(xd::matmul(a, b3).to_vector<float>(), xd::matmul(a.contiguous(), b3.contiguous()).to_vector<float>());
}

TEST(Matmul, LeavesItsOperandsUnchanged) {
  const xd::Tensor a = ints({3, 5}, 1), b = ints({2, 5, 4}, 2);
  const auto a0 = a.to_vector<float>(), b0 = b.to_vector<float>();
  (void)xd::matmul(a, b);
  EXPECT_EQ(a.to_vector<float>(), a0);
  EXPECT_EQ(b.to_vector<float>(), b0);
}

}  // namespace
