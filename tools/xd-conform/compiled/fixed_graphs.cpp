// The fixed graphs of `xd-conform --compiled` and of the golden graph cases: the chains the
// compiler was built for, written as recipes, in several dtypes and shapes (size 1, odd, empty,
// transposed and broadcast inputs, and one large shape in the full run).
#include "../ops/helpers.hpp"
#include "graph_cases.hpp"

#include <map>

namespace xd::conform {

namespace {

// Writes a recipe as calls: each returns the value number of its result.
class RecipeWriter {
 public:
  explicit RecipeWriter(int inputs) { r_.inputs = inputs; }
  int op(GraphOp o, std::vector<int> args) {
    GraphStep s;
    s.op = o;
    s.args = std::move(args);
    return push(std::move(s));
  }
  int constant(double v, Dtype d) {
    GraphStep s;
    s.op = GraphOp::constant;
    s.value = v;
    s.dtype = d;
    return push(std::move(s));
  }
  int gelu(int x, GeluApproximate a) {
    GraphStep s;
    s.op = GraphOp::gelu;
    s.args = {x};
    s.approximate = a;
    return push(std::move(s));
  }
  int rms_norm(int x, int w) {
    GraphStep s;
    s.op = GraphOp::rms_norm;
    s.args = {x, w};
    s.eps = 1e-6;
    return push(std::move(s));
  }
  Recipe done(std::vector<int> outputs) {
    r_.outputs = std::move(outputs);
    return r_;
  }

