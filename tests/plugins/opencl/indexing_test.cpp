// index_select and embedding on the opencl device against the CPU reference, bit for bit: every
// dtype, each dim, repeated indices, i32 and strided indices, strided inputs, long rows (one
// work-item per element over many rows); an out-of-range index is an IndexError raised by the
// host before the launch, and operands on two devices are a DeviceError.
#include "support/throws_exactly.hpp"
#include "test_util.hpp"

namespace {

using namespace xdo;

Tensor indices(const std::vector<int64_t>& v, const Shape& sizes) { return xd::tensor(v, sizes, cpu()); }

std::vector<int64_t> draws(size_t n, int64_t size, uint32_t seed) {
  std::vector<int64_t> out;
  for (double x : random_values(n, 0, static_cast<double>(size), Dtype::i64, seed))
    out.push_back(static_cast<int64_t>(x));
  return out;
}

TEST(OpenclIndexSelect, EveryDtypeEveryDimSameAsCpu) {
  uint32_t seed = 300;
  for (Dtype d : usable(all_dtypes())) {
    SCOPED_TRACE(name_of(d));
    const Tensor a = random_tensor({4, 5, 6}, d, ++seed);
    for (int64_t dim : {0, 1, 2, -1}) {
      const Tensor idx = indices(draws(9, a.size(dim), ++seed), {9});
      EXPECT_TRUE(same_as_cpu(
          {a, idx}, [&](const auto& t) { return xd::index_select(t[0], dim, t[1]); }, kExact));
      EXPECT_TRUE(same_as_cpu(
          {a, idx.to(Dtype::i32)}, [&](const auto& t) { return xd::index_select(t[0], dim, t[1]); }, kExact));
    }
    // Strided input and index, 0-d operands, empty index.
    const Tensor idx = indices(draws(12, 4, ++seed), {12});
    EXPECT_TRUE(same_as_cpu(
        {a, idx}, [](const auto& t) { return xd::index_select(t[0].transpose(0, 2), 2, t[1].slice(0, 1, 12, 2)); },
        kExact));
    EXPECT_TRUE(same_as_cpu(
        {random_tensor({}, d, ++seed), indices({0}, {})}, [](const auto& t) { return xd::index_select(t[0], 0, t[1]); },
        kExact));
    EXPECT_TRUE(same_as_cpu(
        {a, indices({}, {0})}, [](const auto& t) { return xd::index_select(t[0], 1, t[1]); }, kExact));
  }
}

TEST(OpenclIndexSelect, LongRowsAndManyIndices) {
  const Tensor a = random_tensor({300, 1027}, Dtype::f32, 1);
  const Tensor idx = indices(draws(700, 300, 2), {700});
  EXPECT_TRUE(same_as_cpu(
      {a, idx}, [](const auto& t) { return xd::index_select(t[0], 0, t[1]); }, kExact));
  const Tensor cols = indices(draws(2000, 1027, 3), {2000});
  EXPECT_TRUE(same_as_cpu(
      {a, cols}, [](const auto& t) { return xd::index_select(t[0], 1, t[1]); }, kExact));
}

TEST(OpenclEmbedding, SameAsCpu) {
  for (Dtype d : usable(float_dtypes())) {
    SCOPED_TRACE(name_of(d));
    const Tensor w = random_tensor({50, 24}, d, 4);
    const Tensor idx = indices(draws(3 * 7, 50, 5), {3, 7});
    EXPECT_TRUE(same_as_cpu(
        {w, idx}, [](const auto& t) { return xd::embedding(t[0], t[1], 0); }, kExact));
  }
}

TEST(OpenclIndexSelect, OutOfRangeIndexOnTheDeviceIsAnIndexError) {
  const Tensor a = random_tensor({3, 4}, Dtype::f32, 6).to(ocl());
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::index_select(a, 1, indices({0, 4, 1}, {3}).to(ocl())), "index_select",
                        "index 4 (at position 1) is out of range for dim 1 of size 4");
  EXPECT_THROWS_EXACTLY(xd::IndexError, xd::embedding(a, indices({-1}, {1}).to(Dtype::i32).to(ocl())), "embedding",
                        "index -1 (at position 0)");
}

TEST(OpenclIndexSelect, OperandsOnTwoDevicesAreADeviceError) {
  EXPECT_THROWS_EXACTLY(xd::DeviceError,
                        xd::index_select(random_tensor({3, 4}, Dtype::f32, 7).to(ocl()), 0, indices({0}, {1})),
                        "index_select", "'self' is on opencl:0 but 'index' is on cpu");
}

}  // namespace
