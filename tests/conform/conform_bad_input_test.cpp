// xd-conform given bad arguments and bad golden files: each is a usage error (exit status 2)
// found before any case runs, with a message naming the option or the file, the field and the
// problem; none hangs (a FIFO), exhausts memory (/dev/zero, a 20 GB sparse file) or overflows the
// stack (150,000 nested arrays). Every command runs under `timeout`, so a hang fails the test
// instead of stalling the suite.
#include "support/run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Result = xd::test::CommandResult;

Result run(const std::string& args) {
  return xd::test::run_command(
      "env -u XD_BACKEND -u XD_DEVICES -u XD_PLUGIN_PATH -u XD_FALLBACK timeout 60 " XD_CONFORM_BIN " " + args);
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// A golden folder holding one case of the sample set, add/f32/0 (self, other -> out, shape [7]),
// whose manifest and files a test then breaks.
class GoldenDir {
 public:
  GoldenDir() {
    path_ = fs::temp_directory_path() / ("xd-conform-bad-" + std::to_string(getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
    const json sample = json::parse(read_file(fs::path(XD_GOLDEN_DIR) / "manifest.json"));
    for (const json& c : sample["cases"])
      if (c["id"] == "add/f32/0") case_ = c;
    for (const char* list : {"inputs", "outputs"})
      for (const json& t : case_[list])
        fs::copy_file(fs::path(XD_GOLDEN_DIR) / t["file"].get<std::string>(), path_ / t["file"].get<std::string>());
    save();
  }
  ~GoldenDir() { fs::remove_all(path_); }

  json& the_case() { return case_; }
  void save() const { write_file(path_ / "manifest.json", json{{"format", "xd-golden/1"}, {"cases", {case_}}}.dump()); }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  std::string str() const { return path_.string(); }
  // Runs xd-conform on this folder.
  Result conform() const { return run("--golden " + str() + " --backend cpu"); }

 private:
  fs::path path_;
  json case_;
};

// The usage-error shape every bad input must have: exit status 2, the message, no case ran.
void expect_usage_error(const Result& r, const std::string& message) {
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << "expected: " << message << "\ngot: " << r.output;
  EXPECT_EQ(r.output.find("total:"), std::string::npos) << "no case may run: " << r.output;
}

// An .npy header (format 1.0) with `dict` and `payload` bytes of data.
std::string npy(const std::string& dict, size_t payload) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + std::string(payload, '\0');
}

// ---- the manifest as a special file ----

TEST(ConformGoldenFiles, ManifestThatIsAFifoIsAUsageErrorNotAHang) {
  GoldenDir g;
  fs::remove(g / "manifest.json");
  ASSERT_EQ(mkfifo((g / "manifest.json").c_str(), 0600), 0);
  expect_usage_error(g.conform(), "--golden: " + (g / "manifest.json").string() + ": is a FIFO, not a regular file");
}

TEST(ConformGoldenFiles, ManifestSymlinkedToDevZeroIsAUsageErrorNotEndlessReading) {
  GoldenDir g;
  fs::remove(g / "manifest.json");
  fs::create_symlink("/dev/zero", g / "manifest.json");
  expect_usage_error(g.conform(), (g / "manifest.json").string() + ": is a character device, not a regular file");
}

TEST(ConformGoldenFiles, TwentyGigabyteSparseManifestIsRejectedBeforeAnyRead) {
  GoldenDir g;
  fs::resize_file(g / "manifest.json", uint64_t{20} << 30);
  expect_usage_error(g.conform(),
                     (g / "manifest.json").string() + ": is 21474836480 bytes, more than the limit of 67108864 bytes");
}

TEST(ConformGoldenFiles, DirectoryInPlaceOfTheManifestIsAUsageError) {
  GoldenDir g;
  fs::remove(g / "manifest.json");
  fs::create_directory(g / "manifest.json");
  expect_usage_error(g.conform(), (g / "manifest.json").string() + ": is a directory, not a regular file");
}

TEST(ConformGoldenFiles, ManifestNested150000LevelsDeepIsRejectedNamingTheDepth) {
  GoldenDir g;
  const std::string deep = std::string(150000, '[') + std::string(150000, ']');
  write_file(g / "manifest.json",
             R"({"format": "xd-golden/1", "cases": [{"id": "deep", "op": "add", "dtype": "f32", "attrs": {"alpha": )" +
                 deep + R"(}, "inputs": [], "outputs": []}]})");
  expect_usage_error(g.conform(),
                     (g / "manifest.json").string() + ": JSON nested more than 64 levels deep (arrays and objects)");
}

TEST(ConformGoldenFiles, ManifestThatIsNotAnObjectIsAUsageError) {
  GoldenDir g;
  write_file(g / "manifest.json", "[1, 2]");
  expect_usage_error(g.conform(), (g / "manifest.json").string() + ": must be a JSON object, got [1,2] (an array)");
}

// ---- a golden .npy as a special file ----

TEST(ConformGoldenFiles, NpyThatIsAFifoIsAUsageErrorNamingTheCaseAndFile) {
  GoldenDir g;
  fs::remove(g / "add_f32_0.in.self.npy");
  ASSERT_EQ(mkfifo((g / "add_f32_0.in.self.npy").c_str(), 0600), 0);
  expect_usage_error(g.conform(), (g / "manifest.json").string() + ": cases[0] (id 'add/f32/0'): inputs[0]: " +
                                      (g / "add_f32_0.in.self.npy").string() + ": is a FIFO, not a regular file");
}

TEST(ConformGoldenFiles, NpySymlinkedToDevZeroIsAUsageError) {
  GoldenDir g;
  fs::remove(g / "add_f32_0.in.other.npy");
  fs::create_symlink("/dev/zero", g / "add_f32_0.in.other.npy");
  expect_usage_error(g.conform(),
                     (g / "add_f32_0.in.other.npy").string() + ": is a character device, not a regular file");
}

TEST(ConformGoldenFiles, TwentyGigabyteSparseNpyIsRejectedBeforeAnyRead) {
  GoldenDir g;
  fs::resize_file(g / "add_f32_0.out.out.npy", uint64_t{20} << 30);
  expect_usage_error(g.conform(), (g / "add_f32_0.out.out.npy").string() +
                                      ": is 21474836480 bytes, more than the limit of 1073741824 bytes");
}

TEST(ConformGoldenFiles, DirectoryInPlaceOfAnNpyIsAUsageError) {
  GoldenDir g;
  fs::remove(g / "add_f32_0.in.self.npy");
  fs::create_directory(g / "add_f32_0.in.self.npy");
  expect_usage_error(g.conform(), (g / "add_f32_0.in.self.npy").string() + ": is a directory, not a regular file");
}

// ---- a golden .npy whose header lies or is malformed ----

TEST(ConformGoldenNpy, ShapeWhoseByteCountOverflowsIsRejected) {
  GoldenDir g;
  // 2^32 x 2^32 x 4 bytes wraps to 0 in 64 bits: an empty payload would pass a wrapping check.
  write_file(g / "add_f32_0.in.self.npy",
             npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 0));
  expect_usage_error(g.conform(), (g / "add_f32_0.in.self.npy").string() +
                                      ": not a usable .npy file: 'shape' (4294967296, 4294967296) with itemsize 4 "
                                      "needs more than 2^64 bytes");
}

TEST(ConformGoldenNpy, ShapeWithAFloatIsRejected) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3.5,), }", 12));
  expect_usage_error(g.conform(),
                     (g / "add_f32_0.in.self.npy").string() +
                         ": not a usable .npy file: 'shape' (3.5,) is not a tuple of non-negative integers");
}

