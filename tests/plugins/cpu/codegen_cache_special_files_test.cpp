// Anything but a regular file under a cached kernel's name: dlopen of a FIFO blocks forever and of
// a device reads it, so the plugin must never open one. Observed through codegen_probe as in
// codegen_cache_test.cpp, under `timeout` so a hang fails instead of stalling the suite; an
// XD_CXX wrapper counts the compiler runs.
#include "support/run_command.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

const char* kExpected = "y=1 4 7 10 13 16 19 22 \nstatus=0\n";

struct sandbox {
  fs::path dir, cache, log, wrapper, kernel;
  explicit sandbox(const std::string& name)
      : dir(fs::path(XD_TEST_CACHE_DIR).parent_path() / "cpu-codegen-tests" /
            ("special-" + name + "-" + std::to_string(::getpid()))),
        cache(dir / "cache"),
        log(dir / "compiles.log"),
        wrapper(dir / "cxx"),
        kernel(dir / "k.cpp") {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream w(wrapper);
    w << "#!/bin/sh\necho \"$*\" >> '" << log.string() << "'\nexec g++ \"$@\"\n";
    w.close();
    fs::permissions(wrapper, fs::perms::owner_all);
    std::ofstream(kernel) << "XD_KERNEL void k(void* const* a, long b, long e) {\n"
                             "  const float* x = (const float*)a[0]; float* y = (float*)a[1];\n"
                             "  for (long i = b; i < e; ++i) y[i] = x[i] * 3.0f + 1.0f;\n}\n";
  }
  ~sandbox() { fs::remove_all(dir); }
  xd::test::CommandResult build() const {
    return xd::test::run_command("XD_LOG=warn XD_CXX=" + wrapper.string() + " XD_CACHE_DIR=" + cache.string() +
                                 " timeout 120 " XD_CODEGEN_PROBE_BIN " build " + kernel.string());
  }
  size_t compiles() const {
    std::ifstream f(log);
    size_t n = 0;
    for (std::string line; std::getline(f, line);) ++n;
    return n;
  }
  fs::path object() const {
    for (const auto& e : fs::directory_iterator(cache / "cpu-codegen"))
      if (e.path().extension() == ".so") return e.path();
    return {};
  }
};

// Builds once, replaces the object by `make(path)`, builds again: the right result, a warning that
// names the object, one more compiler run, and (when `cached_again`) a third process that loads
// the rebuilt object without compiling.
void expect_rebuilt(const std::string& name, const std::function<void(const fs::path&)>& make, bool cached_again) {
  const sandbox s(name);
  ASSERT_NE(s.build().output.find(kExpected), std::string::npos);
  const fs::path so = s.object();
  ASSERT_FALSE(so.empty());
  fs::remove(so);
  make(so);
  const auto second = s.build();
  EXPECT_EQ(second.status, 0) << second.output;
  EXPECT_NE(second.output.find(kExpected), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("cached kernel " + so.string() + " is not a regular file; building it again"),
            std::string::npos)
      << second.output;
  EXPECT_EQ(s.compiles(), 2u);
  const auto third = s.build();
  EXPECT_NE(third.output.find(kExpected), std::string::npos) << third.output;
  EXPECT_EQ(s.compiles(), cached_again ? 2u : 3u);
}

TEST(CpuCodegenCacheFiles, FifoInPlaceOfAnObjectIsReplacedWithoutBlocking) {
  expect_rebuilt(
      "fifo", [](const fs::path& p) { ASSERT_EQ(mkfifo(p.c_str(), 0600), 0); }, true);
}

TEST(CpuCodegenCacheFiles, SymlinkToDevZeroInPlaceOfAnObjectIsReplaced) {
  expect_rebuilt(
      "devzero", [](const fs::path& p) { fs::create_symlink("/dev/zero", p); }, true);
}

TEST(CpuCodegenCacheFiles, NonEmptyDirectoryInPlaceOfAnObjectIsLeftAloneAndBuiltOutsideTheCache) {
  expect_rebuilt(
      "dir",
      [](const fs::path& p) {
        fs::create_directory(p);
        std::ofstream(p / "keep") << "x";
      },
      false);
}

}  // namespace
