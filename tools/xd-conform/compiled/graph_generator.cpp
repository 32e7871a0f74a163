// Random graphs for `xd-conform --compiled`. Each graph is a chain on one main value: pointwise
// ops with constants, broadcast inputs, earlier values and type casts, then at most one row
// reduction (sum/mean/amax/amin over the last dims, softmax/log_softmax, rms_norm with or without
// weight) followed by a few pointwise ops. Every step is checked by the error model
// (error_model.hpp) before it is kept: a step it cannot judge (overflow, a domain edge an inexact
// value may cross, a comparison of rounded values) is replaced by another draw, so a failing graph
// points at the compiler, not at the test.
#include <xd/backend.hpp>

#include "../ops/helpers.hpp"
#include "graph_cases.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace xd::conform {

namespace {

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() { return mix(s_++ * 0x2545f4914f6cdd1dull); }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1p-53 < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(below(static_cast<int>(v.size())))];
  }
  // An index into `weights`, drawn in proportion to them.
  int weighted(const std::vector<int>& weights) {
    int total = 0;
    for (int w : weights) total += w;
    int r = below(total);
    for (size_t i = 0; i < weights.size(); ++i)
      if ((r -= weights[i]) < 0) return static_cast<int>(i);
    return 0;
  }

 private:
  uint64_t s_;
};

constexpr int kQuickGraphs = 75, kFullGraphs = 500;

const std::vector<Shape> kShapes = {{},        {1},       {7},      {33, 65},   {0, 5},      {6, 0},
                                    {3, 1, 5}, {2, 3, 7}, {13, 17}, {129, 257}, {2, 3, 5, 7}};
const std::vector<int> kShapeWeights = {5, 8, 10, 20, 5, 4, 8, 10, 15, 10, 5};

const std::vector<Dtype> kDtypes = {Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::f64,
                                    Dtype::i32, Dtype::i64, Dtype::i8,   Dtype::u8};
const std::vector<int> kDtypeWeights = {40, 13, 13, 10, 8, 6, 5, 5};

bool floating_dtype(Dtype d) { return is_floating(d) && d != Dtype::f8e4m3fn && d != Dtype::f8e5m2; }

// Builds one graph: inputs first (the recipe numbers values inputs first), then steps, each kept
// only when the error model accepts it.
class Builder {
 public:
  explicit Builder(GraphCase& g) : g_(g) {}

  int add_input(InputSpec spec) {
    spec.name = "x" + std::to_string(g_.inputs.size());
    infos_.push_back(input_info(spec));
    g_.inputs.push_back(std::move(spec));
    g_.recipe.inputs = static_cast<int>(g_.inputs.size());
    return static_cast<int>(infos_.size()) - 1;
  }

  // Appends the steps if the model accepts them all; returns the last one's value (-1: rejected).
  int try_steps(const std::vector<GraphStep>& steps) {
    std::vector<ValueInfo> trial = infos_;
    std::string why;
    std::vector<GraphStep> fixed = steps;
    for (size_t i = 0; i < fixed.size(); ++i) {
      // A step may name "the previous step" as -2 - k (k steps back within this batch).
      for (int& a : fixed[i].args)
        if (a <= -2) a = static_cast<int>(trial.size()) + a + 1;
      auto v = propagate(fixed[i], trial, why);
      if (!v) return -1;
      trial.push_back(std::move(*v));
    }
    // Keep the chain judgeable: an inexact value whose error bound reaches a tenth of its
    // magnitude would make the tolerance meaningless.
    const ValueInfo& last = trial.back();
    if (!last.exact && last.magnitude() > 0 && last.err > 0.1 * last.magnitude() + 1e-3) return -1;
    infos_ = std::move(trial);
    for (GraphStep& s : fixed) g_.recipe.steps.push_back(std::move(s));
    return static_cast<int>(infos_.size()) - 1;
  }

  const ValueInfo& info(int v) const { return infos_[static_cast<size_t>(v)]; }
  int count() const { return static_cast<int>(infos_.size()); }

 private:
  GraphCase& g_;
  std::vector<ValueInfo> infos_;
};

GraphStep step(GraphOp op, std::vector<int> args) {
  GraphStep s;
  s.op = op;
  s.args = std::move(args);
  return s;
}

GraphStep constant(double v, Dtype d) {
  GraphStep s = step(GraphOp::constant, {});
  s.value = v;
  s.dtype = d;
  return s;
}

