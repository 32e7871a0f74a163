// xd-bench as a user runs it: results land in JSON and CSV with the traffic / flop model applied
// to the measured median, the host device's copy reference has a plain memcpy's beside it,
// unregistered (op, dtype) pairs are skipped rather than failed, bad options exit 2 saying what
// was wrong, --startup reports cold and warm child processes, fused workloads report an eager and
// an xd::compile row each, and --compile-time its first calls.
// Nothing here judges a time: performance claims live in docs/performance.md.
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

using Result = xd::test::CommandResult;

Result run(const std::string& args) {
  return xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES " XD_BENCH_BIN " " + args);
}

// A scratch folder of this test (support/temp_dir.hpp).
struct TempDir : xd::test::TempDir {
  TempDir() : xd::test::TempDir("xd-bench-test") {}
};

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// Cheap defaults for every run here: few reps, a small copy reference.
const std::string k_fast = " --reps 3 --warmup 1 --copy-mib 4";

TEST(XdBench, JsonAndCsvCarryEveryMeasurementWithTheTrafficModelApplied) {
  TempDir dir;
  const Result r = run("--backend cpu --op copy --op add --op add_broadcast --op rms_norm --op layer_norm --size 96x40" +
                       k_fast +
                       " --json " + (dir / "b.json") + " --csv " + (dir / "b.csv"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = read_json(dir / "b.json");
  ASSERT_EQ(j["devices"].size(), 1u);
  const double copy = j["devices"][0]["copy_gbps"].get<double>();
  EXPECT_GT(copy, 0);
  // The CPU is the host device: a plain memcpy of the same bytes is timed beside the copy kernel,
  // in the header line and in the JSON.
  ASSERT_TRUE(j["devices"][0].contains("memcpy_gbps")) << j["devices"][0].dump();
  const double memcpy_gbps = j["devices"][0]["memcpy_gbps"].get<double>();
  EXPECT_GT(memcpy_gbps, 0);
  EXPECT_NEAR(j["devices"][0]["copy_vs_memcpy"].get<double>(), copy / memcpy_gbps, 1e-9);
  EXPECT_NE(r.output.find(" GB/s, memcpy "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("% of memcpy; 4 MiB copied, medians)"), std::string::npos) << r.output;
  ASSERT_EQ(j["results"].size(), 5u);
  const double n = 96 * 40;
  // bytes = each input read once + each output written once, in its own dtype.
  const std::map<std::string, double> bytes = {{"copy", 2 * n * 4},
                                               {"add", 3 * n * 4},
                                               {"add_broadcast", (2 * n + 40) * 4},
                                               {"rms_norm", (2 * n + 40) * 4 + 96 * 4},
                                               {"layer_norm", (2 * n + 2 * 40) * 4 + 2 * 96 * 4}};
  for (const auto& x : j["results"]) {
    const std::string op = x["op"];
    SCOPED_TRACE(op);
    EXPECT_EQ(x["status"], "ok");
    EXPECT_EQ(x["reps"], 3);
    EXPECT_EQ(x["size"], "96x40");
    const double med = x["median_ms"].get<double>();
    ASSERT_GT(med, 0);
    EXPECT_LE(x["min_ms"].get<double>(), med);
    EXPECT_NEAR(x["gbps"].get<double>() * med * 1e6, bytes.at(op), 1e-6 * bytes.at(op));
    EXPECT_NEAR(x["copy_fraction"].get<double>(), x["gbps"].get<double>() / copy, 1e-9);
    ASSERT_FALSE(x["kernels"].empty());  // which kernel the time belongs to
    EXPECT_EQ(x["kernels"][0].get<std::string>().rfind("cpu.", 0), 0u);
  }
  std::ifstream csv(dir / "b.csv");
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, 6);  // header + 5
}

TEST(XdBench, MatmulReportsGflopsFromTwoMNK) {
  TempDir dir;
  const Result r = run("--backend cpu --op mm --op bmm --size 2x24x40x16" + k_fast + " --json " + (dir / "m.json"));
  // mm takes MxNxK: a 4-d size is a usage error naming the workload.
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("mm: --size '2x24x40x16': matmul takes MxNxK"), std::string::npos) << r.output;

  const Result ok = run("--backend cpu --op mm --size 24x40x16" + k_fast + " --json " + (dir / "m.json"));
  ASSERT_EQ(ok.status, 0) << ok.output;
  const auto j = read_json(dir / "m.json");
  ASSERT_EQ(j["results"].size(), 1u);
  const auto& x = j["results"][0];
  EXPECT_NEAR(x["gflops"].get<double>() * x["median_ms"].get<double>() * 1e6, 2.0 * 24 * 40 * 16, 1e-3);
}

TEST(XdBench, AttentionAndConvCountFlopsAsPyTorchsBenchmarks) {
  TempDir dir;
  // Causal attention BxHxSxD: 4*B*H*S*S*D / 2; conv2d NxCxHxWxOxKxS (padding K/2): 2*N*O*oH*oW*C*K*K.
  const Result a = run("--backend cpu --op attention --size 1x2x16x8" + k_fast + " --json " + (dir / "a.json"));
  ASSERT_EQ(a.status, 0) << a.output;
  const auto ja = read_json(dir / "a.json");
  const auto& ra = ja["results"][0];
  EXPECT_NEAR(ra["gflops"].get<double>() * ra["median_ms"].get<double>() * 1e6, 4.0 * 2 * 16 * 16 * 8 / 2, 1e-3);
  const Result c = run("--backend cpu --op conv2d --size 2x3x9x9x4x3x2" + k_fast + " --json " + (dir / "c.json"));
  ASSERT_EQ(c.status, 0) << c.output;
  const auto jc = read_json(dir / "c.json");
  const auto& rc = jc["results"][0];
  EXPECT_NEAR(rc["gflops"].get<double>() * rc["median_ms"].get<double>() * 1e6, 2.0 * 2 * 4 * 5 * 5 * 3 * 3 * 3, 1e-3);
  // Sizes of the wrong rank are usage errors naming the layout.
  const Result bad = run("--backend cpu --op conv2d --size 2x3x9x9" + k_fast);
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_NE(bad.output.find("conv2d takes NxCxHxWxOxKxS"), std::string::npos) << bad.output;
  const Result bad_a = run("--backend cpu --op attention --size 2x3x9" + k_fast);
  EXPECT_EQ(bad_a.status, 2) << bad_a.output;
  EXPECT_NE(bad_a.output.find("attention takes BxHxSxD"), std::string::npos) << bad_a.output;
}

TEST(XdBench, DtypesTheBackendDoesNotRegisterAreSkippedNotFailed) {
  TempDir dir;
  // div is floating only; i32 has no kernel anywhere.
  const Result r = run("--backend cpu --op div --dtype i32 --size 8" + k_fast + " --json " + (dir / "d.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(read_json(dir / "d.json")["results"].empty());
}

TEST(XdBench, UsageErrorsExitTwoSayingWhatWasWrong) {
  const std::pair<std::string, std::string> cases[] = {
      {"--op nosuch", "unknown workload 'nosuch'"},
      {"--dtype f17", "f17"},
      {"--size 4x", "ends with 'x'"},
      {"--size 4y4", "expected dims like 4096x4096"},
      {"--backend nosuch", "available backends: cpu"},
      {"--reps 0", "--reps '0' is out of range: expected a whole number from 1 to 1000000"},
      {"--frobnicate", "unrecognised option"},
      {"--op llama_mlp --size 4x16", "llama_mlp: --size '4x16': llama_mlp takes TxHxI"},
      {"--op add --compile-time", "--compile-time needs a fused workload"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(args);
    const Result r = run(args);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
}

TEST(XdBench, StartupReportsColdAndWarmChildProcesses) {
  TempDir dir;
  const Result r = run("--backend cpu --op add --op sum --size 64 --startup" + k_fast + " --json " + (dir / "s.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("startup (cold"), std::string::npos) << r.output;
  const auto j = read_json(dir / "s.json");
  ASSERT_EQ(j["startup"].size(), 2u);
  for (const auto& s : j["startup"]) {
    EXPECT_EQ(s["backend"], "cpu");
    for (const char* key :
         {"cold_first_kernel_ms", "warm_first_kernel_ms", "cold_first_call_ms", "warm_first_call_ms", "steady_call_ms"})
      EXPECT_GT(s[key].get<double>(), 0) << key;
  }
  EXPECT_EQ(j["startup"][0]["op"], "add");
  EXPECT_EQ(j["startup"][1]["op"], "sum");
}

// Fused workloads compile C++ at run time: each test gets its own kernel cache.
Result run_fused(const TempDir& dir, const std::string& args) {
  return xd::test::run_command("env -u XD_BACKEND -u XD_DEVICES XD_CACHE_DIR=" + (dir / "cache") + " " XD_BENCH_BIN +
                               std::string(" ") + args);
}

TEST(XdBench, FusedWorkloadsReportEagerAndCompiledRowsUnderTheGraphsTrafficModel) {
  TempDir dir;
  const Result r = run_fused(dir, "--backend cpu --op chain6 --op silu_mul_add --op silu_rms_norm --size 96x40" +
                                      k_fast + " --json " + (dir / "f.json") + " --csv " + (dir / "f.csv"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("xd::compile: eager vs compiled"), std::string::npos) << r.output;
  const auto j = read_json(dir / "f.json");
  const double copy = j["devices"][0]["copy_gbps"].get<double>();
  ASSERT_EQ(j["results"].size(), 6u);
  const double n = 96 * 40;
  // The graph's inputs once and its outputs once; intermediates count nothing.
  const std::map<std::string, double> bytes = {
      {"chain6", 3 * n * 4}, {"silu_mul_add", 4 * n * 4}, {"silu_rms_norm", (2 * n + 40) * 4}};
  for (size_t i = 0; i < 6; i += 2) {
    const auto& e = j["results"][i];
    const auto& c = j["results"][i + 1];
    const std::string op = e["op"];
    SCOPED_TRACE(op);
    EXPECT_EQ(c["op"], op);
    EXPECT_EQ(e["mode"], "eager");
    EXPECT_EQ(c["mode"], "compiled");
    for (const auto* x : {&e, &c}) {
      EXPECT_EQ((*x)["status"], "ok");
      const double med = (*x)["median_ms"].get<double>();
      ASSERT_GT(med, 0);
      EXPECT_NEAR((*x)["gbps"].get<double>() * med * 1e6, bytes.at(op), 1e-6 * bytes.at(op));
      EXPECT_NEAR((*x)["copy_fraction"].get<double>(), (*x)["gbps"].get<double>() / copy, 1e-9);
    }
    EXPECT_NEAR(c["speedup"].get<double>(), e["median_ms"].get<double>() / c["median_ms"].get<double>(), 1e-9);
    EXPECT_EQ(e["speedup"].get<double>(), 0);
    // The eager row ran the ops' kernels; the compiled one ran one generated kernel and nothing else.
    ASSERT_FALSE(e["kernels"].empty());
    EXPECT_EQ(e["kernels"][0].get<std::string>().rfind("cpu.", 0), 0u);
    ASSERT_EQ(c["kernels"].size(), 1u);
    EXPECT_EQ(c["kernels"][0], "xd::compile(1 fused, 0 dispatched)");
  }
  std::ifstream csv(dir / "f.csv");
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header.substr(header.size() - 13), ",mode,speedup");
  std::getline(csv, line);
  EXPECT_NE(line.find(",eager,0"), std::string::npos) << line;
}

TEST(XdBench, LlamaMlpCountsItsThreeMatmulsAndLeavesThemToDispatch) {
  TempDir dir;
  const Result r =
      run_fused(dir, "--backend cpu --op llama_mlp --size 4x16x24" + k_fast + " --json " + (dir / "m.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = read_json(dir / "m.json");
  ASSERT_EQ(j["results"].size(), 2u);
  const double t = 4, h = 16, i = 24;
  for (const auto& x : j["results"]) {
    SCOPED_TRACE(x["mode"].get<std::string>());
    const double med = x["median_ms"].get<double>();
    ASSERT_GT(med, 0);
    EXPECT_NEAR(x["gflops"].get<double>() * med * 1e6, 6 * t * h * i, 1e-6 * 6 * t * h * i);
    EXPECT_NEAR(x["gbps"].get<double>() * med * 1e6, (2 * t * h + 3 * h * i) * 4, 1e-3);
  }
  // silu * mul fuse; the three matmuls run through the dispatch table.
  EXPECT_EQ(j["results"][1]["kernels"][0], "xd::compile(1 fused, 3 dispatched)");
}

TEST(XdBench, CompileTimeReportsColdAndWarmFirstCalls) {
  TempDir dir;
  const Result r = run_fused(dir, "--backend cpu --op silu_mul_add --op add --size 64 --compile-time" + k_fast +
                                      " --json " + (dir / "c.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("xd::compile first calls"), std::string::npos) << r.output;
  const auto j = read_json(dir / "c.json");
  ASSERT_EQ(j["compile_time"].size(), 1u);  // add is not a fused workload: no row
  const auto& c = j["compile_time"][0];
  EXPECT_EQ(c["op"], "silu_mul_add");
  EXPECT_EQ(c["size"], "64");
  for (const char* key : {"eager_first_call_ms", "cold_first_call_ms", "new_object_first_call_ms",
                          "warm_process_first_call_ms", "steady_call_ms"})
    EXPECT_GT(c[key].get<double>(), 0) << key;
  // The cold call runs the C++ compiler; the warm process only loads what it built.
  EXPECT_GT(c["cold_first_call_ms"].get<double>(), c["warm_process_first_call_ms"].get<double>());
  EXPECT_EQ(c["kernels"], 1);
  EXPECT_EQ(c["eager_nodes"], 0);
}

}  // namespace