TEST(ConformGoldenNpy, NegativeShapeIsRejected) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-7,), }", 0));
  expect_usage_error(g.conform(), "'shape' (-7,) is not a tuple of non-negative integers");
}

TEST(ConformGoldenNpy, ShapeBeyondInt64IsRejected) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy",
             npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0));
  expect_usage_error(g.conform(), "'shape' (99999999999999999999,) has a size larger than 2^63 - 1");
}

TEST(ConformGoldenNpy, DescrWithoutAnItemsizeIsRejectedNotABareStoul) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy", npy("{'descr': '<f', 'fortran_order': False, 'shape': (7,), }", 28));
  const Result r = g.conform();
  expect_usage_error(r, (g / "add_f32_0.in.self.npy").string() +
                            ": not a usable .npy file: 'descr' '<f' is not a NumPy type string, expected a "
                            "little-endian NumPy type string such as '<f4' or '|u1'");
  EXPECT_EQ(r.output.find("stoul"), std::string::npos) << r.output;
}

TEST(ConformGoldenNpy, DescrWithAnOddItemsizeIsRejected) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy", npy("{'descr': '<f3', 'fortran_order': False, 'shape': (7,), }", 21));
  expect_usage_error(g.conform(), "'descr' '<f3' has the itemsize 3 (1, 2, 4, 8 or 16 expected)");
}

