#include "report.hpp"

#include <xd/error.hpp>

#include "common/build_info_json.hpp"
#include "common/csv.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace xd::bench {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "+") + x;
  return s;
}

// A number as the CSV has always written it (an ostream's default: 6 significant digits).
std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

void open_or_throw(std::ofstream& f, const std::string& path) {
  f.open(path);
  if (!f) throw ValueError("cannot write " + path);
}

// The compiled rows beside their eager ones: what xd::compile gained.
void print_fused(const Report& r) {
  bool header = false;
  for (const auto& c : r.rows) {
    if (c.mode != "compiled" || c.status != "ok") continue;
    const ResultRow* e = nullptr;
    for (const auto& x : r.rows)
      if (x.mode == "eager" && x.status == "ok" && x.backend == c.backend && x.op == c.op && x.dtype == c.dtype &&
          x.size == c.size)
        e = &x;
    if (!header) {
      std::printf(
          "\nxd::compile: eager vs compiled (medians; GB/s: the graph's inputs read once, outputs written once)\n");
      std::printf("%-10s %-18s %-5s %-18s %10s %11s %9s %9s %6s %8s\n", "backend", "op", "dtype", "size", "eager ms",
                  "compiled ms", "GB/s", "GFLOP/s", "%copy", "speedup");
      header = true;
    }
    // As in the main table: a matmul-bound graph is judged by GFLOP/s, not by its share of copy.
    const std::string gflops = c.gflops > 0 ? fixed(c.gflops, 0) : "-";
    const std::string copy = c.gflops > 0 ? "-" : fixed(100 * c.copy_fraction, 0) + "%";
    const std::string eager = e ? fixed(e->median_ms, 4) : "-";
    const std::string speedup = c.speedup > 0 ? fixed(c.speedup, 2) + "x" : "-";
    std::printf("%-10s %-18s %-5s %-18s %10s %11.4f %9.1f %9s %6s %8s\n", c.backend.c_str(), c.op.c_str(),
                c.dtype.c_str(), c.size.c_str(), eager.c_str(), c.median_ms, c.gbps, gflops.c_str(), copy.c_str(),
                speedup.c_str());
  }
}

void print_compile_time(const Report& r) {
  if (r.compile_time.empty()) return;
  std::printf(
      "\nxd::compile first calls, host clock (cold: empty XD_CACHE_DIR; new object: a second xd::compile of the "
      "function in that process; new process: the same XD_CACHE_DIR in another process)\n");
  std::printf("%-10s %-14s %-5s %-18s %11s %11s %11s %11s %11s %8s\n", "backend", "op", "dtype", "size", "eager 1st",
              "cold 1st", "new object", "new process", "steady", "kernels");
  for (const auto& c : r.compile_time)
    std::printf("%-10s %-14s %-5s %-18s %8.1f ms %8.1f ms %8.1f ms %8.1f ms %8.3f ms %4d+%d\n", c.backend.c_str(),
                c.op.c_str(), c.dtype.c_str(), c.size.c_str(), c.eager_first_call_ms, c.cold_first_call_ms,
                c.new_object_first_call_ms, c.warm_process_first_call_ms, c.steady_call_ms, c.kernels, c.eager_nodes);
}

}  // namespace

std::string row_label(const std::string& op, const std::string& mode) { return mode.empty() ? op : op + " " + mode; }

RowStream::RowStream(int op_width, const std::string& csv_path) : op_width_(op_width), csv_path_(csv_path) {
  if (csv_path_.empty()) return;
  open_or_throw(csv_, csv_path_);
  csv_ << cli::csv_row({"backend", "op", "dtype", "size", "status", "reps", "median_ms", "min_ms", "gbps", "gflops",
                        "copy_gbps", "copy_fraction", "kernels", "mode", "speedup"});
  csv_.flush();
}

void RowStream::device(const DeviceRow& d) {
  copy_gbps_ = d.copy_gbps;
  if (d.memcpy_gbps > 0)
    std::printf(
        "%-10s %-10s %s (%s): copy %.1f GB/s, memcpy %.1f GB/s (copy = %.0f%% of memcpy; %.0f MiB copied, "
        "medians)\n",
        d.backend.c_str(), d.device.c_str(), d.name.c_str(), d.driver.c_str(), d.copy_gbps, d.memcpy_gbps,
        100 * d.copy_vs_memcpy, d.copy_bytes / 2 / (1 << 20));
  else
    std::printf("%-10s %-10s %s (%s): copy %.1f GB/s (%.0f MiB copied, median)\n", d.backend.c_str(), d.device.c_str(),
                d.name.c_str(), d.driver.c_str(), d.copy_gbps, d.copy_bytes / 2 / (1 << 20));
  std::printf("\n%-10s %-*s %-5s %-14s %10s %10s %9s %9s %6s  %s\n", "backend", op_width_, "op", "dtype", "size",
              "median ms", "min ms", "GB/s", "GFLOP/s", "%copy", "kernels");
  std::fflush(stdout);
}

