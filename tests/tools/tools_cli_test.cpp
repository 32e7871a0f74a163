// What every tool does the same way (issue 18): --version prints the library version, the plugin
// ABI and the commit it was built from, the same three fields are in every JSON file a tool
// writes, a stray positional argument is a usage error naming it (the example too), and the
// progress line appears on a terminal only, never in a pipe.
#include <xd/plugin_abi.h>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Result = xd::test::CommandResult;

struct Tool {
  const char* name;
  const char* bin;
};
const std::vector<Tool> kTools = {{"xd-info", XD_INFO_BIN}, {"xd-conform", XD_CONFORM_BIN}, {"xd-bench", XD_BENCH_BIN}};

Result run(const std::string& program, const std::string& args) {
  return xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES -u XD_PLUGIN_PATH -u XD_FALLBACK " + program + " " +
                               args);
}

std::string abi_text() { return std::to_string(XD_ABI_MAJOR) + "." + std::to_string(XD_ABI_MINOR); }

// The commit as git sees it in the source tree, found here independently of the build's header;
// "unknown" when the sources are not a git checkout (or git is missing).
std::string source_commit() {
  const Result r = xd::test::run_command("git -C '" XD_SOURCE_DIR "' rev-parse --short=12 HEAD");
  if (r.status != 0) return "unknown";
  std::string c = r.output;
  while (!c.empty() && (c.back() == '\n' || c.back() == '\r')) c.pop_back();
  return c;
}

// The commit field must name the source tree's HEAD (with "-dirty" when tracked files differ).
void expect_commit(const std::string& commit) {
  const std::string head = source_commit();
  if (head == "unknown") {
    EXPECT_EQ(commit, "unknown");
    return;
  }
  EXPECT_TRUE(commit == head || commit == head + "-dirty") << "commit '" << commit << "', HEAD " << head;
}

