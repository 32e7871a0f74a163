// Cold vs warm start. The parent runs this program twice more as child processes, both with
// XD_CACHE_DIR set to one fresh directory: the first child finds it empty (every device program
// is built from source: cold), the second finds what the first wrote (warm). Each child reports
//  - first kernel: from the parent's spawn to the end of a first rand() on the device (process
//    start, plugin loading, device set-up, the program build or cache load of one kernel);
//  - first call of each selected op (inputs made beforehand, untimed) and a later, steady call.
// Ops whose programs an earlier op already built show that: the numbers are in run order.
#pragma once

#include "report.hpp"
#include "workload.hpp"

#include <string>
#include <vector>

namespace xd::bench {

struct StartupJob {
  std::string backend;  // as --backend takes it ("opencl", "opencl:1")
  std::vector<const WorkloadInfo*> workloads;
  std::vector<Dtype> dtypes;
  std::vector<std::vector<int64_t>> sizes;  // per workload, the size its first call uses
};

// Runs this program again (args[0] is only its name) with the parent's environment plus
// XD_CACHE_DIR=cache_dir, and waits. Throws xd::Error when it cannot start or exits non-zero.
void run_child(const std::vector<std::string>& args, const std::string& cache_dir);

// Parent side: spawns the two children for one backend and returns their rows.
// Throws xd::Error when a child cannot be started or fails.
std::vector<StartupRow> measure_startup(const StartupJob& job, const std::vector<std::string>& child_args);

// Child side (--startup-child FILE): measures and writes the JSON the parent reads.
void run_startup_child(const StartupJob& job, const std::string& out_path);

}  // namespace xd::bench