TEST(ConformGoldenNpy, BigEndianDescrIsRejected) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy", npy("{'descr': '>f4', 'fortran_order': False, 'shape': (7,), }", 28));
  expect_usage_error(g.conform(), "'descr' '>f4' is big-endian (not little-endian)");
}

TEST(ConformGoldenNpy, ShapeThatIsNotATupleIsRejectedNotABareStoll) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': x7, }", 28));
  const Result r = g.conform();
  expect_usage_error(r, "'shape' x7 is not a tuple");
  EXPECT_EQ(r.output.find("stoll"), std::string::npos) << r.output;
}

TEST(ConformGoldenNpy, PayloadShorterThanTheShapeNeedsIsRejected) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (7,), }", 27));
  expect_usage_error(g.conform(), "not a usable .npy file: payload has 27 bytes, shape and dtype need 28");
}

TEST(ConformGoldenNpy, HeaderWithoutShapeIsRejected) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy", npy("{'descr': '<f4', 'fortran_order': False, }", 28));
  expect_usage_error(g.conform(), "not a usable .npy file: header has no 'shape'");
}

TEST(ConformGoldenNpy, HeaderWithAnUnknownKeyIsRejected) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy",
             npy("{'descr': '<f4', 'fortran_order': False, 'shape': (7,), 'extra': 1, }", 28));
  expect_usage_error(g.conform(), "header has the unknown key 'extra' (expected descr, fortran_order and shape)");
}

TEST(ConformGoldenNpy, HeaderLengthPastTheEndOfTheFileIsRejected) {
  GoldenDir g;
  std::string bytes = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (7,), }", 0);
  bytes[8] = '\xff';
  bytes[9] = '\x7f';
  write_file(g / "add_f32_0.in.self.npy", bytes);
  expect_usage_error(g.conform(), "not a usable .npy file: truncated header (32767 bytes declared, 118 present)");
}

TEST(ConformGoldenNpy, ShapeDifferingFromTheManifestNamesBoth) {
  GoldenDir g;
  write_file(g / "add_f32_0.in.self.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 7), }", 28));
  expect_usage_error(g.conform(), (g / "add_f32_0.in.self.npy").string() +
                                      ": .npy shape [1, 7] differs from the manifest's 'shape' [7]");
}

// ---- manifest fields of the wrong type or value ----

TEST(ConformGoldenManifest, ShapeWithAFloatIsAnErrorNotTruncated) {
  GoldenDir g;
  g.the_case()["inputs"][0]["shape"] = json::array({3.5});
  g.save();
  expect_usage_error(g.conform(), (g / "manifest.json").string() +
                                      ": cases[0] (id 'add/f32/0'): inputs[0]: 'shape' must be a list of "
                                      "non-negative integers, got [3.5] (an array)");
}

