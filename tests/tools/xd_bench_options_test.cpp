// xd-bench's options read strictly: every numeric option rejects negative, out-of-range, nan, inf
// and trailing-garbage values, an empty file name and a stray positional argument are usage errors
// (exit status 2, a message naming the option, the value and the problem), found before anything
// is measured. Each command runs under `timeout`, so a value that slipped through and started a
// long measurement fails the test instead of stalling the suite.
#include "support/run_command.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using Result = xd::test::CommandResult;

Result run(const std::string& args) {
  return xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES timeout 60 " XD_BENCH_BIN " --backend cpu --op add " +
                               args);
}

void expect_usage_error(const std::string& args, const std::string& message) {
  SCOPED_TRACE(args);
  const Result r = run(args);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << "expected: " << message << "\ngot: " << r.output;
  EXPECT_EQ(r.output.find("GB/s"), std::string::npos) << "nothing may be measured: " << r.output;
}

TEST(XdBenchOptions, CopyMibNanIsAUsageErrorNotALaterFailure) {
  expect_usage_error("--copy-mib nan",
                     "xd-bench: --copy-mib 'nan' is not a number of MiB greater than 0 and at most 1048576");
}

TEST(XdBenchOptions, CopyMibInfIsAUsageError) {
  expect_usage_error("--copy-mib inf",
                     "xd-bench: --copy-mib 'inf' is not a number of MiB greater than 0 and at most 1048576");
  expect_usage_error("--copy-mib -inf", "xd-bench: --copy-mib '-inf' is not a number of MiB");
}

TEST(XdBenchOptions, CopyMibNegativeZeroOrHugeIsOutOfRange) {
  expect_usage_error("--copy-mib -1",
                     "xd-bench: --copy-mib '-1' is out of range: expected a number of MiB greater "
                     "than 0 and at most 1048576");
  expect_usage_error("--copy-mib 0", "xd-bench: --copy-mib '0' is out of range");
  expect_usage_error("--copy-mib 1e9", "xd-bench: --copy-mib '1e9' is out of range");
  expect_usage_error("--copy-mib 1e999", "xd-bench: --copy-mib '1e999' is not a number of MiB");
}

TEST(XdBenchOptions, CopyMibSmallerThanOneElementIsAUsageError) {
  expect_usage_error("--copy-mib 0.000001",
                     "xd-bench: --copy-mib '0.000001' is out of range: the copy needs at least one f32 (4 bytes)");
}

TEST(XdBenchOptions, CopyMibWithTrailingTextOrHexIsAUsageError) {
  expect_usage_error("--copy-mib 4MiB", "xd-bench: --copy-mib '4MiB' is not a number of MiB");
  expect_usage_error("--copy-mib 0x10", "xd-bench: --copy-mib '0x10' is not a number of MiB");
  expect_usage_error("--copy-mib ''", "xd-bench: --copy-mib needs a value");
}

TEST(XdBenchOptions, RepsNegativeOverflowingOrFractionalIsAUsageError) {
  expect_usage_error("--reps -1", "xd-bench: --reps '-1' is not a whole number from 1 to 1000000");
  expect_usage_error("--reps 4294967297",
                     "xd-bench: --reps '4294967297' is out of range: expected a whole number "
                     "from 1 to 1000000");
  expect_usage_error("--reps 2.5", "xd-bench: --reps '2.5' is not a whole number");
  expect_usage_error("--reps nan", "xd-bench: --reps 'nan' is not a whole number");
  expect_usage_error("--reps 3x", "xd-bench: --reps '3x' is not a whole number");
}

TEST(XdBenchOptions, WarmupNegativeOrOverflowingIsAUsageError) {
  expect_usage_error("--warmup -1", "xd-bench: --warmup '-1' is not a whole number from 0 to 1000000");
  expect_usage_error(
      "--warmup 99999999999999999999",
      "xd-bench: --warmup '99999999999999999999' is out of range: expected a whole number from 0 to 1000000");
}

TEST(XdBenchOptions, EmptyStartupChildFileIsAUsageErrorNotIgnored) {
  expect_usage_error("--startup-child ''",
                     "xd-bench: --startup-child '': no file given (the value is empty); give "
                     "one, or leave the option out");
  expect_usage_error("--compile-time-child ''", "xd-bench: --compile-time-child '': no file given");
}

TEST(XdBenchOptions, EmptyOutputFileIsAUsageError) {
  expect_usage_error("--json ''", "xd-bench: --json '': no file given");
  expect_usage_error("--csv ''", "xd-bench: --csv '': no file given");
}

// Rows go to --csv as they finish and --json at the end: a file that cannot be written must stop
// the run before the first measurement, not lose its results after the last.
TEST(XdBenchOptions, AnOutputFileThatCannotBeWrittenIsAUsageErrorBeforeAnyMeasurement) {
  expect_usage_error("--size 8 --csv /nonexistent-xd-dir/b.csv",
                     "xd-bench: --csv /nonexistent-xd-dir/b.csv: cannot be written");
  expect_usage_error("--size 8 --json /nonexistent-xd-dir/b.json",
                     "xd-bench: --json /nonexistent-xd-dir/b.json: cannot be written");
  expect_usage_error("--size 8 --csv /", "xd-bench: --csv /: cannot be written");
}

TEST(XdBenchOptions, StrayPositionalArgumentIsAUsageError) {
  expect_usage_error("stray",
                     "xd-bench: unexpected argument 'stray': this tool takes only options (--name value); see "
                     "--help");
}

TEST(XdBenchOptions, SizeWhoseProductOverflowsIsAUsageError) {
  expect_usage_error("--size 4294967296x4294967296",
                     "xd-bench: add: --size '4294967296x4294967296': the sizes' product overflows 64 bits");
  expect_usage_error("--size 99999999999999999999",
                     "xd-bench: add: --size '99999999999999999999': expected dims like 4096x4096");
}

TEST(XdBenchOptions, ValidValuesStillRun) {
  const Result r = run("--size 8 --reps 2 --warmup 0 --copy-mib 0.5");
  EXPECT_EQ(r.status, 0) << r.output;
}

}  // namespace
