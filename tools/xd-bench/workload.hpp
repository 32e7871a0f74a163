// What xd-bench measures: a named workload per op (and a few variants such as add_broadcast),
// its inputs built once on the device under test, the call that is timed, and the traffic /
// arithmetic model that turns a time into GB/s or GFLOP/s.
//
// Traffic model (docs/performance.md): every input is read once and every output written once,
// in its own dtype; nothing else counts (a kernel that reads x twice is not credited for it).
// Matmul counts 2·M·N·K flops (per batch), plus M·N for the β·input term of addmm/baddbmm.
#pragma once

#include <xd/xd.hpp>

#include <functional>
#include <string>
#include <vector>

namespace xd::bench {

enum class Kind {
  copy,         // copy_ into a preallocated tensor
  creation,     // output only: fill, arange, rand, randn
  unary,        // one input, one output of its shape
  binary,       // two inputs of one shape
  broadcast,    // [.., N] op [N]: the second operand broadcast along the leading dims
  where,        // cond, a, b
  reduction,    // over the last dim
  softmax,      // over the last dim
  norm,         // rms_norm over the last dim, with weight
  norm_backward,
  matmul,       // mm / addmm: MxNxK
  batched,      // bmm / baddbmm: BxMxNxK
  int4_mm,      // weight_int4_mm: MxKxN (group size 128), bandwidth-bound for small M
  sparse,       // mm with a CSR [M, K] left operand of `density` (sparse_workload.cpp): MxNxK
};

struct WorkloadInfo {
  std::string name;  // what --op takes
  std::string op;    // the xd op it calls (whose registered kernels say which dtypes run)
  Kind kind;
  std::vector<int64_t> default_size;  // used when --size is not given
  double density = 0;                 // Kind::sparse: the fraction of nonzeros of the CSR operand
};

// Every workload, in the order they are run.
const std::vector<WorkloadInfo>& workloads();
const WorkloadInfo* find_workload(const std::string& name);

// Whether `backend` registers a kernel for (op, dtype); xd-bench skips the pairs it does not.
bool has_kernel(const std::string& op, const std::string& backend, Dtype dtype);

// Parses "4096x4096" (any rank for tensor ops; MxNxK or one number n = n,n,n for matmul;
// BxMxNxK for batched). ValueError with the reason otherwise.
std::vector<int64_t> parse_size(const std::string& text, Kind kind);
std::string format_size(const std::vector<int64_t>& size);

// Inputs allocated and filled on `device`; run() enqueues one call on the current stream.
struct Prepared {
  std::function<void()> run;
  double bytes = 0;  // traffic model above
  double flops = 0;  // matmul only
};

// Kind::sparse (sparse_workload.cpp): a CSR [M, K] of `density` with sorted, evenly spread random
// columns (equal count per row), times a dense [K, N]. Flops count the nonzeros only (2·nnz·N);
// bytes are the CSR's three arrays, b and the output, each once.
Prepared prepare_sparse(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device);

// ValueError when the size does not fit the workload (e.g. a rank-0 reduction).
Prepared prepare(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device);

}  // namespace xd::bench