TEST(ConformGoldenManifest, NegativeShapeIsAnError) {
  GoldenDir g;
  g.the_case()["outputs"][0]["shape"] = json::array({-7});
  g.save();
  expect_usage_error(g.conform(),
                     "cases[0] (id 'add/f32/0'): outputs[0]: 'shape' must be a list of non-negative "
                     "integers, got [-7] (an array)");
}

TEST(ConformGoldenManifest, AttrsGivenAsAnArrayIsAnErrorNotUnsupported) {
  GoldenDir g;
  g.the_case()["attrs"] = json::array({1.0});
  g.save();
  expect_usage_error(g.conform(), (g / "manifest.json").string() +
                                      ": cases[0] (id 'add/f32/0'): 'attrs' must be an object, got [1.0] (an array)");
}

TEST(ConformGoldenManifest, AttributeOfTheWrongTypeNamesTheAttribute) {
  GoldenDir g;
  g.the_case()["attrs"]["alpha"] = "one";
  g.save();
  expect_usage_error(g.conform(),
                     "cases[0] (id 'add/f32/0'): 'attrs.alpha' cannot be read: expected a number, got "
                     "\"one\" (a string)");
}

TEST(ConformGoldenManifest, IntegerAttributeGivenAsAFloatIsAnErrorNotTruncated) {
  GoldenDir g;
  // sum's dim is an int or a list of ints: 0.5 must not be read as 0.
  g.the_case()["op"] = "sum";
  g.the_case()["attrs"] = json{{"dim", 0.5}};
  g.save();
  expect_usage_error(g.conform(),
                     "'attrs.dim' cannot be read: expected an integer or a list of integers, got 0.5 "
                     "(a float)");
}

TEST(ConformGoldenManifest, FieldOfTheWrongTypeNamesTheField) {
  GoldenDir g;
  g.the_case()["inputs"][1]["dtype"] = 5;
  g.save();
  expect_usage_error(g.conform(), "cases[0] (id 'add/f32/0'): inputs[1]: 'dtype' must be a string, got 5 (an integer)");
}

TEST(ConformGoldenManifest, MissingFieldIsNamed) {
  GoldenDir g;
  g.the_case()["inputs"][0].erase("file");
  g.save();
  expect_usage_error(g.conform(), "cases[0] (id 'add/f32/0'): inputs[0]: 'file' is missing");
}

TEST(ConformGoldenManifest, CasesThatAreNotAListAreAnError) {
  GoldenDir g;
  write_file(g / "manifest.json", R"({"format": "xd-golden/1", "cases": {"a": 1}})");
  expect_usage_error(g.conform(),
                     (g / "manifest.json").string() + ": 'cases' must be a list of objects, got {\"a\":1} (an object)");
}

TEST(ConformGoldenManifest, NegativeToleranceIsAnError) {
  GoldenDir g;
  g.the_case()["rtol"] = -1;
  g.save();
  expect_usage_error(g.conform(),
                     "cases[0] (id 'add/f32/0'): 'rtol' must be a non-negative number, got -1 (an integer)");
}

TEST(ConformGoldenManifest, TheUnbrokenFolderStillPasses) {
  GoldenDir g;
  const Result r = g.conform();
  EXPECT_EQ(r.status, 0) << r.output;
  // One case, run once per kernel of the CPU's slot (its fast kernel, then its reference loop).
  EXPECT_NE(r.output.find("total: 2 cases, 2 passed"), std::string::npos) << r.output;
}

// ---- command-line arguments ----

TEST(ConformArguments, EmptyGoldenFolderIsAUsageErrorNotTheFullSuite) {
  expect_usage_error(
      run("--golden '' --backend cpu"),
      "xd-conform: --golden '': no folder given (the value is empty); give one, or leave the option out");
}

TEST(ConformArguments, EmptyReplayIdIsAUsageErrorNotTheFullSuite) {
  expect_usage_error(
      run("--replay '' --backend cpu"),
      "xd-conform: --replay '': no case id given (the value is empty); give one, or leave the option out");
}

