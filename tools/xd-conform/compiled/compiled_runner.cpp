#include "compiled_runner.hpp"

#include <xd/backend.hpp>
#include <xd/error.hpp>

#include "../tensor_factory.hpp"

#include <chrono>
#include <functional>
#include <stdexcept>
#include <utility>

namespace xd::conform {

namespace {

template <size_t>
using TensorArg = Tensor;

// The function handed to xd::compile: N tensors in, the recipe's outputs back. Its call operator
// has a fixed arity, as xd::Compiled needs.
template <class Seq>
struct RecipeFn;
template <size_t... I>
struct RecipeFn<std::index_sequence<I...>> {
  std::shared_ptr<const Recipe> recipe;
  std::vector<Tensor> operator()(TensorArg<I>... x) const { return run_recipe(*recipe, {std::move(x)...}); }
};

template <size_t N>
class CompiledN final : public CompiledRecipe {
 public:
  explicit CompiledN(const Recipe& r)
      : f_(xd::compile(RecipeFn<std::make_index_sequence<N>>{std::make_shared<const Recipe>(r)})) {}

  std::vector<Tensor> call(const std::vector<Tensor>& in) override {
    if (in.size() != N)
      throw std::invalid_argument("xd-conform: the compiled recipe takes " + std::to_string(N) + " inputs");
    return [&]<size_t... I>(std::index_sequence<I...>) { return f_(in[I]...); }
    (std::make_index_sequence<N>{});
  }
  CompileStats stats() const override { return f_.stats(); }

