// Runs one graph case of `xd-conform --compiled`: the recipe through xd::compile on the backend
// under test, called twice with the same inputs (the first call traces and runs eagerly, the
// second runs the compiled graph, or runs eagerly for a reason the stats give), checked against
// the same recipe run eagerly on that backend and on the CPU reference.
#pragma once

#include <xd/compile.hpp>

#include "../runner.hpp"
#include "graph_cases.hpp"

#include <memory>
#include <string>
#include <vector>

namespace xd::conform {

// What the second call of a case did, from CompiledStats.
struct CompiledRun {
  bool graph = false;        // it ran a compiled graph
  std::string eager_reason;  // else: why it ran eagerly
  int kernels = 0, eager_nodes = 0;
};

struct GraphOutcome {
  Outcome outcome;
  CompiledRun run;
};

GraphOutcome run_graph_case(const GraphCase& g);

// A recipe of any input count through xd::compile (the arity is a template parameter of the
// compiled function; this picks it at run time).
class CompiledRecipe {
 public:
  virtual ~CompiledRecipe() = default;
  virtual std::vector<Tensor> call(const std::vector<Tensor>& inputs) = 0;
  virtual CompileStats stats() const = 0;
};
// Throws std::invalid_argument for a recipe of more inputs than supported (8).
std::unique_ptr<CompiledRecipe> compile_recipe(const Recipe& r);

// Checks the stats of a compiled function after `calls` calls with one signature: traced once,
// then each later call ran the graph or ran eagerly with a reason. Empty when they fit.
std::string stats_problem(const CompileStats& s, int calls, CompiledRun& run);

}  // namespace xd::conform