GraphStep cast_to(int v, Dtype d) {
  GraphStep s = step(GraphOp::cast, {v});
  s.dtype = d;
  return s;
}

double draw_constant(Rng& rng, Dtype d) {
  if (d == Dtype::u8) return rng.pick(std::vector<double>{1, 2, 3, 7});
  if (is_integral(d)) return rng.pick(std::vector<double>{1, 2, -3, 7, 0});
  return rng.pick(std::vector<double>{0.5, -1.5, 2.0, 0.125, -0.75, 3.0, 1e-3, 10.0});
}

// One action on the current value `cur`: returns the new current value, or -1 when the draw
// was rejected (the caller draws again).
int act(Rng& rng, Builder& b, int cur, bool after_reduction) {
  const ValueInfo& c = b.info(cur);
  const Dtype d = c.dtype;
  const bool fl = floating_dtype(d);
  // Values an operand may come from: those whose shape broadcasts with cur's.
  std::vector<int> operands;
  for (int v = 0; v < b.count(); ++v)
    if (v != cur && broadcast_shapes(b.info(v).shape, c.shape) && b.info(v).dtype != Dtype::boolean)
      operands.push_back(v);
  switch (rng.weighted({30, 40, 8, 12, 10})) {
    case 0: {  // a unary op
      std::vector<GraphOp> ops = {GraphOp::neg, GraphOp::abs, GraphOp::relu};
      if (fl)
        ops.insert(ops.end(), {GraphOp::exp, GraphOp::log, GraphOp::sqrt, GraphOp::rsqrt, GraphOp::gelu, GraphOp::silu,
                               GraphOp::sigmoid, GraphOp::tanh, GraphOp::pow, GraphOp::tanh, GraphOp::gelu});
      GraphStep s = step(rng.pick(ops), {cur});
      s.exponent = rng.pick(std::vector<double>{2, 3, 0.5, -1.5, 0});
      s.approximate = rng.chance(0.5) ? GeluApproximate::tanh : GeluApproximate::none;
      return b.try_steps({s});
    }
    case 1: {  // a binary op with a constant, an input or an earlier value
      std::vector<GraphOp> ops = {GraphOp::add, GraphOp::sub, GraphOp::mul, GraphOp::maximum, GraphOp::minimum};
      if (fl) ops.insert(ops.end(), {GraphOp::div, GraphOp::add, GraphOp::mul});
      GraphStep s = step(rng.pick(ops), {});
      s.alpha = fl ? rng.pick(std::vector<double>{1, 1, -0.5, 2}) : rng.pick(std::vector<double>{1, 1, 2, -1});
      std::vector<GraphStep> steps;
      int other;
      if (operands.empty() || rng.chance(0.35)) {
        steps.push_back(constant(draw_constant(rng, d), d));
        other = -2;
      } else {
        other = rng.pick(operands);
        if (b.info(other).dtype != d) {
          steps.push_back(cast_to(other, d));
          other = -2;
        }
      }
      // Operand order: `other` refers to the batch's previous step when it is negative, which
      // stays right as long as the binary step comes straight after it.
      const bool swap = rng.chance(0.4);
      s.args = swap ? std::vector<int>{other, cur} : std::vector<int>{cur, other};
      steps.push_back(s);
      return b.try_steps(steps);
    }
    case 2: {  // onto the positive half-line, then a function defined only there
      if (!fl) return -1;
      GraphStep f =
          step(rng.pick(std::vector<GraphOp>{GraphOp::log, GraphOp::sqrt, GraphOp::rsqrt, GraphOp::pow}), {-2});
      f.exponent = rng.pick(std::vector<double>{0.5, -1.5});
      return b.try_steps({step(GraphOp::abs, {cur}), constant(rng.pick(std::vector<double>{0.25, 0.5, 1.0}), d),
                          step(GraphOp::add, {-3, -2}), f});
    }
    case 3: {  // where: a condition from a bool input or a comparison of exact values
      std::vector<GraphStep> steps;
      int cond = -1;
      std::vector<int> bools, exact;
      for (int v = 0; v < b.count(); ++v) {
        const ValueInfo& x = b.info(v);
        if (!broadcast_shapes(x.shape, c.shape)) continue;
        if (x.dtype == Dtype::boolean)
          bools.push_back(v);
        else if (x.exact)
          exact.push_back(v);
      }
      if (!bools.empty() && rng.chance(0.5)) {
        cond = rng.pick(bools);
      } else if (!exact.empty()) {
        const int a = rng.pick(exact);
        const Dtype ad = b.info(a).dtype;
        std::vector<int> partners;
        for (int v : exact)
          if (b.info(v).dtype == ad && v != a) partners.push_back(v);
        steps.push_back(partners.empty() || rng.chance(0.4)
                            ? constant(draw_constant(rng, ad), ad)
                            : cast_to(rng.pick(partners), ad));  // cast to itself: a copy
        steps.push_back(step(rng.pick(std::vector<GraphOp>{GraphOp::lt, GraphOp::gt, GraphOp::eq}), {a, -2}));
        cond = -2;
      } else {
        return -1;
      }
      steps.push_back(constant(draw_constant(rng, d), d));
      const int cref = cond == -2 ? -3 : cond;
      steps.push_back(rng.chance(0.5) ? step(GraphOp::where, {cref, cur, -2}) : step(GraphOp::where, {cref, -2, cur}));
      return b.try_steps(steps);
    }
    default: {  // a type cast (and back, for fp8, which has no arithmetic)
      if (after_reduction && rng.chance(0.5)) return -1;
      if (fl && rng.chance(0.3))
        return b.try_steps({cast_to(cur, rng.chance(0.5) ? Dtype::f8e4m3fn : Dtype::f8e5m2), cast_to(-2, d)});
      std::vector<Dtype> to = {Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::f64};
      if (c.exact) to.insert(to.end(), {Dtype::i32, Dtype::i64, Dtype::i8, Dtype::boolean});
      std::erase(to, d);
      return b.try_steps({cast_to(cur, rng.pick(to))});
    }
  }
}

