// Cache entries that are not regular files, or are absurdly large, observed through opencl_probe
// (XD_PROBE_BIN) with XD_LOG=debug as in program_cache_test.cpp: a FIFO must not block the open, a
// symlink to /dev/zero or a 20 GB sparse file must not be read, a directory must not break the
// rebuild. Each is rejected with a reason in the log, the program is rebuilt, and the next process
// loads the rebuilt entry. The probe runs under `timeout`, so a hang fails instead of stalling.
#include "test_util.hpp"

#include "support/run_command.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

using Output = xd::test::CommandResult;

Output run_probe(const std::string& dir) {
  const std::string cmd = "XD_CACHE_DIR=" + dir + " XD_LOG=debug timeout 120 " XD_PROBE_BIN " run";
  return xd::test::run_command(cmd);
}

size_t count(const std::string& text, const std::string& what) { return xd::test::count_occurrences(text, what); }

// A cache folder in the build tree, filled by one run of the probe; returns its entries.
std::vector<fs::path> warm_cache(const std::string& name, std::string& dir) {
  dir =
      (fs::path(XD_TEST_CACHE_DIR).parent_path() / "xd-cache-tests" / (name + "-" + std::to_string(getpid()))).string();
  fs::remove_all(dir);
  const Output first = run_probe(dir);
  EXPECT_EQ(first.status, 0) << first.output;
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".bin") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Replaces the first entry by `make(path)`, runs the probe, and checks that the entry was rejected
// for `reason`, rebuilt, and that a third process loads it from the cache again.
void expect_rejected_and_rebuilt(const std::string& name, const std::function<void(const fs::path&)>& make,
                                 const std::string& reason, bool cached_again = true) {
  std::string dir;
  const std::vector<fs::path> files = warm_cache(name, dir);
  ASSERT_GE(files.size(), 1u);
  fs::remove(files[0]);
  make(files[0]);
  const Output out = run_probe(dir);
  ASSERT_EQ(out.status, 0) << out.output;
  EXPECT_EQ(count(out.output, "cache entry " + files[0].string() + " rejected: " + reason + "; rebuilding it"), 1u)
      << out.output;
  EXPECT_EQ(count(out.output, "built from source"), 1u) << out.output;
  const Output again = run_probe(dir);
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(count(again.output, "built from source"), cached_again ? 0u : 1u) << again.output;
  fs::remove_all(dir);
}

TEST(OpenclProgramCacheFiles, FifoEntryIsRejectedAndRebuiltWithoutBlocking) {
  expect_rejected_and_rebuilt(
      "fifo", [](const fs::path& p) { ASSERT_EQ(mkfifo(p.c_str(), 0600), 0); }, "is a FIFO, not a regular file");
}

TEST(OpenclProgramCacheFiles, EntrySymlinkedToDevZeroIsRejectedWithoutReading) {
  expect_rejected_and_rebuilt(
      "devzero", [](const fs::path& p) { fs::create_symlink("/dev/zero", p); },
      "is a character device, not a regular file");
}

TEST(OpenclProgramCacheFiles, TwentyGigabyteSparseEntryIsRejectedWithoutReading) {
  expect_rejected_and_rebuilt(
      "sparse",
      [](const fs::path& p) {
        std::ofstream(p, std::ios::binary) << "XDCLBIN1";
        fs::resize_file(p, uint64_t{20} << 30);
      },
      "is 21474836480 bytes, more than the limit of 268435456 bytes");
}

TEST(OpenclProgramCacheFiles, EmptyDirectoryEntryIsRejectedAndReplaced) {
  expect_rejected_and_rebuilt(
      "emptydir", [](const fs::path& p) { fs::create_directory(p); }, "is a directory, not a regular file");
}

TEST(OpenclProgramCacheFiles, NonEmptyDirectoryEntryIsRejectedAndLeftAlone) {
  // Never deleted recursively: the program is rebuilt in every process and the log says why it
  // is not cached.
  expect_rejected_and_rebuilt(
      "fulldir",
      [](const fs::path& p) {
        fs::create_directory(p);
        std::ofstream(p / "keep") << "x";
      },
      "is a directory, not a regular file", /*cached_again=*/false);
}

TEST(OpenclProgramCacheFiles, EmptyFileEntryIsRejectedAndRebuilt) {
  expect_rejected_and_rebuilt(
      "empty", [](const fs::path& p) { std::ofstream(p, std::ios::binary); }, "not a cache entry (bad header)");
}

}  // namespace