 private:
  Compiled<RecipeFn<std::make_index_sequence<N>>> f_;
};

// One run of the recipe: its outputs, or the error it raised.
struct Attempt {
  std::vector<Tensor> out;
  std::string type, error;
  bool raised() const { return !type.empty(); }
};

Attempt attempt(const std::function<std::vector<Tensor>()>& f) {
  Attempt a;
  try {
    a.out = f();
  } catch (const std::exception& e) {
    a.type = dynamic_cast<const CompileError*>(&e) ? "CompileError" : error_type(e);
    a.error = e.what();
  }
  return a;
}

void fail(Outcome& o, const std::string& why) {
  o.status = Status::fail;
  if (!o.message.empty()) o.message += "; ";
  o.message += why;
}

void fail_case(Outcome& o, const std::string& why) {
  fail(o, why);
  o.case_errors.push_back(why);
}

std::vector<Tensor> present(const std::vector<std::optional<Tensor>>& v) {
  std::vector<Tensor> out;
  for (const auto& t : v) out.push_back(*t);
  return out;
}

std::string describe(const CompiledRun& r) {
  if (r.graph)
    return "graph: " + std::to_string(r.kernels) + " fused kernel(s), " + std::to_string(r.eager_nodes) +
           " node(s) through the dispatch table";
  return "eager: " + r.eager_reason;
}

}  // namespace

std::unique_ptr<CompiledRecipe> compile_recipe(const Recipe& r) {
  switch (r.inputs) {
    case 1:
      return std::make_unique<CompiledN<1>>(r);
    case 2:
      return std::make_unique<CompiledN<2>>(r);
    case 3:
      return std::make_unique<CompiledN<3>>(r);
    case 4:
      return std::make_unique<CompiledN<4>>(r);
    case 5:
      return std::make_unique<CompiledN<5>>(r);
    case 6:
      return std::make_unique<CompiledN<6>>(r);
    case 7:
      return std::make_unique<CompiledN<7>>(r);
    case 8:
      return std::make_unique<CompiledN<8>>(r);
    default:
      throw std::invalid_argument("xd-conform: a recipe takes 1 to 8 inputs, not " + std::to_string(r.inputs));
  }
}

std::string stats_problem(const CompileStats& s, int calls, CompiledRun& run) {
  run.graph = s.graph_calls > 0;
  run.eager_reason = s.eager_reason;
  run.kernels = s.kernels;
  run.eager_nodes = s.eager_nodes;
  const std::string counts = " (traces " + std::to_string(s.traces) + ", graph calls " + std::to_string(s.graph_calls) +
                             ", eager calls " + std::to_string(s.eager_calls) + ")";
  if (s.traces != 1)
    return "stats: " + std::to_string(calls) + " calls with the same inputs traced " + std::to_string(s.traces) +
           " times; the guards should accept the inputs the graph was traced with" + counts;
  if (s.graph_calls + s.eager_calls != calls - 1)
    return "stats: of the " + std::to_string(calls - 1) +
           " calls after the trace, not every one ran a graph or ran eagerly" + counts;
  if (s.graph_calls > 0 && s.eager_calls > 0)
    return "stats: calls with one signature ran both a graph and eagerly" + counts;
  if (s.eager_calls > 0 && s.eager_reason.empty()) return "stats: a call ran eagerly and gives no reason" + counts;
  return "";
}

GraphOutcome run_graph_case(const GraphCase& g) {
  GraphOutcome result;
  Outcome& o = result.outcome;
  if (!g.unsupported.empty()) {
    o.status = Status::unsupported;
    o.message = g.unsupported;
    return result;
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
    std::string why;
    const auto infos = analyze(g.recipe, g.inputs, why);
    if (!infos) throw std::logic_error("the graph is not one the checker can judge: " + why);
    const Device target = Device::parse(g.backend);
    const CaseInputs in = make_inputs(as_case(g), target);
    o.input_hashes = in.hashes;
    const std::vector<Tensor> ref_in = present(in.reference), tgt_in = present(in.target);

    const bool target_is_reference = target == cpu();
    const Attempt ref = attempt([&] { return run_recipe(g.recipe, ref_in); });
    const Attempt eager = target_is_reference ? Attempt{} : attempt([&] { return run_recipe(g.recipe, tgt_in); });
    const uint64_t fallbacks = fallback_count();
    const std::unique_ptr<CompiledRecipe> f = compile_recipe(g.recipe);
    const Attempt traced = attempt([&] { return f->call(tgt_in); });
    const Attempt compiled = attempt([&] { return f->call(tgt_in); });
    if (fallback_count() != fallbacks) fail_case(o, "the compiled function fell back to the CPU backend");

    std::vector<std::pair<std::string, const Attempt*>> runs = {{"the traced call", &traced},
                                                                {"the compiled call", &compiled}};
    if (!target_is_reference) runs.insert(runs.begin(), {"eager execution on " + g.backend, &eager});
    const bool any_raised = ref.raised() || eager.raised() || traced.raised() || compiled.raised();
    if (any_raised) {
      for (const auto& [name, a] : runs) {
        if (a->type == ref.type) continue;
        if (!a->raised())
          fail_case(o, name + " succeeds where the reference raises " + ref.type + ": " + ref.error);
        else
          fail_case(o, name + " raises " + a->type + ": " + a->error +
                           (ref.raised() ? " where the reference raises " + ref.type : ""));
      }
      if (o.status != Status::fail) o.message = "every run raises " + ref.type;
    } else {
      const std::string problem = stats_problem(f->stats(), 2, result.run);
      if (!problem.empty()) fail_case(o, problem);
      if (!ref.out.empty()) o.shape = std::vector<int64_t>(ref.out[0].sizes().begin(), ref.out[0].sizes().end());
      for (size_t i = 0; i < ref.out.size(); ++i) {
        const ValueInfo& info = (*infos)[static_cast<size_t>(g.recipe.outputs[i])];
        const std::string out = "out" + std::to_string(i);
        auto check = [&](const std::string& name, const Attempt& a, const Tensor& expected) {
          OutputResult r;
          r.name = name;
          r.dtype = expected.dtype();
          r.shape.assign(expected.sizes().begin(), expected.sizes().end());
          r.tolerance = output_tolerance(info);
          if (i >= a.out.size()) {
            fail_case(o, name + ": not produced");
            return;
          }
          if (a.out[i].device() != target)
            fail_case(o, name + ": on " + a.out[i].device().str() + ", not " + target.str());
          r.comparison = compare(expected, a.out[i], r.tolerance);
          if (!r.comparison.ok) fail(o, name + ": " + r.comparison.message);
          o.outputs.push_back(std::move(r));
        };
        check(out, compiled, ref.out[i]);
        if (!target_is_reference && i < eager.out.size()) check(out + " vs eager", compiled, eager.out[i]);
        check(out + " traced", traced, ref.out[i]);
      }
      if (o.status != Status::fail) o.message = describe(result.run);
    }
  } catch (const std::exception& e) {
    fail_case(o, std::string("harness error: ") + e.what());
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace xd::conform
