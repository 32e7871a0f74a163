// The codegen cache and the compiler probe across processes: codegen_probe (XD_CODEGEN_PROBE_BIN)
// runs under the environment each test sets, since the plugin reads XD_CXX and XD_CACHE_DIR once
// per process. XD_CXX names a wrapper that logs each compilation, so the tests count compiler runs.
#include "support/run_command.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

// A fresh folder of the build tree for one test.
fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::path(XD_TEST_CACHE_DIR).parent_path() / "cpu-codegen-tests" / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

struct sandbox {
  fs::path dir, cache, log, wrapper, kernel;
  explicit sandbox(const std::string& name, const std::string& body = "y[i] = x[i] * 3.0f + 1.0f;")
      : dir(fresh_dir(name)),
        cache(dir / "cache"),
        log(dir / "compiles.log"),
        wrapper(dir / "cxx"),
        kernel(dir / "k.cpp") {
    std::ofstream w(wrapper);
    w << "#!/bin/sh\necho \"$*\" >> '" << log.string() << "'\nexec g++ \"$@\"\n";
    w.close();
    fs::permissions(wrapper, fs::perms::owner_all);
    std::ofstream k(kernel);
    k << "XD_KERNEL void k(void* const* a, long b, long e) {\n"
         "  const float* x = (const float*)a[0]; float* y = (float*)a[1];\n"
         "  for (long i = b; i < e; ++i) "
      << body << "\n}\n";
  }
  std::string env() const { return "XD_LOG=error XD_CXX=" + wrapper.string() + " XD_CACHE_DIR=" + cache.string(); }
  xd::test::CommandResult probe(const std::string& args, const std::string& extra_env = "") const {
    return xd::test::run_command(env() + " " + extra_env + " " XD_CODEGEN_PROBE_BIN " " + args);
  }
  xd::test::CommandResult build() const { return probe("build " + kernel.string()); }
  size_t compiles() const {
    std::ifstream f(log);
    size_t n = 0;
    for (std::string line; std::getline(f, line);) ++n;
    return n;
  }
  std::vector<fs::path> objects() const {
    std::vector<fs::path> out;
    if (fs::exists(cache / "cpu-codegen"))
      for (const auto& e : fs::directory_iterator(cache / "cpu-codegen"))
        if (e.path().extension() == ".so") out.push_back(e.path());
    return out;
  }
};

const char* kExpected = "y=1 4 7 10 13 16 19 22 \nstatus=0\n";

TEST(CpuCodegenCache, ASecondProcessLoadsTheKernelWithoutCompiling) {
  const sandbox s("warm");
  const auto first = s.build();
  EXPECT_NE(first.output.find(kExpected), std::string::npos) << first.output;
  EXPECT_EQ(s.compiles(), 1u);
  ASSERT_EQ(s.objects().size(), 1u);
  const auto second = s.build();
  EXPECT_NE(second.output.find(kExpected), std::string::npos) << second.output;
  EXPECT_EQ(s.compiles(), 1u) << "the warm cache ran the compiler again";
  // Another source is another object.
  const sandbox other("warm-other", "y[i] = x[i] - 1.0f;");
  const auto third = s.probe("build " + other.kernel.string());
  EXPECT_NE(third.output.find("y=-1 0 1 2 3 4 5 6 \nstatus=0"), std::string::npos) << third.output;
  EXPECT_EQ(s.compiles(), 2u);
  EXPECT_EQ(s.objects().size(), 2u);
}

TEST(CpuCodegenCache, ADamagedCachedObjectIsRebuilt) {
  const sandbox s("damaged");
  ASSERT_NE(s.build().output.find(kExpected), std::string::npos);
  const auto objects = s.objects();
  ASSERT_EQ(objects.size(), 1u);
  std::ofstream(objects[0], std::ios::trunc) << "not an ELF object";
  const auto again = s.build();
  EXPECT_NE(again.output.find(kExpected), std::string::npos) << again.output;
  EXPECT_EQ(s.compiles(), 2u);
  const auto third = s.build();  // the rebuilt object is used from then on
  EXPECT_NE(third.output.find(kExpected), std::string::npos) << third.output;
  EXPECT_EQ(s.compiles(), 2u);
}

TEST(CpuCodegenCache, TwoProcessesBuildingOneSourceAtOnceBothSucceed) {
  const sandbox s("race");
  const std::string one = s.env() + " " XD_CODEGEN_PROBE_BIN " build " + s.kernel.string();
  const auto both = xd::test::run_command("(" + one + " > " + (s.dir / "a.out").string() + " 2>&1 & " + one + " > " +
                                          (s.dir / "b.out").string() + " 2>&1 & wait)");
  ASSERT_EQ(both.status, 0) << both.output;
  for (const char* out : {"a.out", "b.out"}) {
    std::stringstream text;
    text << std::ifstream(s.dir / out).rdbuf();
    EXPECT_NE(text.str().find(kExpected), std::string::npos) << out << ": " << text.str();
  }
  EXPECT_EQ(s.objects().size(), 1u);
  EXPECT_GE(s.compiles(), 1u);
  EXPECT_LE(s.compiles(), 2u);
}

TEST(CpuCodegenCache, CacheOffBuildsInATemporaryFolderEveryTime) {
  const sandbox s("off");
  for (int i = 0; i < 2; ++i) {
    const auto r = s.probe("build " + s.kernel.string(), "XD_CACHE_DIR=off");
    EXPECT_NE(r.output.find(kExpected), std::string::npos) << r.output;
  }
  EXPECT_EQ(s.compiles(), 2u);
  EXPECT_FALSE(fs::exists(s.cache));
}

TEST(CpuCodegenCache, NoCompilerMakesCodegenUnavailableWithTheReason) {
  const sandbox s("nocxx");
  const auto r = s.probe("target", "XD_CXX=/nonexistent/c++");
  EXPECT_NE(r.output.find("status=3\n"), std::string::npos) << r.output;  // XD_ERR_UNAVAILABLE
  EXPECT_NE(r.output.find("codegen unavailable: no C++ compiler (set XD_CXX or install g++)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("/nonexistent/c++"), std::string::npos) << r.output;
  // Nothing on PATH either (the probe is run by absolute path).
  const auto none = s.probe("target", "XD_CXX= PATH=" + s.dir.string());
  EXPECT_NE(none.output.find("status=3\n"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("none of c++, g++, clang++ is on PATH"), std::string::npos) << none.output;
}

TEST(CpuCodegenCache, TargetNamesTheCompilerItFoundWithoutRunningIt) {
  const sandbox s("identity");
  const auto r = s.probe("target");
  EXPECT_NE(r.output.find("status=0\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("compiler=" + s.wrapper.string()), std::string::npos) << r.output;
  EXPECT_EQ(s.compiles(), 0u);
  const auto by_name = s.probe("target", "XD_CXX=g++");
  EXPECT_NE(by_name.output.find("status=0\n"), std::string::npos) << by_name.output;
  std::string gxx = xd::test::run_command("command -v g++").output;
  gxx = gxx.substr(0, gxx.find('\n'));
  EXPECT_NE(by_name.output.find(gxx), std::string::npos) << by_name.output << " vs " << gxx;
}

}  // namespace
