// The program cache across processes, and a machine without OpenCL, observed by starting
// opencl_probe (XD_PROBE_BIN) with XD_LOG=debug: "built from source" and "loaded from the disk
// cache" are the plugin's debug lines for the two ways a program comes to be.
#include "test_util.hpp"

#include "support/run_command.hpp"

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace xdo;

using Output = xd::test::CommandResult;

Output run_probe(const std::string& env, const std::string& mode) {
  const std::string cmd = env + " XD_LOG=debug " XD_PROBE_BIN " " + mode;
  return xd::test::run_command(cmd);
}

size_t count(const std::string& text, const std::string& what) { return xd::test::count_occurrences(text, what); }

// A fresh cache folder in the build tree for one test.
std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(XD_TEST_CACHE_DIR).parent_path() / "xd-cache-tests" / (name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir.string();
}

std::vector<fs::path> entries(const std::string& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".bin") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(OpenclProgramCache, ASecondProcessLoadsProgramsWithoutBuilding) {
  const std::string dir = fresh_dir("warm");
  const Output first = run_probe("XD_CACHE_DIR=" + dir, "run");
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_GE(count(first.output, "built from source"), 2u) << first.output;
  EXPECT_EQ(entries(dir).size(), count(first.output, "built from source")) << first.output;
  const Output second = run_probe("XD_CACHE_DIR=" + dir, "run");
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_EQ(count(second.output, "built from source"), 0u) << second.output;
  EXPECT_EQ(count(second.output, "loaded from the disk cache"), count(first.output, "built from source")) << second.output;
}

TEST(OpenclProgramCache, CorruptEntriesAreRebuiltNeverTrusted) {
  const std::string dir = fresh_dir("corrupt");
  ASSERT_EQ(run_probe("XD_CACHE_DIR=" + dir, "run").status, 0);
  const auto files = entries(dir);
  ASSERT_GE(files.size(), 2u);
  {
    // Two flipped bytes in the middle of the binary: only the checksum can tell.
    std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
    const auto mid = static_cast<std::streamoff>(fs::file_size(files[0]) / 2);
    f.seekg(mid);
    char b[2];
    f.read(b, 2);
    b[0] = static_cast<char>(b[0] ^ 0x5a);
    b[1] = static_cast<char>(b[1] ^ 0xa5);
    f.seekp(mid);
    f.write(b, 2);
  }
  const Output out = run_probe("XD_CACHE_DIR=" + dir, "run");
  ASSERT_EQ(out.status, 0) << out.output;
  EXPECT_EQ(count(out.output, "checksum mismatch (corrupt)"), 1u) << out.output;
  EXPECT_EQ(count(out.output, "built from source"), 1u) << out.output;
  // The rebuilt entry is valid again.
  const Output again = run_probe("XD_CACHE_DIR=" + dir, "run");
  EXPECT_EQ(count(again.output, "built from source"), 0u) << again.output;
  EXPECT_EQ(count(again.output, "rejected"), 0u) << again.output;
}

TEST(OpenclProgramCache, EntriesWrittenForAnotherKeyAreRejected) {
  const std::string dir = fresh_dir("key");
  ASSERT_EQ(run_probe("XD_CACHE_DIR=" + dir, "run").status, 0);
  auto files = entries(dir);
  ASSERT_GE(files.size(), 2u);
  fs::copy_file(files[0], files[1], fs::copy_options::overwrite_existing);
  const Output out = run_probe("XD_CACHE_DIR=" + dir, "run");
  ASSERT_EQ(out.status, 0) << out.output;
  EXPECT_EQ(count(out.output, "written for another device, driver, source or options"), 1u) << out.output;
  EXPECT_EQ(count(out.output, "built from source"), 1u) << out.output;
}

TEST(OpenclProgramCache, TruncatedEntriesAreRebuilt) {
  const std::string dir = fresh_dir("truncated");
  ASSERT_EQ(run_probe("XD_CACHE_DIR=" + dir, "run").status, 0);
  for (const auto& f : entries(dir)) fs::resize_file(f, fs::file_size(f) / 3);
  const Output out = run_probe("XD_CACHE_DIR=" + dir, "run");
  ASSERT_EQ(out.status, 0) << out.output;
  EXPECT_EQ(count(out.output, "rejected"), entries(dir).size()) << out.output;
  EXPECT_EQ(count(out.output, "loaded from the disk cache"), 0u) << out.output;
}

TEST(OpenclProgramCache, ABuildFailureRaisesAnErrorCarryingTheBuildLog) {
  const std::string dir = fresh_dir("broken");
  // Redefining the program's dtype tag breaks the source the way a compiler error would.
  const Output out = run_probe("XD_CACHE_DIR=" + dir + " XD_OPENCL_BUILD_OPTIONS=-DXD_DT=xd_no_such_type", "run");
  EXPECT_EQ(out.status, 1) << out.output;
  EXPECT_NE(out.output.find("error: "), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("build log:"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("xd_no_such_type"), std::string::npos) << out.output;
  EXPECT_TRUE(!fs::exists(dir) || entries(dir).empty()) << "a failed build must not be cached";
}

TEST(OpenclProgramCache, CacheDirOffBuildsWithoutWriting) {
  const Output out = run_probe("XD_CACHE_DIR=off", "run");
  ASSERT_EQ(out.status, 0) << out.output;
  EXPECT_EQ(count(out.output, "cached as"), 0u) << out.output;
}

TEST(OpenclPlatform, WithoutAnyPlatformThePluginIsUnavailableAndCpuStillWorks) {
  const fs::path empty = fs::path(XD_TEST_CACHE_DIR).parent_path() / "xd-cache-tests" / "no-vendors";
  fs::create_directories(empty);
  const Output out = run_probe("OCL_ICD_VENDORS=" + empty.string(), "report");
  ASSERT_EQ(out.status, 0) << out.output;
  EXPECT_NE(out.output.find("opencl unavailable: no OpenCL platform"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("cpu ok"), std::string::npos) << out.output;
  const Output run = run_probe("OCL_ICD_VENDORS=" + empty.string(), "run");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_NE(run.output.find("no OpenCL platform"), std::string::npos) << run.output;
}

}  // namespace