struct Plan {
  GraphOp op = GraphOp::neg;  // neg: no reduction
  int dims = 1;
  bool keepdim = false;
  bool weight = false;
  bool eps = false;
};

Plan plan_reduction(Rng& rng, const Shape& s, Dtype d) {
  Plan p;
  if (s.empty() || rng.chance(0.45)) return p;
  const bool fl = floating_dtype(d);
  std::vector<GraphOp> ops = {GraphOp::sum, GraphOp::amax, GraphOp::amin};
  // Integer chains may cast to f32 before a floating reduction; favour those reductions anyway.
  ops.insert(ops.end(), {GraphOp::mean, GraphOp::softmax, GraphOp::log_softmax, GraphOp::rms_norm, GraphOp::softmax,
                         GraphOp::rms_norm});
  if (!fl && rng.chance(0.5)) ops.resize(3);
  p.op = rng.pick(ops);
  p.dims = s.size() >= 2 && rng.chance(0.3) ? 2 : 1;
  if (p.op == GraphOp::softmax || p.op == GraphOp::log_softmax) p.dims = 1;
  p.keepdim = rng.chance(0.5);
  p.weight = rng.chance(0.6);
  p.eps = rng.chance(0.5);
  return p;
}

Layout draw_layout(Rng& rng, const Shape& s) {
  switch (rng.weighted({50, 20, 20, 10})) {
    case 1:
      return usable(Layout::transposed, s);
    case 2:
      return usable(Layout::sliced, s);
    case 3:
      return s.empty() ? Layout::contiguous : Layout::expanded;
    default:
      return Layout::contiguous;
  }
}

InputSpec draw_input(Rng& rng, Dtype d, const Shape& s, Layout layout) {
  InputSpec in;
  if (layout == Layout::expanded) {
    Shape stored = s;
    stored[0] = 1;
    in = expanded_input("", d, stored, s);
  } else {
    in = input("", d, s, layout);
  }
  if (is_integral(d) && d != Dtype::boolean) {
    const Range r = int_range(d, true);
    in.lo = r.lo;
    in.hi = r.hi;
  } else if (d != Dtype::boolean) {
    in.hi = rng.pick(std::vector<double>{2.0, 4.0});
    in.lo = -in.hi;
    if (rng.chance(0.25)) {  // a denominator: |x| in [0.5, hi)
      in.values = Values::magnitude;
      in.lo = 0.5;
    }
  }
  return in;
}

// A shape that broadcasts to s: s itself, its last dim, s with some dims 1, or 0-d.
Shape broadcast_shape(Rng& rng, const Shape& s) {
  if (s.empty()) return s;
  switch (rng.weighted({45, 20, 20, 15})) {
    case 1:
      return {s.back()};
    case 2: {
      Shape t = s;
      t.back() = 1;
      if (t.size() > 2 && rng.chance(0.5)) t[0] = 1;
      return t;
    }
    case 3:
      return {};
    default:
      return s;
  }
}

