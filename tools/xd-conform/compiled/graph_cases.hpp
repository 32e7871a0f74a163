// The cases of `xd-conform --compiled`: random graphs generated from the op set and its dtype
// rules (graph_generator.cpp), and fixed named graphs (fixed_graphs.cpp), each run through
// xd::compile on one backend and checked against eager execution there and on the CPU reference
// (compiled_runner.hpp). Case ids: compiled/<backend>/<variant>/s<seed>, where the variant is
// g<index> for a random graph (the graph and its inputs follow from seed and index alone, so a
// quick run's g17 is the full run's g17) and <name>.<dtype>.<shape> for a fixed graph.
#pragma once

#include "../conform_case.hpp"
#include "error_model.hpp"
#include "recipe.hpp"

#include <string>
#include <vector>

namespace xd::conform {

struct GraphCase {
  std::string id;
  std::string backend;
  std::string variant;
  std::string family;  // the report's row: "compiled pointwise", "compiled softmax", "compiled llama_mlp", ...
  uint64_t seed = 0;
  Dtype dtype = Dtype::f32;  // the graph's main dtype (its first input's)
  Recipe recipe;
  std::vector<InputSpec> inputs;
  std::string unsupported;  // set: not run, reported unsupported with this reason
};

struct GraphOptions {
  std::vector<std::string> backends;
  std::vector<std::string> ops;  // empty: all; else graphs that use one of these ops (schema names)
  std::vector<Dtype> dtypes;     // empty: all; else graphs whose main dtype is one of these
  bool quick = false;
  uint64_t seed = 0;
};

// How many random graphs a run has (g0 ... g<n-1>); the quick set leaves out the large ones.
int random_graph_count(bool quick);
// Whether random graph `index` is one of the large ones (1024x1000, full run only).
bool is_large_graph(int index);

// Random graph `index` of `seed`: a recipe whose every step the error model accepts, and its inputs.
GraphCase random_graph(uint64_t seed, int index);

// The fixed graphs: the chains, silu(rms_norm(x, w)), a LLaMA MLP block and a softmax
// of a chain, in several dtypes and shapes.
std::vector<GraphCase> fixed_graph_cases(bool quick);

// A fixed graph's recipe and input names by name (golden mode); nullptr when there is none.
struct NamedGraph {
  std::string name;
  Recipe recipe;
  std::vector<std::string> input_names;
};
const NamedGraph* find_named_graph(const std::string& name);
// The recipe with its constants made in dtype `d` (a graph's constants take its dtype, as
// `x * 0.5` does).
Recipe retype_constants(Recipe r, Dtype d);

// Every case of a run, with backend, seed and id set (and `unsupported` where the backend lacks a
// kernel the graph's eager execution needs).
std::vector<GraphCase> generate_graph_cases(const GraphOptions& o);

// The case an id names, or a UsageError-worthy message in `why` (empty result).
std::vector<GraphCase> find_graph_case(const std::string& id, std::string& why);

// The case as a generated Case, for the input factory and --replay's input dump.
Case as_case(const GraphCase& g);

// Whether graph `g` uses `op` (an op schema name: "add", "copy" for casts, "fill" for constants).
bool graph_uses(const GraphCase& g, const std::string& op);

}  // namespace xd::conform
