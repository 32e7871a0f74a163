// A graph for `xd-conform --compiled`: a small program over tensors (a "recipe") that a function
// passed to xd::compile interprets with the public ops. The same recipe runs eagerly on the
// backend under test and on the CPU reference, so one description gives the compiled result and
// both results it is checked against. Recipes are plain data: a case id regenerates its recipe
// (graph_generator.hpp), and the fixed named graphs (fixed_graphs.hpp) are recipes written by hand.
#pragma once

#include <xd/ops.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace xd::conform {

enum class GraphOp {
  // pointwise, one operand
  neg,
  abs,
  relu,
  exp,
  log,
  sqrt,
  rsqrt,
  gelu,
  silu,
  sigmoid,
  tanh,
  pow,
  // pointwise, two operands (broadcasting); comparisons give bool
  add,
  sub,
  mul,
  div,
  maximum,
  minimum,
  eq,
  lt,
  gt,
  where,     // (condition, self, other)
  constant,  // a 0-d xd::full of `value` and `dtype` on the first input's device (how `x * 0.5` is written)
  cast,      // xd::cast to `dtype`
  // row reductions over the last `dims` dims
  sum,
  mean,
  amax,
  amin,
  softmax,
  log_softmax,  // over the last dim
  rms_norm,     // output only; args: input and, optionally, weight
  mm,
};

struct GraphStep {
  GraphOp op = GraphOp::neg;
  std::vector<int> args;  // value numbers: inputs first, then each step's result
  double alpha = 1.0;     // add, sub
  double exponent = 2.0;  // pow
  double value = 0.0;     // constant
  GeluApproximate approximate = GeluApproximate::none;
  Dtype dtype = Dtype::f32;  // cast target, constant dtype
  int dims = 1;              // reductions, rms_norm: how many trailing dims
  bool keepdim = false;
  std::optional<double> eps;  // rms_norm
};

struct Recipe {
  int inputs = 0;
  std::vector<GraphStep> steps;
  std::vector<int> outputs;  // value numbers, returned in this order
};

// The op's name in xdispatch's op schemas ("copy" for cast, "fill" for constant): the kernel
// slot eager execution uses.
const char* schema_op_name(GraphOp op);
// The recipe's name for it ("add", "cast", "constant", ...).
const char* graph_op_name(GraphOp op);

// Runs the recipe with the public ops on `inputs` (their devices); returns the outputs.
// Throws what the ops throw.
std::vector<Tensor> run_recipe(const Recipe& r, const std::vector<Tensor>& inputs);

// "v2 = mul(v0, v1); v3 = exp(v2); return v3": the recipe as text, for failure reports and --replay.
std::string recipe_text(const Recipe& r);

}  // namespace xd::conform