std::string family_of(const Plan& p) {
  return p.op == GraphOp::neg ? "compiled pointwise" : std::string("compiled ") + graph_op_name(p.op);
}

}  // namespace

int random_graph_count(bool quick) { return quick ? kQuickGraphs : kFullGraphs; }

bool is_large_graph(int index) { return index % 100 == 50; }

GraphCase random_graph(uint64_t seed, int index) {
  GraphCase g;
  g.seed = seed;
  g.variant = "g" + std::to_string(index);
  Rng rng(mix(seed ^ 0x636f6d70696c6564ull) ^ mix(static_cast<uint64_t>(index)));
  const Shape s = is_large_graph(index) ? Shape{1024, 1000} : kShapes[static_cast<size_t>(rng.weighted(kShapeWeights))];
  const Dtype d = kDtypes[static_cast<size_t>(rng.weighted(kDtypeWeights))];
  g.dtype = d;
  const Plan plan = plan_reduction(rng, s, d);
  g.family = family_of(plan);

  Builder b(g);
  int cur = b.add_input(draw_input(rng, d, s, draw_layout(rng, s)));
  const int extra = 1 + rng.below(3);
  for (int i = 0; i < extra; ++i) {
    const Shape t = broadcast_shape(rng, s);
    const int kind = rng.weighted({70, 15, 15});
    const Dtype td = kind == 1 ? Dtype::boolean : kind == 2 ? rng.pick(kDtypes) : d;
    b.add_input(draw_input(rng, td, t, rng.chance(0.7) ? Layout::contiguous : draw_layout(rng, t)));
  }
  int weight = -1;
  if (plan.op == GraphOp::rms_norm && plan.weight) {
    const Shape tail(s.end() - plan.dims, s.end());
    const Dtype wd = floating_dtype(d) ? d : Dtype::f32;
    InputSpec w = ranged_input("", wd, tail, 0.5, 1.5, rng.chance(0.8) ? Layout::contiguous : draw_layout(rng, tail));
    w.values = Values::positive;
    weight = b.add_input(w);
  }

  const int pre = 1 + rng.below(6);
  for (int i = 0, tries = 0; i < pre && tries < 40; ++tries) {
    const int next = act(rng, b, cur, false);
    if (next >= 0) cur = next, ++i;
  }
  int before_reduction = cur;
  if (plan.op != GraphOp::neg) {
    const bool needs_float = plan.op != GraphOp::sum && plan.op != GraphOp::amax && plan.op != GraphOp::amin;
    const Dtype rd = weight >= 0 ? b.info(weight).dtype : Dtype::f32;
    if ((needs_float && !floating_dtype(b.info(cur).dtype)) || (weight >= 0 && b.info(cur).dtype != rd)) {
      const int c = b.try_steps({cast_to(cur, needs_float && weight < 0 ? Dtype::f32 : rd)});
      if (c >= 0) cur = c;
    }
    GraphStep r = step(plan.op, {cur});
    r.dims = plan.dims;
    r.keepdim = plan.keepdim;
    if (plan.op == GraphOp::rms_norm) {
      if (weight >= 0) r.args.push_back(weight);
      if (plan.eps) r.eps = 1e-5;
    }
    before_reduction = cur;
    const int red = b.try_steps({r});
    if (red >= 0)
      cur = red;
    else
      g.family = "compiled pointwise";  // the model refused the reduction (an empty amax, say)
    const int post = rng.below(4);
    for (int i = 0, tries = 0; i < post && tries < 20; ++tries) {
      const int next = act(rng, b, cur, true);
      if (next >= 0) cur = next, ++i;
    }
  }
  g.recipe.outputs = {cur};
  // Sometimes also an intermediate value: the kernel that makes it must store it too.
  if (rng.chance(0.25)) {
    const int first_step = g.recipe.inputs;
    const int other = rng.chance(0.5) ? before_reduction : first_step + rng.below(std::max(1, cur - first_step));
    if (other != cur && other >= first_step) g.recipe.outputs.push_back(other);
  }
  return g;
}

