// What xd-bench measures: a named workload per op (and a few variants such as add_broadcast),
// its inputs built once on the device under test, the call that is timed, and the traffic /
// arithmetic model that turns a time into GB/s or GFLOP/s.
//
// Traffic model (docs/performance.md): every input is read once and every output written once,
// in its own dtype; nothing else counts (a kernel that reads x twice is not credited for it).
// Matmul counts 2·M·N·K flops (per batch), plus M·N for the β·input term of addmm/baddbmm.
#pragma once

#include <xd/compile.hpp>
#include <xd/xd.hpp>

#include <functional>
#include <string>
#include <vector>

namespace xd::bench {

enum class Kind {
  copy,       // copy_ into a preallocated tensor
  creation,   // output only: fill, arange, rand, randn
  unary,      // one input, one output of its shape
  binary,     // two inputs of one shape
  broadcast,  // [.., N] op [N]: the second operand broadcast along the leading dims
  where,      // cond, a, b
  reduction,  // over the last dim
  softmax,    // over the last dim
  norm,       // rms_norm over the last dim, with weight
  norm_backward,
  layer_norm,  // layer_norm over the last dim, with weight and bias
  matmul,      // mm / addmm: MxNxK
  batched,     // bmm / baddbmm: BxMxNxK
  int4_mm,     // weight_int4_mm: MxKxN (group size 128), bandwidth-bound for small M
  sparse,      // mm with a CSR [M, K] left operand of `density` (sparse_workload.cpp): MxNxK
  fused,       // a chain of ops, eager and through xd::compile (fused_workload.cpp)
  fused_mlp,   // the LLaMA MLP, eager and through xd::compile: TxHxI (tokens, hidden, intermediate)
  attention,   // causal scaled_dot_product_attention (model_workload.cpp): BxHxSxD
  conv,        // conv2d, padding K/2, no bias (model_workload.cpp): NxCxHxWxOxKxS
};

// Kind::fused and Kind::fused_mlp are measured twice, eagerly and compiled.
inline bool is_fused(Kind k) { return k == Kind::fused || k == Kind::fused_mlp; }

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
  // Compiled fused workloads: the xd::compile object's counters (empty otherwise).
  std::function<CompileStats()> stats;
};

// Kind::sparse (sparse_workload.cpp): a CSR [M, K] of `density` with sorted, evenly spread random
// columns (equal count per row), times a dense [K, N]. Flops count the nonzeros only (2·nnz·N);
// bytes are the CSR's three arrays, b and the output, each once.
Prepared prepare_sparse(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device);

// Kind::attention and Kind::conv (model_workload.cpp); flops as PyTorch's benchmarks count them
// (causal attention: half of the two S x S x D products).
Prepared prepare_model_op(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device);

// Kind::fused / fused_mlp (fused_workload.cpp): the function run eagerly, or through a fresh
// xd::compile object whose first (traced) call has already been made, so that run() is warm.
// Bytes: the graph's inputs read once and its outputs written once; intermediates count nothing.
Prepared prepare_fused(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device,
                       bool compiled);

// The pieces the compile-time measurement (compile_time.hpp) times separately: inputs made once,
// and a factory that returns a new xd::compile object of the same function on each call, with
// no call made yet.
struct FusedCase {
  std::function<void()> run_eager;
  std::function<Prepared()> fresh_compiled;  // run() of the result makes its calls
  double bytes = 0, flops = 0;
};
FusedCase make_fused_case(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device);

// ValueError when the size does not fit the workload (e.g. a rank-0 reduction).
// Fused kinds run eagerly here (prepare_fused chooses).
Prepared prepare(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device);

}  // namespace xd::bench