 private:
  int push(GraphStep s) {
    r_.steps.push_back(std::move(s));
    return r_.inputs + static_cast<int>(r_.steps.size()) - 1;
  }
  Recipe r_;
};

// Constants take the graph's dtype, as `x * 0.5` does in the function being compiled; the
// recipe's constant steps are rewritten to the case's dtype (retype_constants).
std::vector<NamedGraph> make_named_graphs() {
  std::vector<NamedGraph> g;
  {  // tanh(gelu(x*0.5 + y)*y - x).exp()
    RecipeWriter w(2);
    const int x = 0, y = 1;
    const int t = w.op(GraphOp::add, {w.op(GraphOp::mul, {x, w.constant(0.5, Dtype::f32)}), y});
    const int u = w.op(GraphOp::sub, {w.op(GraphOp::mul, {w.gelu(t, GeluApproximate::none), y}), x});
    g.push_back({"chain6", w.done({w.op(GraphOp::exp, {w.op(GraphOp::tanh, {u})})}), {"x", "y"}});
  }
  {  // silu(x)*y + z
    RecipeWriter w(3);
    g.push_back({"silu_mul_add",
                 w.done({w.op(GraphOp::add, {w.op(GraphOp::mul, {w.op(GraphOp::silu, {0}), 1}), 2})}),
                 {"x", "y", "z"}});
  }
  {  // silu(rms_norm(x, w))
    RecipeWriter w(2);
    g.push_back({"silu_rms_norm", w.done({w.op(GraphOp::silu, {w.rms_norm(0, 1)})}), {"x", "weight"}});
  }
  {  // mm(silu(mm(x, w_gate)) * mm(x, w_up), w_down)
    RecipeWriter w(4);
    const int gate = w.op(GraphOp::silu, {w.op(GraphOp::mm, {0, 1})});
    const int up = w.op(GraphOp::mm, {0, 2});
    g.push_back({"llama_mlp",
                 w.done({w.op(GraphOp::mm, {w.op(GraphOp::mul, {gate, up}), 3})}),
                 {"x", "w_gate", "w_up", "w_down"}});
  }
  {  // softmax(tanh(x*0.5 + y) * 4, -1), and the chain's value before the softmax
    RecipeWriter w(2);
    const int t = w.op(GraphOp::tanh, {w.op(GraphOp::add, {w.op(GraphOp::mul, {0, w.constant(0.5, Dtype::f32)}), 1})});
    const int s = w.op(GraphOp::mul, {t, w.constant(4.0, Dtype::f32)});
    g.push_back({"softmax_chain", w.done({w.op(GraphOp::softmax, {s}), s}), {"x", "y"}});
  }
  return g;
}

const std::vector<NamedGraph>& named_graphs() {
  static const std::vector<NamedGraph> g = make_named_graphs();
  return g;
}

struct Variant {
  std::string graph;
  Dtype dtype;
  std::vector<Shape> shapes;  // per input, the shape the graph sees
  Layout first_layout = Layout::contiguous;
  bool full_only = false;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (Dtype d : {Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::f64}) {
    const bool full_only = d == Dtype::f64;  // f64 is the reference's own precision: the quick set skips it
    v.push_back({"chain6", d, {{33, 65}, {33, 65}}, Layout::contiguous, full_only});
    v.push_back({"silu_mul_add", d, {{13, 17}, {17}, {13, 1}}, Layout::contiguous, full_only});
    v.push_back({"silu_rms_norm", d, {{7, 64}, {64}}, Layout::contiguous, full_only});
    v.push_back({"llama_mlp", d, {{5, 32}, {32, 48}, {32, 48}, {48, 32}}, Layout::contiguous, full_only});
    v.push_back({"softmax_chain", d, {{9, 100}, {100}}, Layout::contiguous, full_only});
  }
  v.push_back({"chain6", Dtype::f32, {{1}, {1}}});
  v.push_back({"chain6", Dtype::f32, {{7}, {}}});
  v.push_back({"chain6", Dtype::f32, {{0, 9}, {0, 9}}});
  v.push_back({"chain6", Dtype::f32, {{17, 33}, {17, 33}}, Layout::transposed});
  v.push_back({"silu_mul_add", Dtype::f32, {{31, 3}, {31, 3}, {31, 3}}, Layout::sliced});
  v.push_back({"silu_rms_norm", Dtype::f32, {{3, 4099}, {4099}}});
  v.push_back({"silu_rms_norm", Dtype::f32, {{1, 1}, {1}}});
  v.push_back({"silu_rms_norm", Dtype::f32, {{0, 16}, {16}}});
  v.push_back({"llama_mlp", Dtype::f32, {{1, 8}, {8, 24}, {8, 24}, {24, 8}}});
  v.push_back({"softmax_chain", Dtype::f32, {{5, 1}, {5, 1}}});
  v.push_back({"softmax_chain", Dtype::f32, {{6, 33}, {6, 1}}, Layout::transposed});
  v.push_back({"chain6", Dtype::f32, {{1024, 1000}, {1024, 1000}}, Layout::contiguous, true});
  v.push_back({"softmax_chain", Dtype::bf16, {{1024, 1000}, {1000}}, Layout::contiguous, true});
  v.push_back({"silu_rms_norm", Dtype::f16, {{1024, 1000}, {1000}}, Layout::contiguous, true});
  v.push_back({"llama_mlp", Dtype::f32, {{64, 256}, {256, 512}, {256, 512}, {512, 256}}, Layout::contiguous, true});
  return v;
}

std::string variant_name(const Variant& v) {
  std::string s = v.graph + "." + dtype_name(v.dtype) + "." + shape_text(v.shapes[0]) + layout_suffix(v.first_layout);
  for (size_t i = 1; i < v.shapes.size(); ++i)
    if (v.shapes[i] != v.shapes[0] && v.graph != "llama_mlp" && v.graph != "silu_rms_norm")
      s += "+" + shape_text(v.shapes[i]);
  return s;
}

}  // namespace

Recipe retype_constants(Recipe r, Dtype d) {
  for (GraphStep& s : r.steps)
    if (s.op == GraphOp::constant) s.dtype = d;
  return r;
}

const NamedGraph* find_named_graph(const std::string& name) {
  for (const NamedGraph& g : named_graphs())
    if (g.name == name) return &g;
  return nullptr;
}

std::vector<GraphCase> fixed_graph_cases(bool quick) {
  std::vector<GraphCase> out;
  for (const Variant& v : variants()) {
    if (quick && v.full_only) continue;
    const NamedGraph& ng = *find_named_graph(v.graph);
    GraphCase g;
    g.variant = variant_name(v);
    g.family = "compiled " + v.graph;
    g.dtype = v.dtype;
    g.recipe = retype_constants(ng.recipe, v.dtype);
    for (size_t i = 0; i < v.shapes.size(); ++i) {
      InputSpec in = input(ng.input_names[i], v.dtype, v.shapes[i],
                           i == 0 ? usable(v.first_layout, v.shapes[i]) : Layout::contiguous);
      in.lo = -3;
      in.hi = 3;
      if (v.graph == "llama_mlp") in.lo = i == 0 ? -2 : -0.25, in.hi = -in.lo;
      if (ng.input_names[i] == "weight") {
        in.values = Values::positive;
        in.lo = 0.5;
        in.hi = 1.5;
      }
      g.inputs.push_back(std::move(in));
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace xd::conform
