// xd-bench's results: one row per (backend, workload, dtype, size), printed as an aligned table
// and optionally written as JSON (one object: devices with their copy bandwidth, rows, startup)
// and CSV (one line per row).
#pragma once

#include <string>
#include <vector>

namespace xd::bench {

struct DeviceRow {
  std::string backend;
  std::string device;  // "opencl:0"
  std::string name;    // the device's name
  std::string driver;
  double copy_gbps = 0;  // median of the copy kernel at copy_bytes
  double copy_bytes = 0;
};

struct ResultRow {
  std::string backend, op, dtype, size;
  std::string status = "ok";  // "ok" or "error: <message>"
  int reps = 0;
  double median_ms = 0, min_ms = 0;
  double gbps = 0;       // traffic model / median
  double gflops = 0;     // matmul only
  double copy_fraction = 0;  // gbps / the device's copy bandwidth
  bool device_clock = true;
  std::vector<std::string> kernels;
};

struct StartupRow {
  std::string backend, op, dtype;
  double cold_first_kernel_ms = 0, warm_first_kernel_ms = 0;  // process start to first kernel done
  double cold_first_call_ms = 0, warm_first_call_ms = 0;      // the op's first call
  double steady_call_ms = 0;                                   // a later call of the op (warm process)
};

struct Report {
  std::vector<DeviceRow> devices;
  std::vector<ResultRow> rows;
  std::vector<StartupRow> startup;
  int warmup = 0;
};

void print_table(const Report& r);
void write_json(const Report& r, const std::string& path);
void write_csv(const Report& r, const std::string& path);

}  // namespace xd::bench
