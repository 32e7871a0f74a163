#include "compile_time.hpp"

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

namespace xd::bench {

namespace {

double ms_of(const std::function<void()>& fn, Device device) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  synchronize(device);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The child's report, read like any input: a regular file, bounded in size and depth
// (common/json_file.hpp); a missing or malformed one is an error naming it.
nlohmann::json read_json(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error("xd-bench: the compile-time child wrote no " + path);
  try {
    return cli::read_json_file(path);
  } catch (const std::runtime_error& e) {
    throw Error(std::string("xd-bench: the compile-time child's report: ") + e.what());
  }
}

}  // namespace

std::vector<CompileTimeRow> measure_compile_time(const CompileTimeJob& job,
                                                 const std::vector<std::string>& child_args) {
  char tmpl[] = "/tmp/xd-bench-compile-XXXXXX";
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
    args.insert(args.begin() + 1, {"--compile-time-child", out});
    run_child(args, dir + "/cache");
    runs[i] = read_json(out);
  }
  std::vector<CompileTimeRow> rows;
  const auto& cold = runs[0]["ops"];
  const auto& warm = runs[1]["ops"];
  for (size_t i = 0; i < cold.size() && i < warm.size(); ++i) {
    CompileTimeRow r;
    r.backend = job.backend;
    r.op = cold[i]["op"].get<std::string>();
    r.dtype = cold[i]["dtype"].get<std::string>();
    r.size = cold[i]["size"].get<std::string>();
    r.eager_first_call_ms = cold[i]["eager_first_call_ms"].get<double>();
    r.cold_first_call_ms = cold[i]["first_call_ms"].get<double>();
    r.new_object_first_call_ms = cold[i]["new_object_first_call_ms"].get<double>();
    r.warm_process_first_call_ms = warm[i]["first_call_ms"].get<double>();
    r.steady_call_ms = warm[i]["steady_call_ms"].get<double>();
    r.kernels = warm[i]["kernels"].get<int>();
    r.eager_nodes = warm[i]["eager_nodes"].get<int>();
    rows.push_back(r);
  }
  return rows;
}

void run_compile_time_child(const CompileTimeJob& job, const std::string& out_path) {
  const Device device = Device::parse(job.backend);
  nlohmann::json j;
  j["ops"] = nlohmann::json::array();
  for (size_t w = 0; w < job.workloads.size(); ++w) {
    for (Dtype dtype : job.dtypes) {
      if (!has_kernel(job.workloads[w]->op, device.backend(), dtype)) continue;
      const FusedCase c = make_fused_case(*job.workloads[w], dtype, job.sizes[w], device);
      synchronize(device);
      const double eager = ms_of(c.run_eager, device);
      const Prepared first = c.fresh_compiled();
      const double first_ms = ms_of(first.run, device);
      std::vector<double> steady;
      for (int i = 0; i < 5; ++i) steady.push_back(ms_of(first.run, device));
      std::sort(steady.begin(), steady.end());
      const Prepared second = c.fresh_compiled();
      const double second_ms = ms_of(second.run, device);
      const CompileStats st = first.stats();
      if (st.graph_calls == 0)
        throw Error("xd-bench: " + job.workloads[w]->name + " did not run compiled: " + st.eager_reason);
      j["ops"].push_back({{"op", job.workloads[w]->name},
                          {"dtype", dtype_name(dtype)},
                          {"size", format_size(job.sizes[w])},
                          {"eager_first_call_ms", eager},
                          {"first_call_ms", first_ms},
                          {"new_object_first_call_ms", second_ms},
                          {"steady_call_ms", steady[steady.size() / 2]},
                          {"kernels", st.kernels},
                          {"eager_nodes", st.eager_nodes}});
    }
  }
  std::ofstream f(out_path);
  if (!f) throw Error("xd-bench: cannot write " + out_path);
  f << j.dump() << "\n";
}

}  // namespace xd::bench
