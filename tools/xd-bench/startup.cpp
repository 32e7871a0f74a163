#include "startup.hpp"

#include "common/json_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace xd::bench {

namespace {

constexpr const char* k_spawn_env = "XD_BENCH_SPAWN_NS";

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double ms_since(int64_t t0_ns) { return static_cast<double>(now_ns() - t0_ns) / 1e6; }

}  // namespace

void run_child(const std::vector<std::string>& args, const std::string& cache_dir) {
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "XD_CACHE_DIR=", 13) != 0 && std::strncmp(*e, k_spawn_env, std::strlen(k_spawn_env)) != 0)
      env_store.emplace_back(*e);
  env_store.push_back("XD_CACHE_DIR=" + cache_dir);
  env_store.push_back(std::string(k_spawn_env) + "=" + std::to_string(now_ns()));
  std::vector<char*> envp, argv;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_store = args;
  for (auto& s : arg_store) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data());
  if (rc != 0) throw Error(std::string("xd-bench: cannot start a child process: ") + std::strerror(rc));
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) throw Error(std::string("xd-bench: waitpid: ") + std::strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error("xd-bench: a child process failed (status " + std::to_string(status) + "); run it alone to see why: " +
                [&] {
                  std::string s;
                  for (const auto& a : args) s += a + " ";
                  return s;
                }());
}

namespace {

// The child's report, read like any input: a regular file, bounded in size and depth
// (common/json_file.hpp); a missing or malformed one is an error naming it.
nlohmann::json read_json(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error("xd-bench: the startup child wrote no " + path);
  try {
    return cli::read_json_file(path);
  } catch (const std::runtime_error& e) {
    throw Error(std::string("xd-bench: the startup child's report: ") + e.what());
  }
}

}  // namespace

std::vector<StartupRow> measure_startup(const StartupJob& job, const std::vector<std::string>& child_args) {
  char tmpl[] = "/tmp/xd-bench-cache-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) throw Error(std::string("xd-bench: mkdtemp: ") + std::strerror(errno));
  const std::string dir = tmpl;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};
  nlohmann::json runs[2];
  for (int i = 0; i < 2; ++i) {
    const std::string out = dir + (i == 0 ? "/cold.json" : "/warm.json");
    std::vector<std::string> args = child_args;
    args.insert(args.begin() + 1, {"--startup-child", out});
    run_child(args, dir + "/cache");
    runs[i] = read_json(out);
  }
  std::vector<StartupRow> rows;
  const auto& cold = runs[0]["ops"];
  const auto& warm = runs[1]["ops"];
  for (size_t i = 0; i < cold.size() && i < warm.size(); ++i) {
    StartupRow r;
    r.backend = job.backend;
    r.op = cold[i]["op"].get<std::string>();
    r.dtype = cold[i]["dtype"].get<std::string>();
    r.cold_first_kernel_ms = runs[0]["first_kernel_ms"].get<double>();
    r.warm_first_kernel_ms = runs[1]["first_kernel_ms"].get<double>();
    r.cold_first_call_ms = cold[i]["first_call_ms"].get<double>();
    r.warm_first_call_ms = warm[i]["first_call_ms"].get<double>();
    r.steady_call_ms = warm[i]["steady_call_ms"].get<double>();
    rows.push_back(r);
  }
  return rows;
}

void run_startup_child(const StartupJob& job, const std::string& out_path) {
  const char* spawn = std::getenv(k_spawn_env);
  const int64_t t0 = spawn != nullptr ? std::strtoll(spawn, nullptr, 10) : now_ns();
  const Device device = Device::parse(job.backend);
  (void)rand({1024}, Dtype::f32, device);
  synchronize(device);
  nlohmann::json j;
  j["first_kernel_ms"] = ms_since(t0);
  j["ops"] = nlohmann::json::array();
  for (size_t w = 0; w < job.workloads.size(); ++w) {
    for (Dtype dtype : job.dtypes) {
      if (!has_kernel(job.workloads[w]->op, device.backend(), dtype)) continue;
      const Prepared p = prepare(*job.workloads[w], dtype, job.sizes[w], device);
      synchronize(device);
      int64_t t = now_ns();
      p.run();
      synchronize(device);
      const double first = ms_since(t);
      std::vector<double> steady;
      for (int i = 0; i < 5; ++i) {
        t = now_ns();
        p.run();
        synchronize(device);
        steady.push_back(ms_since(t));
      }
      std::sort(steady.begin(), steady.end());
      j["ops"].push_back({{"op", job.workloads[w]->name}, {"dtype", dtype_name(dtype)}, {"first_call_ms", first},
                          {"steady_call_ms", steady[steady.size() / 2]}});
    }
  }
  std::ofstream f(out_path);
  if (!f) throw Error("xd-bench: cannot write " + out_path);
  f << j.dump() << "\n";
}

}  // namespace xd::bench
