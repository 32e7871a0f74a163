// XD_BACKEND as every program sees it: each tool and the example resolve it through the core's
// selection at start-up, so an unknown name or an unavailable backend fails before any work with
// the core's message (the available backends, the load report), and xd-conform / xd-bench test
// the backend it selects when no --backend is given.
#include "support/run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using Result = xd::test::CommandResult;

// `program args` with `env` prepended, every XD_ variable that steers selection cleared first.
Result run(const std::string& env, const std::string& program, const std::string& args) {
  return xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES -u XD_PLUGIN_PATH -u XD_FALLBACK " + env + " " +
                               program + " " + args);
}

// The core's message for an unknown name: names it, lists what is available, embeds the report.
void expect_names_the_available_backends(const Result& r) {
  EXPECT_NE(r.output.find("unknown backend 'nosuch'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Available backends: cpu"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Load report"), std::string::npos) << r.output;
}

// No machine here has a Level Zero driver: the plugin's load-report row says so.
void expect_says_level_zero_is_unavailable(const Result& r) {
  EXPECT_NE(r.output.find("XD_BACKEND='levelzero' names no available backend"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("levelzero:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Level Zero"), std::string::npos) << r.output;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

std::string temp_file(const std::string& name) {
  return (fs::temp_directory_path() / ("xd-backend-env-" + std::to_string(getpid()) + "-" + name)).string();
}

TEST(BackendEnv, XdInfoExitsOneOnAnUnknownBackendNamingTheAvailableOnes) {
  const Result r = run("XD_BACKEND=nosuch", XD_INFO_BIN, "");
  EXPECT_EQ(r.status, 1) << r.output;
  expect_names_the_available_backends(r);
}

TEST(BackendEnv, XdConformExitsTwoOnAnUnknownBackendNamingTheAvailableOnes) {
  const Result r = run("XD_BACKEND=nosuch", XD_CONFORM_BIN, "--quick --op add");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("xd-conform: error:"), std::string::npos) << r.output;
  expect_names_the_available_backends(r);
}

TEST(BackendEnv, XdConformExitsTwoWhenLevelZeroHasNoDriver) {
  const Result r = run("XD_BACKEND=levelzero", XD_CONFORM_BIN, "--quick --op add");
  EXPECT_EQ(r.status, 2) << r.output;
  expect_says_level_zero_is_unavailable(r);
}

TEST(BackendEnv, XdBenchExitsTwoOnAnUnknownBackendNamingTheAvailableOnes) {
  const Result r = run("XD_BACKEND=nosuch", XD_BENCH_BIN, "--op add --size 8 --reps 1 --warmup 0 --copy-mib 1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("xd-bench: error:"), std::string::npos) << r.output;
  expect_names_the_available_backends(r);
}

TEST(BackendEnv, XdBenchExitsTwoWhenLevelZeroHasNoDriver) {
  const Result r = run("XD_BACKEND=levelzero", XD_BENCH_BIN, "--op add --size 8 --reps 1 --warmup 0 --copy-mib 1");
  EXPECT_EQ(r.status, 2) << r.output;
  expect_says_level_zero_is_unavailable(r);
}

TEST(BackendEnv, LlamaMlpExampleExitsOneOnAnUnknownBackendNamingTheAvailableOnes) {
  const Result r = run("XD_BACKEND=nosuch", LLAMA_MLP_BIN, "4 8 8 1");
  EXPECT_EQ(r.status, 1) << r.output;
  expect_names_the_available_backends(r);
}

TEST(BackendEnv, LlamaMlpExampleExitsOneWhenLevelZeroHasNoDriver) {
  const Result r = run("XD_BACKEND=levelzero", LLAMA_MLP_BIN, "4 8 8 1");
  EXPECT_EQ(r.status, 1) << r.output;
  expect_says_level_zero_is_unavailable(r);
}

TEST(BackendEnv, XdConformTestsTheBackendXdBackendSelectsWhenNoneIsGiven) {
  // Without XD_BACKEND xd-conform tests every backend but cpu when there is one (the stub plugin
  // here, which has no kernels, and opencl where it loads); XD_BACKEND=cpu narrows it to cpu.
  const std::string json = temp_file("conform.json");
  const Result r = run("XD_PLUGIN_PATH=" XD_STUB_DIR "/libxd_plugin_stub_good.so XD_BACKEND=cpu", XD_CONFORM_BIN,
                       "--quick --op add --dtype f32 --json " + json);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = read_json(json);
  fs::remove(json);
  EXPECT_EQ(j["backends"], nlohmann::json::array({"cpu"})) << j.dump();
  ASSERT_FALSE(j["cases"].empty()) << j.dump();
  for (const auto& c : j["cases"]) EXPECT_EQ(c["backend"], "cpu") << c.dump();
}

TEST(BackendEnv, XdBenchMeasuresTheDeviceXdBackendSelectsWhenNoneIsGiven) {
  const std::string json = temp_file("bench.json");
  const Result r =
      run("XD_BACKEND=cpu:0", XD_BENCH_BIN, "--op add --size 8 --reps 1 --warmup 0 --copy-mib 1 --json " + json);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = read_json(json);
  fs::remove(json);
  ASSERT_EQ(j["devices"].size(), 1u) << j.dump();
  EXPECT_EQ(j["devices"][0]["device"], "cpu:0");
  ASSERT_FALSE(j["results"].empty()) << j.dump();
  for (const auto& row : j["results"]) EXPECT_EQ(row["backend"], "cpu") << row.dump();
}

TEST(BackendEnv, AnExplicitBackendOptionWinsOverXdBackend) {
  // XD_BACKEND names the stub plugin's device (valid: it loads), --backend says cpu: cpu is run.
  const std::string json = temp_file("bench-explicit.json");
  const Result r = run("XD_PLUGIN_PATH=" XD_STUB_DIR "/libxd_plugin_stub_good.so XD_BACKEND=stubdev", XD_BENCH_BIN,
                       "--backend cpu --op add --size 8 --reps 1 --warmup 0 --copy-mib 1 --json " + json);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = read_json(json);
  fs::remove(json);
  ASSERT_EQ(j["devices"].size(), 1u) << j.dump();
  EXPECT_EQ(j["devices"][0]["device"], "cpu:0");
}

// XD_DEVICES naming a backend no plugin declares would match nothing, so a misspelt name hid
// nothing and said nothing; it is an error at start-up, as a malformed XD_DEVICES is.
TEST(BackendEnv, XdDevicesNamingAnUnknownBackendFailsNamingItAndTheKnownOnes) {
  const Result r = run("'XD_DEVICES=!opencll'", XD_INFO_BIN, "");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("xd-info: error: XD_DEVICES='!opencll': term '!opencll' names the backend 'opencll', "
                          "which no plugin found declares; known backends: cpu"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("check the spelling, or put its plugin on XD_PLUGIN_PATH"), std::string::npos) << r.output;
}

TEST(BackendEnv, XdDevicesMayNameABackendWhosePluginDidNotLoad) {
  // The stub says its driver is missing: its name is known all the same, so hiding it is valid.
  const Result r = run("XD_PLUGIN_PATH=" XD_STUB_DIR "/libxd_plugin_stub_unavailable.so 'XD_DEVICES=!nodriver'",
                       XD_INFO_BIN, "");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("nodriver"), std::string::npos) << r.output;
}

TEST(BackendEnv, XdDevicesNamesAPluginOnThePluginPath) {
  const Result r = run("XD_PLUGIN_PATH=" XD_STUB_DIR "/libxd_plugin_stub_good.so 'XD_DEVICES=!stubdev'", XD_INFO_BIN, "");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("all 1 device(s) hidden by XD_DEVICES='!stubdev'"), std::string::npos) << r.output;
}

}  // namespace
