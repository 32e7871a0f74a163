// rand and randn on the opencl device give the CPU reference's numbers for the same generator
// state: rand bit for bit (the same float arithmetic), randn within the math library's error
// (it goes through log, sqrt and cos).
#include "test_util.hpp"

namespace {

using namespace xdo;

Tensor draw(bool normal, const Shape& shape, Dtype d, xd::Device dev, uint64_t seed, uint64_t offset) {
  xd::Generator g(seed);
  g.set_offset(offset);
  return normal ? xd::randn(shape, d, dev, &g) : xd::rand(shape, d, dev, &g);
}

TEST(OpenclRandom, RandIsBitIdenticalToTheCpuForEverySeedOffsetAndSize) {
  for (Dtype d : usable(float_dtypes()))
    for (const Shape& shape : std::vector<Shape>{{1}, {3}, {7, 5}, {1001}, {0}, {2, 3, 65}})
      for (auto [seed, offset] : std::vector<std::pair<uint64_t, uint64_t>>{{0, 0}, {42, 7}, {0xdeadbeefcafeull, 1ull << 40}}) {
        const Tensor want = draw(false, shape, d, cpu(), seed, offset);
        const Tensor got = draw(false, shape, d, ocl(), seed, offset);
        EXPECT_EQ(got.to(cpu()).to_bytes(), want.to_bytes()) << name_of(d) << " seed " << seed << " offset " << offset;
      }
}

TEST(OpenclRandom, RandnMatchesTheCpuWithinTheMathLibraryError) {
  for (Dtype d : usable(float_dtypes()))
    for (const Shape& shape : std::vector<Shape>{{1}, {5}, {33, 9}, {0}}) {
      const Tensor want = draw(true, shape, d, cpu(), 123, 5);
      const Tensor got = draw(true, shape, d, ocl(), 123, 5);
      EXPECT_TRUE(all_close(read(got), read(want), math_tol(d))) << name_of(d);
    }
}

TEST(OpenclRandom, ConsecutiveDrawsContinueTheStreamLikeTheCpu) {
  xd::Generator a(9), b(9);
  const Tensor want = xd::rand({1000}, Dtype::f32, cpu(), &a);
  const Tensor got = xd::rand({1000}, Dtype::f32, ocl(), &b);
  EXPECT_EQ(got.to(cpu()).to_bytes(), want.to_bytes());
  // A second call continues the stream where the first stopped, on both devices alike.
  EXPECT_EQ(xd::rand({37}, Dtype::f32, ocl(), &b).to(cpu()).to_bytes(), xd::rand({37}, Dtype::f32, cpu(), &a).to_bytes());
  EXPECT_EQ(a.offset(), b.offset());
}

}  // namespace
