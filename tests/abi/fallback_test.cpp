// XD_FALLBACK=cpu: an op the backend lacks runs on the CPU backend, with a counter and a warning
// printed once per (op, backend, dtype).
#include "support/run_command.hpp"

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

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(Fallback, WarningIsPrintedOncePerOpBackendAndDtypeWhileEveryCallIsCounted) {
  const auto r = xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES XD_FALLBACK=cpu XD_LOG=warn " FALLBACK_PROBE_BIN
                                       " " XD_STUB_DIR "/libxd_plugin_stub_good.so");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string mul_warning =
      "[xdispatch warn] mul has no stubdev kernel for f32; running it on the CPU backend (XD_FALLBACK=cpu). "
      "This warning is shown once.";
  const std::string sub_warning = "[xdispatch warn] sub has no stubdev kernel for f32;";
  EXPECT_EQ(occurrences(r.output, mul_warning), 1u) << r.output;
  EXPECT_EQ(occurrences(r.output, sub_warning), 1u) << r.output;
  EXPECT_EQ(occurrences(r.output, "[xdispatch warn]"), 2u) << r.output;
  // Each warning comes with the first call of its op, before that call's result.
  EXPECT_LT(r.output.find(mul_warning), r.output.find("mul 0 on")) << r.output;
  EXPECT_GT(r.output.find(sub_warning), r.output.find("mul 2 on")) << r.output;
  EXPECT_LT(r.output.find(sub_warning), r.output.find("sub 0 on")) << r.output;
  // Every call ran on the CPU, came back to the stub device, and counted once.
  EXPECT_NE(r.output.find("mul 0 on stubdev:0: [4, 10, 18], fallbacks 1\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mul 2 on stubdev:0: [4, 10, 18], fallbacks 3\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sub 0 on stubdev:0: [3, 3, 3], fallbacks 4\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sub 2 on stubdev:0: [3, 3, 3], fallbacks 6\n"), std::string::npos) << r.output;
}

TEST(Fallback, WithoutFallbackAMissingKernelIsAnErrorAndNothingIsWarned) {
  const auto r = xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES -u XD_FALLBACK XD_LOG=warn " FALLBACK_PROBE_BIN
                                       " " XD_STUB_DIR "/libxd_plugin_stub_good.so");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("mul on backend 'stubdev' with dtype f32: no kernel is registered"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Set XD_FALLBACK=cpu"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[xdispatch warn]"), std::string::npos) << r.output;
}

}  // namespace