void RowStream::row(const ResultRow& x) {
  const std::string op = row_label(x.op, x.mode);
  if (x.status != "ok") {
    std::printf("%-10s %-*s %-5s %-14s %s\n", x.backend.c_str(), op_width_, op.c_str(), x.dtype.c_str(), x.size.c_str(),
                x.status.c_str());
  } else {
    // Matmul is judged by GFLOP/s; its fraction of copy bandwidth means nothing.
    const std::string gflops = x.gflops > 0 ? fixed(x.gflops, 0) : "-";
    const std::string copy = x.gflops > 0 ? "-" : fixed(100 * x.copy_fraction, 0) + "%";
    std::printf("%-10s %-*s %-5s %-14s %10.4f %10.4f %9.1f %9s %6s  %s%s\n", x.backend.c_str(), op_width_, op.c_str(),
                x.dtype.c_str(), x.size.c_str(), x.median_ms, x.min_ms, x.gbps, gflops.c_str(), copy.c_str(),
                join(x.kernels).c_str(), x.device_clock ? "" : " (host clock)");
  }
  std::fflush(stdout);
  if (!csv_.is_open()) return;
  csv_ << cli::csv_row({x.backend, x.op, x.dtype, x.size, x.status, std::to_string(x.reps), number(x.median_ms),
                        number(x.min_ms), number(x.gbps), number(x.gflops), number(copy_gbps_), number(x.copy_fraction),
                        join(x.kernels), x.mode, number(x.speedup)});
  if (!csv_.flush()) throw ValueError("cannot write " + csv_path_);
}

void print_summaries(const Report& r) {
  print_fused(r);
  if (!r.startup.empty()) {
    std::printf("\nstartup (cold: empty XD_CACHE_DIR, warm: the same directory again; separate processes)\n");
    std::printf("%-10s %-18s %-5s %14s %14s %14s %14s %10s\n", "backend", "op", "dtype", "cold 1st krnl",
                "warm 1st krnl", "cold 1st call", "warm 1st call", "steady");
    for (const auto& s : r.startup)
      std::printf("%-10s %-18s %-5s %11.1f ms %11.1f ms %11.1f ms %11.1f ms %7.3f ms\n", s.backend.c_str(),
                  s.op.c_str(), s.dtype.c_str(), s.cold_first_kernel_ms, s.warm_first_kernel_ms, s.cold_first_call_ms,
                  s.warm_first_call_ms, s.steady_call_ms);
  }
  print_compile_time(r);
  std::fflush(stdout);
}

void write_json(const Report& r, const std::string& path) {
  nlohmann::json j;
  j["xdispatch"] = cli::build_info_json();
  j["warmup"] = r.warmup;
  j["devices"] = nlohmann::json::array();
  for (const auto& d : r.devices) {
    nlohmann::json dj = {{"backend", d.backend}, {"device", d.device},       {"name", d.name},
                         {"driver", d.driver},   {"copy_gbps", d.copy_gbps}, {"copy_bytes", d.copy_bytes}};
    if (d.memcpy_gbps > 0) {  // the host device only
      dj["memcpy_gbps"] = d.memcpy_gbps;
      dj["copy_vs_memcpy"] = d.copy_vs_memcpy;
    }
    j["devices"].push_back(std::move(dj));
  }
  j["results"] = nlohmann::json::array();
  for (const auto& x : r.rows)
    j["results"].push_back({{"backend", x.backend},
                            {"op", x.op},
                            {"dtype", x.dtype},
                            {"size", x.size},
                            {"status", x.status},
                            {"reps", x.reps},
                            {"median_ms", x.median_ms},
                            {"min_ms", x.min_ms},
                            {"gbps", x.gbps},
                            {"gflops", x.gflops},
                            {"copy_fraction", x.copy_fraction},
                            {"device_clock", x.device_clock},
                            {"kernels", x.kernels},
                            {"mode", x.mode},
                            {"speedup", x.speedup}});
  j["startup"] = nlohmann::json::array();
  for (const auto& s : r.startup)
    j["startup"].push_back({{"backend", s.backend},
                            {"op", s.op},
                            {"dtype", s.dtype},
                            {"cold_first_kernel_ms", s.cold_first_kernel_ms},
                            {"warm_first_kernel_ms", s.warm_first_kernel_ms},
                            {"cold_first_call_ms", s.cold_first_call_ms},
                            {"warm_first_call_ms", s.warm_first_call_ms},
                            {"steady_call_ms", s.steady_call_ms}});
  j["compile_time"] = nlohmann::json::array();
  for (const auto& c : r.compile_time)
    j["compile_time"].push_back({{"backend", c.backend},
                                 {"op", c.op},
                                 {"dtype", c.dtype},
                                 {"size", c.size},
                                 {"eager_first_call_ms", c.eager_first_call_ms},
                                 {"cold_first_call_ms", c.cold_first_call_ms},
                                 {"new_object_first_call_ms", c.new_object_first_call_ms},
                                 {"warm_process_first_call_ms", c.warm_process_first_call_ms},
                                 {"steady_call_ms", c.steady_call_ms},
                                 {"kernels", c.kernels},
                                 {"eager_nodes", c.eager_nodes}});
  std::ofstream f;
  open_or_throw(f, path);
  f << j.dump(2) << "\n";
}

}  // namespace xd::bench
