// What xd::compile's first call costs (--compile-time). The parent runs this program twice more
// as child processes sharing one fresh XD_CACHE_DIR. Per fused workload, each child makes the
// inputs (untimed), runs the function eagerly once (so that the eager ops' own programs are
// built before anything is timed for the compiler), then times on the host, each call followed
// by a synchronisation:
//  - the first call of a new xd::compile object: the eager run that traces, then generating and
//    building the fused kernels. In the first child the cache is empty (the compiler runs: cold);
//    in the second it holds what the first built (a load, no compiler: "new process");
//  - a later call of that object (steady, median of 5);
//  - the first call of a second xd::compile object of the same function in the same process: a
//    new trace whose sources the backend has built already in this process ("new object").
#pragma once

#include "report.hpp"
#include "workload.hpp"

#include <string>
#include <vector>

namespace xd::bench {

struct CompileTimeJob {
  std::string backend;                         // as --backend takes it
  std::vector<const WorkloadInfo*> workloads;  // the fused ones among the selected
  std::vector<Dtype> dtypes;
  std::vector<std::vector<int64_t>> sizes;  // per workload, the size it uses
};

// Parent side: spawns the two children (child_args: this program's name and the options that
// select the same backend, workloads, dtypes and sizes). Throws xd::Error when a child fails.
std::vector<CompileTimeRow> measure_compile_time(const CompileTimeJob& job, const std::vector<std::string>& child_args);

// Child side (--compile-time-child FILE): measures and writes the JSON the parent reads.
void run_compile_time_child(const CompileTimeJob& job, const std::string& out_path);

}  // namespace xd::bench
