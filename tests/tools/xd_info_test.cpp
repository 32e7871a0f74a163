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