TEST(ConformArguments, EmptyOutputFileIsAUsageError) {
  expect_usage_error(run("--quick --backend cpu --json ''"), "xd-conform: --json '': no file given");
  expect_usage_error(run("--quick --backend cpu --junit ''"), "xd-conform: --junit '': no file given");
}

TEST(ConformArguments, StrayPositionalArgumentIsAUsageError) {
  expect_usage_error(
      run("--quick --backend cpu stray"),
      "xd-conform: unexpected argument 'stray': this tool takes only options (--name value); see --help");
}

TEST(ConformArguments, NegativeSeedIsAUsageErrorNotWrapped) {
  expect_usage_error(run("--quick --backend cpu --seed -1"),
                     "xd-conform: --seed '-1' is not a whole number from 0 to 18446744073709551615");
}

TEST(ConformArguments, SeedBeyond64BitsIsAUsageError) {
  expect_usage_error(run("--quick --backend cpu --seed 18446744073709551616"),
                     "xd-conform: --seed '18446744073709551616' is out of range: expected a whole number from 0 to "
                     "18446744073709551615");
}

TEST(ConformArguments, SeedWithTrailingTextOrNanIsAUsageError) {
  expect_usage_error(run("--quick --backend cpu --seed 12x"), "xd-conform: --seed '12x' is not a whole number");
  expect_usage_error(run("--quick --backend cpu --seed nan"), "xd-conform: --seed 'nan' is not a whole number");
  expect_usage_error(run("--quick --backend cpu --seed ''"), "xd-conform: --seed needs a value");
}

TEST(ConformArguments, ReplayIdWithANegativeSeedIsAUsageError) {
  expect_usage_error(run("--replay add/f32/cpu/scalar+scalar/s-1"),
                     "'add/f32/cpu/scalar+scalar/s-1': the last part must be s<seed>, the seed a whole number");
}

TEST(ConformArguments, ReplayIdWithAnUnknownDtypeIsAUsageError) {
  const Result r = run("--replay add/f33/cpu/scalar+scalar/s1");
  expect_usage_error(r, "'add/f33/cpu/scalar+scalar/s1': ");
  EXPECT_NE(r.output.find("f33"), std::string::npos) << r.output;
}

TEST(ConformArguments, DumpWithoutReplayIsAUsageError) {
  expect_usage_error(run("--quick --backend cpu --dump /tmp"),
                     "xd-conform: --dump writes a replayed case's inputs: give --replay too");
}

// A bare --golden takes the default set: the build tree's xd-conform the source tree's
// tests/golden (an installed one the installed set: tests/package, step relocated). A copy of the
// executable outside both finds none and says so, exit 2.
TEST(ConformArguments, BareGoldenInTheBuildTreeRunsTheSourceTreesGoldenCases) {
  const Result r = run("--golden --backend cpu --op add --dtype f32");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(" passed, 0 failed"), std::string::npos) << r.output;
  const Result before = run("--golden --list --backend cpu --op add --dtype f32");
  const Result named = run(std::string("--golden ") + XD_GOLDEN_DIR + " --list --backend cpu --op add --dtype f32");
  EXPECT_EQ(before.output, named.output);
}

TEST(ConformArguments, BareGoldenOutsideTheBuildTreeAndAnInstallIsAUsageErrorSayingWhereItLooked) {
  const fs::path dir = fs::temp_directory_path() / ("xd-conform-copy-" + std::to_string(getpid()));
  fs::create_directories(dir / "bin");
  fs::copy_file(XD_CONFORM_BIN, dir / "bin" / "xd-conform", fs::copy_options::overwrite_existing);
  const Result r = xd::test::run_command("env -u XD_BACKEND timeout 60 " + (dir / "bin" / "xd-conform").string() +
                                         " --golden --backend cpu");
  fs::remove_all(dir);
  expect_usage_error(r, "xd-conform: --golden without a folder: no golden cases installed at " +
                            (dir / "share" / "xdispatch" / "golden").string() + "; give the folder, --golden DIR");
}

}  // namespace
