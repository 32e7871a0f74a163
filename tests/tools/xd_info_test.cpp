// xd-info as a user runs it: environment variables steer discovery and selection, and mistakes
// give a non-zero exit with a message that says what is available.
#include "support/run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace {

using Result = xd::test::CommandResult;

// Runs `xd-info args` with `env` prepended (e.g. "XD_BACKEND=nosuch"), stdout and stderr together.
Result run(const std::string& env, const std::string& args = "") {
  return xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES -u XD_PLUGIN_PATH -u XD_FALLBACK " + env +
                               " " XD_INFO_BIN " " + args);
}

std::string status_of(const nlohmann::json& j, const std::string& name) {
  for (const auto& p : j["plugins"])
    if (p["name"] == name) return p["status"];
  return "";
}

TEST(XdInfo, PrintsTheLoadReportDevicesAndCoverage) {
  const auto r = run("");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Load report"), std::string::npos);
  EXPECT_NE(r.output.find("loaded"), std::string::npos);
  EXPECT_NE(r.output.find("cpu:0"), std::string::npos);
  EXPECT_NE(r.output.find("rms_norm"), std::string::npos);
}

TEST(XdInfo, JsonHasPluginsDevicesAndKernels) {
  const auto r = run("", "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  for (const char* key : {"plugins", "devices", "kernels"}) ASSERT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(status_of(j, "cpu"), "loaded");
  const auto& p = j["plugins"][0];
  for (const char* key : {"path", "name", "status", "reason", "abi"}) EXPECT_TRUE(p.contains(key)) << key;
  bool add_f32 = false;
  for (const auto& k : j["kernels"]) add_f32 |= k["op"] == "add" && k["backend"] == "cpu" && k["dtype"] == "f32";
  EXPECT_TRUE(add_f32);
  EXPECT_EQ(j["default_device"], "cpu:0");
}

TEST(XdInfo, UnknownBackendFailsNamingTheAvailableOnes) {
  const auto r = run("XD_BACKEND=nosuch");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("unknown backend 'nosuch'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Available backends: cpu"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Load report"), std::string::npos) << r.output;
}

TEST(XdInfo, NamedBackendThatIsAbsentSaysWhy) {
  const auto r = run("XD_BACKEND=levelzero");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("levelzero:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("names no available backend"), std::string::npos) << r.output;
}

TEST(XdInfo, PreferenceListTakesTheFirstAvailable) {
  const auto r = run("XD_BACKEND=levelzero,cpu", "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["default_device"], "cpu:0");
}

TEST(XdInfo, BadDeviceIndexIsAnError) {
  const auto r = run("XD_BACKEND=cpu:3");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cpu:3 does not exist"), std::string::npos) << r.output;
}

TEST(XdInfo, PluginPathFolderReportsEveryBrokenStub) {
  const auto r = run("XD_PLUGIN_PATH=" XD_STUB_DIR, "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(status_of(j, "cpu"), "loaded");
  EXPECT_EQ(status_of(j, "stubdev"), "loaded");
  EXPECT_EQ(status_of(j, "wrongabi"), "abi mismatch");
  EXPECT_EQ(status_of(j, "initfails"), "init failed");
  EXPECT_EQ(status_of(j, "nodriver"), "unavailable");
  EXPECT_EQ(status_of(j, "nodevices"), "no devices");
  bool garbage = false, noinit = false, dup = false, dep = false;
  for (const auto& p : j["plugins"]) {
    const std::string path = p["path"];
    garbage |= path.find("garbage") != std::string::npos && p["status"] == "not a library";
    noinit |= path.find("stub_no_init") != std::string::npos && p["status"] == "symbol missing";
    dup |= path.find("stub_twin_b") != std::string::npos && p["status"] == "duplicate";
    dep |= path.find("stub_needs_dep") != std::string::npos && p["status"] == "dependency missing";
  }
  EXPECT_TRUE(garbage && noinit && dup && dep) << r.output;
}

TEST(XdInfo, PluginPathEntryThatDoesNotExistIsNotFound) {
  const auto r = run("XD_PLUGIN_PATH=/nonexistent/libxd_plugin_x.so", "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  bool nf = false;
  const auto j = nlohmann::json::parse(r.output);
  for (const auto& p : j["plugins"])
    nf |= p["path"].get<std::string>() == "/nonexistent/libxd_plugin_x.so" &&
          p["status"].get<std::string>() == "not found";
  EXPECT_TRUE(nf) << r.output;
}

TEST(XdInfo, DeviceFilterThatHidesEveryDeviceMarksThePluginFiltered) {
  const auto r = run("XD_DEVICES='!cpu;!opencl' XD_BACKEND=levelzero,opencl,cpu");  // every backend present hidden
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("filtered"), std::string::npos) << r.output;
}

TEST(XdInfo, MalformedDeviceFilterIsAnError) {
  const auto r = run("XD_DEVICES=opencl:fast");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("XD_DEVICES"), std::string::npos) << r.output;
}

TEST(XdInfo, InvalidLogLevelIsAnErrorAtStartNamingTheAcceptedValues) {
  const auto r = run("XD_LOG=bogus");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("XD_LOG='bogus' is not valid; expected 'error'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'debug'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Load report"), std::string::npos) << r.output;  // nothing ran first
}

TEST(XdInfo, InvalidFallbackIsAnErrorAtStartEvenWithoutAMissingKernel) {
  const auto r = run("XD_FALLBACK=gpu");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("XD_FALLBACK='gpu' is not valid; expected 'error'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'cpu' (run missing kernels on the CPU backend)"), std::string::npos) << r.output;
}

TEST(XdInfo, EmptySettingsMeanTheDefaults) {
  const auto r = run("XD_LOG= XD_FALLBACK= XD_BACKEND=", "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["default_device"], "cpu:0");
}

TEST(XdInfo, UnknownOptionIsAUsageError) {
  const auto r = run("", "--bogus");
  EXPECT_EQ(r.status, 2);
}

}  // namespace

namespace {

// Plugin tunables are declared options: xd-info lists them with what they accept and their
// default, and a malformed value is a warning naming it, after which the default holds.
TEST(XdInfo, ListsTheOptionsEachPluginDeclares) {
  const auto r = run("");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Plugin options"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("XD_LEVELZERO_BUILD_FLAGS"), std::string::npos) << r.output;
  const auto j = nlohmann::json::parse(run("", "--json").output);
  bool found = false;
  for (const auto& p : j["plugins"]) {
    if (p["name"] != "opencl") continue;
    EXPECT_EQ(p["family"], "xpu");
    for (const auto& o : p["options"])
      if (o["name"] == "XD_OPENCL_RMS_BWD_GROUPS_PER_CU") {
        found = true;
        EXPECT_EQ(o["kind"], "integer");
        EXPECT_EQ(o["accepted"], "1..64");
        EXPECT_EQ(o["default"], "2");
      }
  }
  if (status_of(j, "opencl").empty()) GTEST_SKIP() << "no OpenCL plugin in this build";
  EXPECT_TRUE(found) << j.dump(1);
}

TEST(XdInfo, AMalformedPluginOptionWarnsAndKeepsTheDefault) {
  const auto j = nlohmann::json::parse(run("", "--json").output);
  if (status_of(j, "opencl") != "loaded") GTEST_SKIP() << "no OpenCL device";
  const auto r = run("XD_LOG=warn XD_OPENCL_INT4_TUNING=32,8,4 XD_BACKEND=opencl");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("opencl: XD_OPENCL_INT4_TUNING='32,8,4' is not valid (accepted: lanes,cols,split_k,tiles in "
                          "1..256,1..64,1..32,1..16); using the default 32,8,4,4"),
            std::string::npos)
      << r.output;
}

TEST(XdInfo, CpuFastKernelsComeBeforeTheReferenceLoops) {
  const auto r = run("", "--kernels");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto fast = r.output.find("f32       cpu.softmax.fast");
  const auto loop = r.output.find("f32       cpu.softmax\n");
  ASSERT_NE(fast, std::string::npos) << r.output;
  ASSERT_NE(loop, std::string::npos) << r.output;
  EXPECT_LT(fast, loop);
}

TEST(XdInfo, CpuKernelsReferenceRegistersOnlyTheReferenceLoops) {
  const auto r = run("XD_CPU_KERNELS=reference", "--kernels");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find(".fast"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("f32       cpu.softmax\n"), std::string::npos) << r.output;
}

TEST(XdInfo, AMalformedCpuKernelsWarnsAndKeepsTheFastKernels) {
  const auto r = run("XD_LOG=warn XD_CPU_KERNELS=slow", "--kernels");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cpu: XD_CPU_KERNELS='slow' is not valid (accepted: fast, reference); using the default fast"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("cpu.softmax.fast"), std::string::npos) << r.output;
}

TEST(XdInfo, KernelsListsEveryKernelInTheOrderItsSlotTriesThem) {
  const auto r = run("", "--kernels");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cpu.mm.loop"), std::string::npos) << r.output;
  // Within the f32 mm slot, oneDNN (when built) is tried before the reference loop.
  const auto dnnl = r.output.find("f32       cpu.mm.dnnl");
  if (dnnl != std::string::npos) {
    EXPECT_LT(dnnl, r.output.find("f32       cpu.mm.loop")) << "specialised kernels first";
  }
}

}  // namespace
