// XD_FALLBACK=cpu: an op the backend lacks runs on the CPU backend, with a counter.
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

TEST(Fallback, MissingKernelRunsOnTheCpuAndIsCounted) {
  ::setenv("XD_FALLBACK", "cpu", 1);  // read on the first missing kernel in this process
  const std::string path = std::string(XD_STUB_DIR) + "/libxd_plugin_stub_good.so";
  ASSERT_EQ(xd::load_plugin(path).status, xd::LoadStatus::loaded);
  const xd::Device d = xd::Device::parse("stubdev");
  auto a = xd::tensor<float>({1, 2, 3}, {3}, d);
  auto b = xd::tensor<float>({10, 20, 30}, {3}, d);
  const uint64_t before = xd::fallback_count();
  auto c = xd::add(a, b, 2.0);
  EXPECT_EQ(c.device(), d);  // the result comes back to the stub device
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{21, 42, 63}));
  EXPECT_EQ(xd::fallback_count(), before + 1);
  auto [y, rstd] = xd::rms_norm(a.view({1, 3}), {3});
  EXPECT_EQ(y.device(), d);
  EXPECT_EQ(rstd.device(), d);
  EXPECT_EQ(xd::fallback_count(), before + 2);
}

}  // namespace
