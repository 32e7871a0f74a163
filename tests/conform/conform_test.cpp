// xd-conform as a backend author runs it: the quick suite writes JSON and JUnit listing every
// case; a backend with deliberately broken kernels is caught, naming the case id and the worst
// index; --replay reproduces a case's inputs bit for bit; golden data passes on the CPU.
#include "support/run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

using Result = xd::test::CommandResult;

Result run(const std::string& env, const std::string& args) {
  return xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES -u XD_PLUGIN_PATH -u XD_FALLBACK -u XD_BROKEN_MODE " +
                               env + " " XD_CONFORM_BIN " " + args);
}

// Runs xd-conform on the broken backend with one bug switched on.
Result run_broken(const std::string& mode, const std::string& args) {
  return run("XD_PLUGIN_PATH=" XD_BROKEN_DIR " XD_BROKEN_MODE=" + mode, "--backend broken " + args);
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("xd-conform-test-" + std::to_string(getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

const nlohmann::json* find_case(const nlohmann::json& j, const std::string& id) {
  for (const auto& c : j["cases"])
    if (c["id"] == id) return &c;
  return nullptr;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(Conform, QuickRunWritesJsonAndJunitListingEveryCase) {
  TempDir dir;
  const auto list = run("", "--quick --backend cpu --list");
  ASSERT_EQ(list.status, 0) << list.output;
  const size_t cases = count(list.output, "\n");
  ASSERT_GT(cases, 1000u);

  const auto r = run("", "--quick --backend cpu --json " + (dir / "out.json").string() + " --junit " +
                             (dir / "out.xml").string());
  ASSERT_EQ(r.status, 0) << r.output.substr(0, 4000);
  EXPECT_NE(r.output.find("cpu pass/fail/unsup"), std::string::npos) << "the matrix is printed";
  const auto j = nlohmann::json::parse(read_file(dir / "out.json"));
  EXPECT_EQ(j["cases"].size(), cases);
  EXPECT_EQ(j["summary"]["failed"], 0);
  EXPECT_EQ(j["seed"], 1234);
  for (const auto& c : j["cases"])
    for (const char* key : {"id", "op", "backend", "dtype", "shape", "status"}) ASSERT_TRUE(c.contains(key)) << key;
  const std::string xml = read_file(dir / "out.xml");
  EXPECT_EQ(xml.rfind("<?xml", 0), 0u);
  EXPECT_EQ(count(xml, "<testcase "), cases);
  EXPECT_EQ(count(xml, "<testsuites"), 1u);
  EXPECT_EQ(count(xml, "</testsuites>"), 1u);
  EXPECT_EQ(count(xml, "<testsuite "), count(xml, "</testsuite>"));
}

TEST(Conform, CorrectKernelOnTheBrokenBackendPasses) {
  const auto r = run_broken("none", "--quick");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("add"), std::string::npos);
}

TEST(Conform, WrongValueInOneElementIsCaughtWithCaseIdAndWorstIndex) {
  TempDir dir;
  const auto r = run_broken("value", "--quick --json " + (dir / "out.json").string());
  EXPECT_EQ(r.status, 1) << r.output;
  const std::string id = "add/f32/broken/13x17+13x17/s1234";
  EXPECT_NE(r.output.find("FAIL " + id + ": out: 1 of 221 elements differ; worst at [0, 5]"), std::string::npos)
      << r.output;
  const auto j = nlohmann::json::parse(read_file(dir / "out.json"));
  const auto* c = find_case(j, id);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["status"], "fail");
  EXPECT_EQ((*c)["outputs"][0]["worst_index"], nlohmann::json::array({0, 5}));
  EXPECT_NEAR((*c)["outputs"][0]["max_abs_error"].get<double>(), 0.5, 1e-6);
  // Outputs with five or fewer elements have no element 5: those cases pass.
  EXPECT_EQ((*find_case(j, "add/f32/broken/scalar+scalar/s1234"))["status"], "pass");
}

TEST(Conform, ElementLeftUnwrittenIsCaughtThroughPoisoning) {
  const auto r = run_broken("unwritten", "--quick");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL add/f32/broken/13x17+13x17/s1234: out: 1 of 221 elements differ; worst at [12, 16]"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("NaN where a number was expected"), std::string::npos);
}

TEST(Conform, BugOnlyForNonContiguousInputIsCaughtOnlyThere) {
  TempDir dir;
  const auto r = run_broken("noncontig", "--quick --json " + (dir / "out.json").string());
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = nlohmann::json::parse(read_file(dir / "out.json"));
  EXPECT_EQ((*find_case(j, "add/f32/broken/13x17+13x17/s1234"))["status"], "pass");
  EXPECT_EQ((*find_case(j, "add/f32/broken/4099+4099/s1234"))["status"], "pass");
  const auto* t = find_case(j, "add/f32/broken/13x17.T+13x17/s1234");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ((*t)["status"], "fail");
  EXPECT_TRUE((*t)["outputs"][0].contains("worst_index"));
  EXPECT_NE(r.output.find("FAIL add/f32/broken/9x5.sl+9x5.T/s1234"), std::string::npos) << r.output;
}

TEST(Conform, KernelReachedByNoCaseFailsTheCoverageGate) {
  const auto r = run("XD_PLUGIN_PATH=" XD_BROKEN_DIR " XD_BROKEN_EXTRA=1", "--backend broken --quick");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("UNCOVERED broken.add.never (add, broken, f32)"), std::string::npos) << r.output;
  // broken.add itself passes every case it is isolated on.
  EXPECT_EQ(r.output.find("FAIL add/f32/broken/broken.add/"), std::string::npos) << r.output;
}

TEST(Conform, ReplayReproducesTheInputsBitForBit) {
  TempDir dir;
  const std::string id = "softmax/f32/cpu/13x17.T.d-1/s99";
  const auto r = run("", "--backend cpu --op softmax --dtype f32 --seed 99 --json " + (dir / "out.json").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(read_file(dir / "out.json"));
  const auto* c = find_case(j, id);
  ASSERT_NE(c, nullptr) << "ids: " << j["cases"][0]["id"];
  const std::string hash = (*c)["inputs"][0]["fnv1a"];

  const auto a = run("", "--replay " + id + " --dump " + (dir / "a").string());
  const auto b = run("", "--replay " + id + " --dump " + (dir / "b").string());
  ASSERT_EQ(a.status, 0) << a.output;
  EXPECT_NE(a.output.find("fnv1a " + hash), std::string::npos) << a.output;
  EXPECT_NE(a.output.find("strides [1, 13]"), std::string::npos) << "the transposed layout is reproduced: " << a.output;
  EXPECT_EQ(read_file(dir / "a" / "self.npy"), read_file(dir / "b" / "self.npy"));
  EXPECT_EQ(read_file(dir / "a" / "self.npy").size(), 128u + 13 * 17 * 4);

  // Another seed gives other inputs.
  const auto other = run("", "--replay softmax/f32/cpu/13x17.T.d-1/s100");
  ASSERT_EQ(other.status, 0) << other.output;
  EXPECT_EQ(other.output.find("fnv1a " + hash), std::string::npos);
}

TEST(Conform, EveryCaseIdCarriesTheSeed) {
  const auto r = run("", "--quick --backend cpu --seed 77 --list");
  ASSERT_EQ(r.status, 0);
  std::istringstream lines(r.output);
  std::string line;
  size_t n = 0;
  while (std::getline(lines, line)) {
    ASSERT_GE(line.size(), 4u);
    EXPECT_EQ(line.substr(line.size() - 4), "/s77") << line;
    ++n;
  }
  EXPECT_GT(n, 1000u);
}

TEST(Conform, GoldenSamplePassesOnTheCpuReference) {
  TempDir dir;
  const auto r = run("", "--golden " XD_GOLDEN_DIR " --backend cpu --json " + (dir / "g.json").string());
  EXPECT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(read_file(dir / "g.json"));
  EXPECT_EQ(j["mode"], "golden");
  EXPECT_EQ(j["cases"].size(), 88u);
  EXPECT_EQ(j["summary"]["failed"], 0);
  EXPECT_GT(j["summary"]["passed"].get<int>(), 60);
  // Every golden case has a kernel and every input layout is read (the issue-6 ops included).
  EXPECT_EQ(j["summary"]["unsupported"], 0);
  for (const auto& c : j["cases"]) EXPECT_EQ(c["status"], "pass") << c["id"] << ": " << c.value("message", "");
}

TEST(Conform, GoldenCaseWithAWrongExpectedValueFails) {
  TempDir dir;
  const fs::path golden = dir / "golden";
  fs::create_directories(golden);
  for (const auto& e : fs::directory_iterator(XD_GOLDEN_DIR)) fs::copy(e.path(), golden / e.path().filename());
  // Flip a bit of the last float of the expected output of add/f32/0 (shape [7]).
  const fs::path out = golden / "add_f32_0.out.out.npy";
  std::string bytes = read_file(out);
  bytes[bytes.size() - 2] = static_cast<char>(bytes[bytes.size() - 2] ^ 0x40);
  std::ofstream(out, std::ios::binary | std::ios::trunc) << bytes;
  const auto r = run("", "--golden " + golden.string() + " --backend cpu --op add");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL golden/add/f32/0/cpu: out: 1 of 7 elements differ; worst at [6]"), std::string::npos)
      << r.output;
}

TEST(Conform, MissingGoldenManifestIsAnError) {
  const auto r = run("", "--golden /nonexistent-dir --backend cpu");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("manifest.json: cannot open"), std::string::npos) << r.output;
}

TEST(Conform, UnknownBackendIsAUsageErrorNamingTheAvailableOnes) {
  const auto r = run("", "--backend nosuch --quick");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("backend 'nosuch' is not available"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("available: cpu"), std::string::npos) << r.output;
}

TEST(Conform, UnknownOptionDtypeOrOpIsAUsageError) {
  EXPECT_EQ(run("", "--frobnicate").status, 2);
  const auto d = run("", "--dtype f33");
  EXPECT_EQ(d.status, 2);
  EXPECT_NE(d.output.find("f33"), std::string::npos);
  const auto o = run("", "--op nosuchop");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.output.find("unknown op 'nosuchop'"), std::string::npos);
  const auto id = run("", "--replay not-a-case-id");
  EXPECT_EQ(id.status, 2);
  EXPECT_NE(id.output.find("is not a case id"), std::string::npos);
}

}  // namespace
