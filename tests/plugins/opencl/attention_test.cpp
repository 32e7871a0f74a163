// scaled_dot_product_attention on the opencl device (the fused kernel of attention.cl) against
// the CPU reference: shapes spanning several 32-query blocks and 32-key (16 in f64) tiles with
// ragged ends, causal with L < S and L > S (blocks above the diagonal skipped), bool and float
// masks broadcast, rows with every key masked (NaN on both), strided operands, head dims up to
// 128, and a head dim above it, which the kernel declines with its reason.
#include "support/throws_exactly.hpp"
#include "test_util.hpp"

#include <optional>

namespace {

using namespace xdo;

// The online softmax rescales in another order than the reference's two passes.
Tol attention_tol(Dtype d) { return sum_tol(d); }

Tensor sdpa(const std::vector<Tensor>& t, bool causal = false, std::optional<double> scale = std::nullopt) {
  const std::optional<Tensor> mask = t.size() > 3 ? std::optional<Tensor>(t[3]) : std::nullopt;
  return xd::scaled_dot_product_attention(t[0], t[1], t[2], mask, causal, scale);
}

TEST(OpenclAttention, SeveralTilesEachWaySameAsCpu) {
  uint32_t seed = 700;
  for (Dtype d : usable(float_dtypes())) {
    SCOPED_TRACE(name_of(d));
    for (const auto& [L, S, E, Ev] : {std::array<int64_t, 4>{70, 45, 16, 24}, std::array<int64_t, 4>{33, 97, 64, 8},
                                      std::array<int64_t, 4>{1, 5, 128, 128}, std::array<int64_t, 4>{96, 64, 32, 32}}) {
      SCOPED_TRACE(testing::Message() << L << "x" << S << "x" << E << "x" << Ev);
      const Tensor q = random_tensor({2, 3, L, E}, d, ++seed, -1, 1);
      const Tensor k = random_tensor({2, 3, S, E}, d, ++seed, -1, 1);
      const Tensor v = random_tensor({2, 3, S, Ev}, d, ++seed, -2, 2);
      EXPECT_TRUE(same_as_cpu(
          {q, k, v}, [](const auto& t) { return sdpa(t); }, attention_tol(d)));
      EXPECT_TRUE(same_as_cpu(
          {q, k, v}, [](const auto& t) { return sdpa(t, true); }, attention_tol(d)));
      EXPECT_TRUE(same_as_cpu(
          {q, k, v}, [](const auto& t) { return sdpa(t, false, 0.7); }, attention_tol(d)));
    }
  }
}

TEST(OpenclAttention, MasksSameAsCpu) {
  uint32_t seed = 800;
  for (Dtype d : usable(float_dtypes())) {
    SCOPED_TRACE(name_of(d));
    const Tensor q = random_tensor({2, 2, 45, 16}, d, ++seed, -1, 1);
    const Tensor k = random_tensor({2, 2, 70, 16}, d, ++seed, -1, 1);
    const Tensor v = random_tensor({2, 2, 70, 8}, d, ++seed);
    // A bool mask shared by batches and heads, and a float mask per batch.
    const Tensor bmask = random_tensor({45, 70}, Dtype::boolean, ++seed);
    const Tensor fmask = random_tensor({2, 1, 45, 70}, d, ++seed, -3, 3);
    EXPECT_TRUE(same_as_cpu(
        {q, k, v, bmask}, [](const auto& t) { return sdpa(t); }, attention_tol(d)));
    EXPECT_TRUE(same_as_cpu(
        {q, k, v, fmask}, [](const auto& t) { return sdpa(t); }, attention_tol(d)));
    // Three keys per row: some rows have every key masked and come out NaN on both.
    const Tensor k3 = random_tensor({2, 2, 3, 16}, d, ++seed);
    const Tensor v3 = random_tensor({2, 2, 3, 8}, d, ++seed);
    const Tensor m3 = random_tensor({2, 2, 45, 3}, Dtype::boolean, ++seed);
    EXPECT_TRUE(same_as_cpu(
        {q, k3, v3, m3}, [](const auto& t) { return sdpa(t); }, attention_tol(d)));
    const std::vector<double> out = read(sdpa({q.to(ocl()), k3.to(ocl()), v3.to(ocl()), m3.to(ocl())}));
    const std::vector<double> mask = read(m3);
    bool saw_empty_row = false;
    for (size_t row = 0; row < mask.size() / 3; ++row)
      if (mask[3 * row] == 0 && mask[3 * row + 1] == 0 && mask[3 * row + 2] == 0) {
        saw_empty_row = true;
        EXPECT_TRUE(std::isnan(out[row * 8])) << "row " << row;
      }
    EXPECT_TRUE(saw_empty_row);
  }
}

TEST(OpenclAttention, StridedBroadcastAndEmptySameAsCpu) {
  const Dtype d = Dtype::f32;
  const Tensor q = random_tensor({3, 40, 16}, d, 900);
  const Tensor k = random_tensor({3, 16, 50}, d, 901);  // used transposed
  const Tensor v = random_tensor({1, 100, 8}, d, 902);  // every second row, broadcast over the batch
  EXPECT_TRUE(same_as_cpu(
      {q, k, v},
      [](const auto& t) {
        return sdpa({t[0], t[1].transpose(1, 2), t[2].slice(1, 0, 100, 2)}, true);
      },
      attention_tol(d)));
  for (const auto& [L, S, E] :
       {std::array<int64_t, 3>{0, 5, 8}, std::array<int64_t, 3>{4, 0, 8}, std::array<int64_t, 3>{4, 5, 0}}) {
    EXPECT_TRUE(same_as_cpu(
        {random_tensor({2, L, E}, d, 903), random_tensor({2, S, E}, d, 904), random_tensor({2, S, 3}, d, 905)},
        [](const auto& t) { return sdpa(t); }, attention_tol(d)));
  }
}

TEST(OpenclAttention, HeadDimAboveTheFusedKernelsLimitIsDeclined) {
  const Tensor q = random_tensor({1, 4, 129}, Dtype::f32, 910).to(ocl());
  EXPECT_THROWS_EXACTLY(xd::NotImplementedError, sdpa({q, q, q}), "scaled_dot_product_attention",
                        "head dims above 128");
}

}  // namespace