void expect_build_json(const nlohmann::json& j) {
  ASSERT_TRUE(j.contains("xdispatch")) << j.dump().substr(0, 400);
  EXPECT_EQ(j["xdispatch"]["version"], XD_EXPECTED_VERSION);
  EXPECT_EQ(j["xdispatch"]["plugin_abi"], abi_text());
  ASSERT_TRUE(j["xdispatch"]["commit"].is_string());
  expect_commit(j["xdispatch"]["commit"].get<std::string>());
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

std::string read_text(const std::string& path) { return xd::test::read_file_text(path); }

// A scratch folder of this test (support/temp_dir.hpp).
struct TempDir : xd::test::TempDir {
  TempDir() : xd::test::TempDir("xd-tools-cli-test") {}
};

TEST(ToolsCli, VersionPrintsTheLibraryVersionPluginAbiAndCommitAndExitsZero) {
  for (const Tool& t : kTools) {
    const Result r = run(t.bin, "--version");
    ASSERT_EQ(r.status, 0) << t.name << ": " << r.output;
    std::istringstream lines(r.output);
    std::string first, abi, commit, extra;
    std::getline(lines, first);
    std::getline(lines, abi);
    std::getline(lines, commit);
    EXPECT_EQ(first, std::string(t.name) + " (xdispatch) " XD_EXPECTED_VERSION) << r.output;
    EXPECT_EQ(abi, "plugin ABI " + abi_text()) << r.output;
    ASSERT_EQ(commit.rfind("commit ", 0), 0u) << r.output;
    expect_commit(commit.substr(7));
    EXPECT_FALSE(std::getline(lines, extra)) << t.name << " printed more than the three fields: " << r.output;
  }
}

// --version reads nothing of the environment: it works where a bad setting stops everything else.
TEST(ToolsCli, VersionWorksWhateverXdBackendSays) {
  for (const Tool& t : kTools) {
    const Result r = xd::test::run_command(std::string("env XD_BACKEND=nosuch ") + t.bin + " --version");
    EXPECT_EQ(r.status, 0) << t.name << ": " << r.output;
    EXPECT_NE(r.output.find("plugin ABI " + abi_text()), std::string::npos) << r.output;
  }
}

TEST(ToolsCli, AStrayPositionalArgumentIsAUsageErrorNamingIt) {
  const std::vector<std::pair<std::string, std::string>> cases = {{XD_INFO_BIN, "stray1"},
                                                                  {XD_INFO_BIN, "--json stray1"},
                                                                  {XD_INFO_BIN, "--version stray1"},
                                                                  {XD_CONFORM_BIN, "--quick stray1"},
                                                                  {XD_CONFORM_BIN, "--version stray1"},
                                                                  {XD_BENCH_BIN, "--op add stray1"},
                                                                  {XD_BENCH_BIN, "--version stray1"}};
  for (const auto& [bin, args] : cases) {
    const Result r = run(bin, args);
    EXPECT_EQ(r.status, 2) << bin << " " << args << ": " << r.output;
    EXPECT_NE(r.output.find("unexpected argument 'stray1'"), std::string::npos)
        << bin << " " << args << ": " << r.output;
  }
}

TEST(ToolsCli, TheExampleRejectsAFifthArgumentAndOneThatIsNotANumber) {
  Result r = run(LLAMA_MLP_BIN, "4 8 8 1 stray1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("unexpected argument 'stray1'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("llama_mlp: OK"), std::string::npos) << "it ran: " << r.output;

  for (const char* bad : {"8x", "-1", "0", "abc", "''", "99999999999999999999"}) {
    r = run(LLAMA_MLP_BIN, std::string("4 ") + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("llama_mlp: hidden '"), std::string::npos) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("is not a whole number from 1 to"), std::string::npos) << bad << ": " << r.output;
  }
  r = run(LLAMA_MLP_BIN, "4 8 8 1");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(ToolsCli, XdInfoJsonNamesTheBuild) {
  const Result r = run(XD_INFO_BIN, "--json 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  expect_build_json(nlohmann::json::parse(r.output));
}

TEST(ToolsCli, XdBenchJsonNamesTheBuild) {
  TempDir dir;
  const Result r =
      run(XD_BENCH_BIN, "--backend cpu --op add --size 64 --reps 1 --warmup 0 --copy-mib 1 --json " + (dir / "b.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  expect_build_json(read_json(dir / "b.json"));
}

TEST(ToolsCli, XdConformJsonAndJunitNameTheBuild) {
  TempDir dir;
  const Result r = run(XD_CONFORM_BIN, "--backend cpu --quick --op add --dtype f32 --json " + (dir / "c.json") +
                                           " --junit " + (dir / "c.xml"));
  ASSERT_EQ(r.status, 0) << r.output;
  expect_build_json(read_json(dir / "c.json"));
  const std::string xml = read_text(dir / "c.xml");
  EXPECT_NE(xml.find("<property name=\"xdispatch.version\" value=\"" XD_EXPECTED_VERSION "\"/>"), std::string::npos)
      << xml.substr(0, 800);
  EXPECT_NE(xml.find("<property name=\"xdispatch.plugin_abi\" value=\"" + abi_text() + "\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"xdispatch.commit\" value=\""), std::string::npos);
}

// The progress line is for people at a terminal: in a pipe (a CI log) not one byte of it.
TEST(ToolsCli, NoProgressLineWhenStderrIsNotATerminal) {
  const Result bench = run(XD_BENCH_BIN, "--backend cpu --op add --op sum --size 64 --reps 1 --warmup 0 --copy-mib 1");
  ASSERT_EQ(bench.status, 0) << bench.output;
  const Result conform = run(XD_CONFORM_BIN, "--backend cpu --quick --op add --dtype f32");
  ASSERT_EQ(conform.status, 0) << conform.output;
  for (const Result* r : {&bench, &conform}) {
    EXPECT_EQ(r->output.find('\r'), std::string::npos) << r->output;
    EXPECT_EQ(r->output.find("\033[K"), std::string::npos) << r->output;
  }
}

// On a terminal (script(1) gives the tools a pseudo-terminal), the line shows [i/n] and is cleared.
TEST(ToolsCli, ProgressLineOnATerminalIsDrawnAndCleared) {
  if (xd::test::run_command("command -v script").status != 0) GTEST_SKIP() << "script(1) (util-linux) is missing";
  TempDir dir;
  const std::string log = dir / "tty.log";
  const std::vector<std::string> commands = {
      std::string(XD_BENCH_BIN) + " --backend cpu --op add --op sum --size 64 --reps 1 --warmup 0 --copy-mib 1",
      std::string(XD_CONFORM_BIN) + " --backend cpu --quick --op add --dtype f32"};
  for (const std::string& c : commands) {
    const Result r = xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES script -qefc '" + c + "' " + log);
    ASSERT_EQ(r.status, 0) << c << ": " << r.output;
    const std::string tty = read_text(log);
    const size_t first = tty.find("\r\033[K[1/");
    EXPECT_NE(first, std::string::npos) << c << ": " << tty;
    const size_t last_draw = tty.rfind("\r\033[K[");
    const size_t cleared = tty.rfind("\r\033[K");
    EXPECT_GT(cleared, last_draw) << c << ": the last progress line is not cleared: " << tty;
  }
}

}  // namespace
