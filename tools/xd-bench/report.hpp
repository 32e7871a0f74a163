// xd-bench's results: one row per (backend, workload, dtype, size), printed as an aligned table
// and optionally written as CSV (one line per row), both as each row finishes (RowStream), and as
// JSON (one object: the build, devices with their copy bandwidth (and, for the host device, a
// plain memcpy's beside it), rows, startup) at the end.
#pragma once

#include <fstream>
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
  // The host reference device only (its memory is host memory): a plain std::memcpy of the same
  // bytes between two host buffers, in the same run, counted the same way (read + write); 0 on
  // every other device, which then has neither in its header line nor in the JSON.
  double memcpy_gbps = 0;
  double copy_vs_memcpy = 0;  // copy_gbps / memcpy_gbps
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
  // Fused workloads: "eager" or "compiled" (empty for single ops); on the compiled row, the eager
  // row's median over this one's (0 when the eager row failed).
  std::string mode;
  double speedup = 0;
};

// xd::compile's first calls (compile_time.hpp), each from the call to its result on the host:
struct CompileTimeRow {
  std::string backend, op, dtype, size;
  double eager_first_call_ms = 0;         // the function run eagerly, first time in the process
  double cold_first_call_ms = 0;          // first compiled call, empty XD_CACHE_DIR: trace, generate, build
  double new_object_first_call_ms = 0;    // a second xd::compile object of it, same process
  double warm_process_first_call_ms = 0;  // first compiled call of a new process, same XD_CACHE_DIR
  double steady_call_ms = 0;              // a later compiled call (median of 5)
  int kernels = 0, eager_nodes = 0;       // the graph's fused kernels and its ops left to dispatch
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
  std::vector<CompileTimeRow> compile_time;
  int warmup = 0;
};

// The main table on stdout and the CSV file, written a row at a time and flushed after each, so
// that a long run shows (and a killed one keeps) every finished measurement.
class RowStream {
 public:
  // `op_width`: the op column's width, fixed before the first row (the longest label the
  // selected workloads give). `csv_path` empty: no CSV; otherwise the file is created now, with
  // its header line (ValueError when it cannot be).
  RowStream(int op_width, const std::string& csv_path);
  // A device's copy bandwidth line (with the memcpy yardstick on the host device), then the
  // table's header for its rows.
  void device(const DeviceRow& d);
  // One measurement: a table line and a CSV line (with its device's copy bandwidth).
  void row(const ResultRow& x);

 private:
  int op_width_;
  std::string csv_path_;
  std::ofstream csv_;
  double copy_gbps_ = 0;  // of the device whose rows follow
};

// The op column's label of a row: a fused workload's row names its mode ("chain6 compiled").
std::string row_label(const std::string& op, const std::string& mode);

// What follows the main table once every row is in: the fused rows eager vs compiled, startup,
// xd::compile's first calls.
void print_summaries(const Report& r);
void write_json(const Report& r, const std::string& path);

}  // namespace xd::bench
