// XD_BACKEND=xpu picks the best XPU device there is: a Level Zero device, else an OpenCL GPU or
// accelerator, else it fails saying why. The XPU backends are stand-ins here (stub plugins named
// "opencl" and "levelzero", loaded first through XD_PLUGIN_PATH), so the outcome does not depend on
// the machine's GPUs and drivers; XD_DEVICES='!levelzero' hides any real Level Zero device where a
// case needs none to exist. Each case runs xd_test_default_device in a child process: the core
// reads XD_BACKEND once per process.
#include "support/run_command.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string stub(const std::string& name) {
  return std::string(XD_XPU_STUB_DIR) + "/libxd_plugin_stub_" + name + ".so";
}

// xd_test_default_device with `env` (e.g. "XD_BACKEND=xpu"), from a clean XD_* environment.
xd::test::CommandResult run(const std::string& env) {
  return xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES -u XD_PLUGIN_PATH -u XD_FALLBACK " + env +
                               " '" XD_DEFAULT_DEVICE_BIN "'");
}

TEST(XpuSelection, FallsThroughToAnOpenclGpuWhenNoLevelZeroDeviceExists) {
  const auto r = run("XD_BACKEND=xpu 'XD_DEVICES=!levelzero' XD_PLUGIN_PATH='" + stub("opencl_gpu") + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("default device: opencl:0 backend=opencl kind=gpu name=stub opencl gpu"), std::string::npos)
      << r.output;
}

TEST(XpuSelection, WithOnlyOpenclCpuDevicesFailsSayingSo) {
  const auto r = run("XD_BACKEND=xpu 'XD_DEVICES=!levelzero' XD_PLUGIN_PATH='" + stub("opencl_cpu") + "'");
  EXPECT_EQ(r.status, 1) << "XD_BACKEND=xpu picked a CPU device:\n" << r.output;
  EXPECT_NE(r.output.find("BackendError: XD_BACKEND='xpu' names no available backend"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("xpu: no device of the family's backends qualifies ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("opencl: has only cpu devices; xpu takes gpu or accelerator"), std::string::npos)
      << r.output;
}

TEST(XpuSelection, PrefersALevelZeroDeviceToAnOpenclGpu) {
  const auto r = run("XD_BACKEND=xpu XD_PLUGIN_PATH='" + stub("opencl_gpu") + ":" + stub("levelzero_gpu") + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("default device: levelzero:0 backend=levelzero kind=gpu name=stub levelzero gpu"),
            std::string::npos)
      << r.output;
}

TEST(XpuSelection, AHiddenLevelZeroDeviceCountsAsNone) {
  const auto r = run("XD_BACKEND=xpu 'XD_DEVICES=!levelzero' XD_PLUGIN_PATH='" + stub("levelzero_gpu") + ":" +
                     stub("opencl_gpu") + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("default device: opencl:0 backend=opencl"), std::string::npos) << r.output;
}

}  // namespace

namespace {

// A family is resolved by what the plugins declare, never by their names: the best device of it,
// or a clear error; it takes no device index, and without XD_BACKEND the host reference decides.
TEST(XpuSelection, AFamilyTakesNoDeviceIndex) {
  const auto r = run("XD_BACKEND=xpu:1 XD_PLUGIN_PATH='" + stub("opencl_gpu") + "'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("'xpu' is a family of backends and takes no device index"), std::string::npos) << r.output;
}

TEST(XpuSelection, UnsetXdBackendIsTheHostReferenceEvenWithAnXpuGpuLoadedFirst) {
  const auto r = run("XD_PLUGIN_PATH='" + stub("opencl_gpu") + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("default device: cpu:0 backend=cpu kind=cpu"), std::string::npos) << r.output;
}

TEST(XpuSelection, UnsetXdBackendWithTheHostReferenceHiddenFailsSayingWhy) {
  const auto r = run("'XD_DEVICES=!cpu'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("no loaded plugin declares itself the host reference"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("filtered"), std::string::npos) << r.output;
}

}  // namespace