Case as_case(const GraphCase& g) {
  Case c;
  c.id = g.id;
  c.schema.name = "compiled";
  c.dtype = g.dtype;
  c.backend = g.backend;
  c.variant = g.variant;
  c.seed = g.seed;
  c.inputs = g.inputs;
  return c;
}

bool graph_uses(const GraphCase& g, const std::string& op) {
  return std::any_of(g.recipe.steps.begin(), g.recipe.steps.end(),
                     [&](const GraphStep& s) { return op == schema_op_name(s.op); });
}

namespace {

// The kernel slots eager execution of the graph needs; "" when the backend has them all.
std::string missing_slot(const GraphCase& g, const std::string& backend) {
  static const std::set<std::tuple<std::string, std::string, Dtype>> slots = [] {
    std::set<std::tuple<std::string, std::string, Dtype>> s;
    for (const KernelInfo& k : kernels()) s.insert({k.backend, k.op, k.dtype});
    return s;
  }();
  std::string why;
  const auto infos = analyze(g.recipe, g.inputs, why);
  if (!infos) return "";  // the runner reports the invalid graph
  for (size_t i = 0; i < g.recipe.steps.size(); ++i) {
    const GraphStep& s = g.recipe.steps[i];
    const Dtype key = s.op == GraphOp::constant
                          ? s.dtype
                          : (*infos)[static_cast<size_t>(s.args.at(s.op == GraphOp::where ? 1 : 0))].dtype;
    if (!slots.count({backend, schema_op_name(s.op), key}))
      return "backend '" + backend + "' registers no " + schema_op_name(s.op) + " kernel for " + dtype_name(key);
  }
  return "";
}

void finish_case(GraphCase& g, const std::string& backend, uint64_t seed) {
  g.backend = backend;
  g.seed = seed;
  g.id = "compiled/" + backend + "/" + g.variant + "/s" + std::to_string(seed);
  g.unsupported = missing_slot(g, backend);
}

bool selected(const GraphCase& g, const GraphOptions& o) {
  if (!o.dtypes.empty() && std::find(o.dtypes.begin(), o.dtypes.end(), g.dtype) == o.dtypes.end()) return false;
  return o.ops.empty() ||
         std::any_of(o.ops.begin(), o.ops.end(), [&](const std::string& op) { return graph_uses(g, op); });
}

}  // namespace

std::vector<GraphCase> generate_graph_cases(const GraphOptions& o) {
  std::vector<GraphCase> out;
  for (const std::string& backend : o.backends) {
    for (int i = 0; i < random_graph_count(o.quick); ++i) {
      if (o.quick && is_large_graph(i)) continue;
      GraphCase g = random_graph(o.seed, i);
      if (!selected(g, o)) continue;
      finish_case(g, backend, o.seed);
      out.push_back(std::move(g));
    }
    for (GraphCase g : fixed_graph_cases(o.quick)) {
      if (!selected(g, o)) continue;
      finish_case(g, backend, o.seed);
      out.push_back(std::move(g));
    }
  }
  return out;
}

std::vector<GraphCase> find_graph_case(const std::string& id, std::string& why) {
  // compiled/<backend>/<variant>/s<seed>
  std::vector<std::string> parts;
  size_t p = 0;
  for (size_t q; (q = id.find('/', p)) != std::string::npos; p = q + 1) parts.push_back(id.substr(p, q - p));
  parts.push_back(id.substr(p));
  if (parts.size() != 4 || parts[0] != "compiled" || parts[3].size() < 2 || parts[3][0] != 's') {
    why = "'" + id + "' is not a compiled case id (compiled/<backend>/<variant>/s<seed>)";
    return {};
  }
  uint64_t seed = 0;
  try {
    seed = std::stoull(parts[3].substr(1));
  } catch (const std::exception&) {
    why = "'" + id + "': the last part must be s<seed>";
    return {};
  }
  const std::string& v = parts[2];
  GraphCase g;
  if (v.size() > 1 && v[0] == 'g' && std::all_of(v.begin() + 1, v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    g = random_graph(seed, std::stoi(v.substr(1)));
  } else {
    bool found = false;
    for (bool quick : {false, true})
      for (GraphCase& f : fixed_graph_cases(quick))
        if (!found && f.variant == v) g = std::move(f), found = true;
    if (!found) {
      why = "no compiled case has the variant '" + v + "' (list them with --compiled --list)";
      return {};
    }
  }
  finish_case(g, parts[1], seed);
  return {g};
}

}  // namespace xd::conform
