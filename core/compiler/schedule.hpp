// Fusion: the graph's nodes cut into steps, in trace order. A step is a fused kernel (generated
// code) or one node run through the dispatch table. A fused kernel holds
//   - a pointwise chain over one iteration shape (every node writes that shape; a value made in
//     the kernel is read by later nodes of the kernel only element for element), or
//   - a row kernel: such a chain (the prologue), one row reduction over the trailing dims of its
//     shape (sum, mean, amax, amin, softmax, log_softmax, rms_norm), and the pointwise nodes after
//     it (the epilogue: per element for softmax/log_softmax/rms_norm, per row for the others).
// A node joins the last step when it is a fused kernel and the node fits it; otherwise it opens a
// new step. Constants (FILL of a whole buffer) are inlined wherever read. A value made inside a
// kernel is stored only when something outside the kernel reads it or the function returns it.
#pragma once

#include "compiler/graph.hpp"

#include <string>
#include <vector>

namespace xd::detail::compiler {

// What the target can run in generated code (from xd_codegen_target).
struct FusionLimits {
  bool f64 = false;
};

enum class Phase { prologue, epilogue_elements, epilogue_rows };

struct Kernel {
  bool row = false;
  std::vector<int> nodes;           // in order
  std::vector<Phase> phase;         // per entry of nodes
  int reduction = -1;               // the row node (row kernels)
  int ndim = 0;                     // the prologue's (or the chain's) iteration shape
  int64_t sizes[kMaxDims] = {};
  int reduced_dims = 0;             // row kernels: trailing dims reduced
  int64_t rows() const;
  int64_t cols() const;
};

struct Step {
  bool fused = false;
  int node = -1;  // !fused
  Kernel kernel;  // fused
};

struct Schedule {
  std::vector<Step> steps;
  std::vector<bool> stored;  // per value: written to memory (produced values only)
  std::vector<int> step_of;  // per node: its step, -1 for an inlined constant
  int kernels = 0;
  int eager_nodes = 0;
};

// The op is computed by generated code when its dtypes allow (pointwise ops and row reductions).
bool is_pointwise(xd_op op);
Schedule schedule(const Graph& g, const FusionLimits& limits);

}  // namespace xd::detail::compiler
