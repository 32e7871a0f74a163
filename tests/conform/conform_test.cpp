// xd-conform as a backend author runs it: the quick suite writes JSON and JUnit listing every
// case; a backend with deliberately broken kernels is caught, naming the case id and the worst
// index; --replay reproduces a case's inputs bit for bit; golden data passes on the CPU.
#include "mini_xml.hpp"
#include "support/run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
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

std::set<std::string> lines_of(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.insert(line);
  return out;
}

// Four ops' cases, one of them with two outputs, some unsupported: the whole quick set is
// conform.quick.cpu's, and running it twice made this the slowest test under ASan.
TEST(Conform, QuickRunWritesJsonAndJunitListingEveryCase) {
  TempDir dir;
  const std::string ops = "--quick --backend cpu --op add --op addmm --op amax --op rms_norm";
  const auto list = run("", ops + " --list");
  ASSERT_EQ(list.status, 0) << list.output;
  const std::set<std::string> ids = lines_of(list.output);
  ASSERT_EQ(ids.size(), count(list.output, "\n")) << "case ids are unique";
  ASSERT_GT(ids.size(), 500u);

  const auto r = run("", ops + " --json " + (dir / "out.json").string() + " --junit " + (dir / "out.xml").string());
  ASSERT_EQ(r.status, 0) << r.output.substr(0, 4000);
  EXPECT_NE(r.output.find("cpu pass/fail/unsup"), std::string::npos) << "the matrix is printed";

  const auto j = nlohmann::json::parse(read_file(dir / "out.json"));
  EXPECT_EQ(j["cases"].size(), ids.size());
  EXPECT_EQ(j["summary"]["failed"], 0);
  EXPECT_EQ(j["seed"], 1234);
  size_t unsupported = 0;
  for (const auto& c : j["cases"]) {
    for (const char* key : {"id", "op", "backend", "dtype", "shape", "status", "errors"})
      ASSERT_TRUE(c.contains(key)) << key << " in " << c["id"];
    EXPECT_TRUE(ids.count(c["id"].get<std::string>())) << c["id"];
    unsupported += c["status"] == "unsupported";
    // One errors entry per compared output, each within tolerance here.
    ASSERT_TRUE(c["errors"].is_array());
    ASSERT_EQ(c["errors"].size(), c["outputs"].size()) << c["id"];
    for (size_t i = 0; i < c["errors"].size(); ++i) {
      const auto& e = c["errors"][i];
      EXPECT_EQ(e["name"], c["outputs"][i]["name"]);
      EXPECT_TRUE(e["max_abs_error"].is_number()) << c["id"];
      EXPECT_TRUE(e["max_rel_error"].is_number()) << c["id"];
      EXPECT_TRUE(e["worst_index"].is_null()) << c["id"];
      EXPECT_EQ(e["message"], "") << c["id"];
    }
  }
  // The shape of a case is its output's: addmm with a broadcast bias row [11] makes a [7, 11].
  const auto* row = find_case(j, "addmm/f64/cpu/7x13x11.in_row/s1234");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ((*row)["shape"], nlohmann::json::array({7, 11}));
  EXPECT_EQ((*row)["inputs"][0]["shape"], nlohmann::json::array({11}));
  // No output when both sides raise (amax over an empty dim): no shape.
  // (The f32 amax slot holds the fast kernel and the loop: ids name the kernel.)
  const auto* raising = find_case(j, "amax/f32/cpu/cpu.amax/5x0.d1/s1234");
  ASSERT_NE(raising, nullptr);
  EXPECT_EQ((*raising)["status"], "pass");
  EXPECT_EQ((*raising)["message"], "both raise ShapeError");
  EXPECT_TRUE((*raising)["shape"].is_null());

  std::unique_ptr<xd::test::XmlElement> xml;
  try {
    xml = xd::test::XmlReader::parse(read_file(dir / "out.xml"));
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  ASSERT_EQ(xml->name, "testsuites");
  EXPECT_EQ(xml->attr("tests"), std::to_string(ids.size()));
  EXPECT_EQ(xml->attr("failures"), "0");
  EXPECT_EQ(xml->attr("skipped"), std::to_string(unsupported));
  ASSERT_EQ(xml->children.size(), 1u) << "one testsuite: the cpu backend";
  const auto& suite = *xml->children[0];
  EXPECT_EQ(suite.name, "testsuite");
  EXPECT_EQ(suite.attr("name"), "xd-conform.cpu");
  EXPECT_EQ(suite.attr("tests"), std::to_string(ids.size()));
  // The build's properties (tools_cli_test checks their values) come first, as JUnit's schema has them.
  ASSERT_FALSE(suite.children.empty());
  EXPECT_EQ(suite.children[0]->name, "properties");
  EXPECT_EQ(suite.children[0]->all("property").size(), 3u);
  std::set<std::string> names;
  size_t skipped = 0;
  for (size_t i = 1; i < suite.children.size(); ++i) {
    const auto& tc = suite.children[i];
    ASSERT_EQ(tc->name, "testcase");
    EXPECT_TRUE(names.insert(tc->attr("name")).second) << "testcase listed twice: " << tc->attr("name");
    EXPECT_TRUE(tc->all("failure").empty()) << tc->attr("name");
    skipped += tc->all("skipped").size();
  }
  EXPECT_EQ(names, ids) << "one testcase per case";
  EXPECT_EQ(skipped, unsupported);
  EXPECT_GT(unsupported, 0u) << "addmm's cpu cases include unsupported ones";
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
  TempDir dir;
  const auto r = run_broken("unwritten", "--quick --json " + (dir / "out.json").string());
  EXPECT_EQ(r.status, 1) << r.output;
  const std::string id = "add/f32/broken/13x17+13x17/s1234";
  EXPECT_NE(r.output.find("FAIL " + id + ": out: 1 of 221 elements differ; worst at [12, 16]"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("NaN where a number was expected"), std::string::npos);
  // A NaN out of place is infinitely wrong: the report must not say "max abs error 0".
  EXPECT_NE(r.output.find("(NaN where a number was expected); 1 NaN/Inf position mismatch, first at [12, 16]; "
                          "max abs error inf, max rel error inf (finite elements: 0, 0)"),
            std::string::npos)
      << r.output;
  const auto j = nlohmann::json::parse(read_file(dir / "out.json"));
  const auto* c = find_case(j, id);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ((*c)["errors"].size(), 1u);
  const auto& e = (*c)["errors"][0];
  EXPECT_EQ(e["name"], "out");
  EXPECT_EQ(e["max_abs_error"], "inf");
  EXPECT_EQ(e["max_rel_error"], "inf");
  EXPECT_EQ(e["worst_index"], nlohmann::json::array({12, 16}));
  EXPECT_NE(e["message"].get<std::string>().find("1 NaN/Inf position mismatch"), std::string::npos) << e;
  EXPECT_EQ((*c)["outputs"][0]["nonfinite_mismatches"], 1);
  EXPECT_EQ((*c)["outputs"][0]["got"], "nan");
}

TEST(Conform, BugOnlyForNonContiguousInputIsCaughtOnlyThere) {
  TempDir dir;
  const auto r = run_broken("noncontig", "--quick --json " + (dir / "out.json").string());
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = nlohmann::json::parse(read_file(dir / "out.json"));
  EXPECT_EQ((*find_case(j, "add/f32/broken/13x17+13x17/s1234"))["status"], "pass");
  EXPECT_EQ((*find_case(j, "add/f32/broken/4099+4099/s1234"))["status"], "pass");
  const std::string id = "add/f32/broken/13x17.T+13x17/s1234";
  const auto* t = find_case(j, id);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ((*t)["status"], "fail");
  // a - b instead of a + alpha * b (alpha = -0.5) is wrong everywhere; the worst element is fixed
  // by the seed's inputs.
  EXPECT_EQ((*t)["outputs"][0]["worst_index"], nlohmann::json::array({4, 2}));
  EXPECT_EQ((*t)["errors"][0]["worst_index"], nlohmann::json::array({4, 2}));
  EXPECT_NE(r.output.find("FAIL " + id + ": out: 221 of 221 elements differ; worst at [4, 2]"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("FAIL add/f32/broken/9x5.sl+9x5.T/s1234: out: 45 of 45 elements differ; worst at [1, 4]"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("FAIL add/f32/broken/1x9.ex5x9+5x9/s1234"), std::string::npos) << "stride 0: " << r.output;
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
  const std::string id = "softmax/f32/cpu/cpu.softmax/13x17.T.d-1/s99";
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
  const auto other = run("", "--replay softmax/f32/cpu/cpu.softmax/13x17.T.d-1/s100");
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
  // Every case of the manifest ran: the 88 of the shared sample and those added since. A case
  // whose CPU slot holds several kernels ran once per kernel; the slot's last kernel (the
  // reference loop, or the only kernel) ran every case.
  const auto manifest = nlohmann::json::parse(read_file(std::filesystem::path(XD_GOLDEN_DIR) / "manifest.json"));
  // The kernels in front of a slot's reference loop: the fast ones and oneDNN's.
  const auto in_front = [](const nlohmann::json& c) {
    const std::string k = c.value("kernel", "");
    return (k.size() > 5 && k.compare(k.size() - 5, 5, ".fast") == 0) || k.find(".dnnl") != std::string::npos;
  };
  size_t last_kernel = 0;
  for (const auto& c : j["cases"])
    if (!in_front(c)) ++last_kernel;
  EXPECT_EQ(last_kernel, manifest["cases"].size());
  EXPECT_GE(manifest["cases"].size(), 88u);
  EXPECT_EQ(j["summary"]["failed"], 0);
  EXPECT_GT(j["summary"]["passed"].get<int>(), 60);
  // Every golden case has a kernel and every input layout is read (the issue-6 ops included); only
  // a kernel in front of the reference loop may decline a case (the loop then passes it), e.g.
  // weight_int4_mm's oneDNN kernel a decode case of one row.
  for (const auto& c : j["cases"]) {
    if (c["status"] == "unsupported" && in_front(c)) continue;
    EXPECT_EQ(c["status"], "pass") << c["id"] << ": " << c.value("message", "");
  }
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
  // The case runs on each kernel of the CPU's add slot, and fails on each.
  for (const char* kernel : {"cpu.add.fast", "cpu.add"})
    EXPECT_NE(r.output.find(std::string("FAIL golden/add/f32/0/cpu/") + kernel + ": out: 1 of 7 elements differ; worst at [6]"),
              std::string::npos)
        << r.output;
}

TEST(Conform, MissingGoldenManifestIsAUsageErrorFoundBeforeAnyCaseRuns) {
  const auto r = run("", "--golden /nonexistent-dir --backend cpu");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("xd-conform: --golden: /nonexistent-dir/manifest.json: cannot open (is this a golden case "
                          "folder?)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("total:"), std::string::npos) << "no case ran: " << r.output;
}

TEST(Conform, MalformedGoldenManifestIsAUsageError) {
  TempDir dir;
  std::ofstream(dir / "manifest.json") << "{\"format\": \"xd-golden/1\", \"cases\": [";
  const auto r = run("", "--golden " + (dir / "").string() + " --backend cpu");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("xd-conform: --golden: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("manifest.json: "), std::string::npos) << r.output;

  std::ofstream(dir / "manifest.json", std::ios::trunc) << "{\"format\": \"other/2\", \"cases\": []}";
  const auto f = run("", "--golden " + (dir / "").string() + " --backend cpu");
  EXPECT_EQ(f.status, 2) << f.output;
  EXPECT_NE(f.output.find("format is 'other/2', expected 'xd-golden/1'"), std::string::npos) << f.output;
}

TEST(Conform, UnwritableJsonOrJunitPathIsAUsageErrorFoundBeforeAnyCaseRuns) {
  for (const char* option : {"--json", "--junit"}) {
    const auto r = run("", std::string("--quick --backend cpu ") + option + " /nonexistent-dir/out.file");
    EXPECT_EQ(r.status, 2) << option << ": " << r.output;
    EXPECT_NE(r.output.find(std::string("xd-conform: ") + option +
                            " /nonexistent-dir/out.file: cannot be written (does its folder exist, and may it be "
                            "written?)"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("total:"), std::string::npos) << "no case ran: " << r.output;
  }
  // A directory in the way cannot be written either.
  TempDir dir;
  const auto d = run("", "--quick --backend cpu --op add --json " + (dir / "").string());
  EXPECT_EQ(d.status, 2) << d.output;
  EXPECT_NE(d.output.find("cannot be written"), std::string::npos) << d.output;
}

TEST(Conform, WritableOutputPathIsNotCreatedByTheCheckAlone) {
  TempDir dir;
  // The check runs before the filters are found to select nothing: the run stops with exit 2,
  // and the file the check opened is gone again.
  const auto r = run("", "--backend cpu --op int_mm --dtype f64 --json " + (dir / "out.json").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out.json"));
}

TEST(Conform, FilterSelectingNoCaseIsAUsageError) {
  const auto r = run("", "--backend cpu --op int_mm --dtype f64");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("xd-conform: no case matches --op int_mm --dtype f64 on cpu: no kernel is registered for "
                          "that selection (xd-info lists the kernels)"),
            std::string::npos)
      << r.output;
  const auto g = run("", "--golden " XD_GOLDEN_DIR " --backend cpu --op add --dtype i64");
  EXPECT_EQ(g.status, 2) << g.output;
  EXPECT_NE(g.output.find("xd-conform: no golden case in " XD_GOLDEN_DIR " matches --op add --dtype i64 on cpu"),
            std::string::npos)
      << g.output;
}

TEST(Conform, PairTheReferenceHasAndTheBackendLacksIsReportedUnsupportedNotFailed) {
  TempDir dir;
  const auto r = run_broken("none", "--quick --op add --op mm --json " + (dir / "out.json").string() + " --junit " +
                                        (dir / "out.xml").string());
  EXPECT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(read_file(dir / "out.json"));
  // The broken backend has add for f32 only; the CPU reference has add for 8 dtypes and mm for 4.
  const auto* f16 = find_case(j, "add/f16/broken/no_kernel/s1234");
  ASSERT_NE(f16, nullptr);
  EXPECT_EQ((*f16)["status"], "unsupported");
  EXPECT_EQ((*f16)["message"], "backend 'broken' registers no add kernel for f16 (the CPU reference does)");
  const auto* mm = find_case(j, "mm/f32/broken/no_kernel/s1234");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ((*mm)["status"], "unsupported");
  EXPECT_EQ(find_case(j, "add/f32/broken/no_kernel/s1234"), nullptr) << "f32 add exists";
  EXPECT_EQ(j["summary"]["failed"], 0);
  EXPECT_EQ(j["summary"]["unsupported"], 7 + 4);
  EXPECT_NE(r.output.find("\nmm                0/0/4"), std::string::npos) << "the matrix shows the gap: " << r.output;

  const auto xml = xd::test::XmlReader::parse(read_file(dir / "out.xml"));
  EXPECT_EQ(xml->attr("failures"), "0");
  EXPECT_EQ(xml->attr("skipped"), "11");
  bool seen = false;
  for (const auto* suite : xml->all("testsuite"))
    for (const auto* tc : suite->all("testcase"))
      if (tc->attr("name") == "add/f16/broken/no_kernel/s1234") {
        seen = true;
        ASSERT_EQ(tc->all("skipped").size(), 1u);
        EXPECT_EQ(tc->all("skipped")[0]->attr("message"),
                  "backend 'broken' registers no add kernel for f16 (the CPU reference does)");
      }
  EXPECT_TRUE(seen);
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
