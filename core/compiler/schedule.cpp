#include "compiler/schedule.hpp"

#include <xd/dtype.hpp>

#include <algorithm>

namespace xd::detail::compiler {

int64_t Kernel::rows() const {
  int64_t n = 1;
  for (int d = 0; d < ndim - reduced_dims; ++d) n *= sizes[d];
  return n;
}
int64_t Kernel::cols() const {
  int64_t n = 1;
  for (int d = ndim - reduced_dims; d < ndim; ++d) n *= sizes[d];
  return n;
}

bool is_pointwise(xd_op op) {
  switch (op) {
    case XD_OP_FILL: case XD_OP_COPY: case XD_OP_ADD: case XD_OP_SUB: case XD_OP_MUL: case XD_OP_DIV:
    case XD_OP_POW: case XD_OP_WHERE: case XD_OP_EQ: case XD_OP_LT: case XD_OP_GT: case XD_OP_NEG:
    case XD_OP_ABS: case XD_OP_EXP: case XD_OP_LOG: case XD_OP_SQRT: case XD_OP_RSQRT: case XD_OP_RELU:
    case XD_OP_GELU: case XD_OP_SILU: case XD_OP_SIGMOID: case XD_OP_TANH: case XD_OP_MAXIMUM:
    case XD_OP_MINIMUM:
    case XD_OP_NE:
    case XD_OP_GE:
    case XD_OP_LE:
      return true;
    default:
      return false;
  }
}

namespace {

bool is_row_op(xd_op op) {
  return op == XD_OP_SUM || op == XD_OP_MEAN || op == XD_OP_AMAX || op == XD_OP_AMIN || op == XD_OP_SOFTMAX ||
         op == XD_OP_LOG_SOFTMAX || op == XD_OP_RMS_NORM;
}

bool is_fp8_dtype(Dtype d) { return d == Dtype::f8e4m3fn || d == Dtype::f8e5m2; }

// Every dtype a node touches can be computed by generated code on this target: fp8 only as the
// source or destination of a cast (the reference has no fp8 arithmetic), f64 only with F64.
bool dtypes_ok(const Graph& g, const Node& n, const FusionLimits& lim) {
  auto ok = [&](Dtype d, bool cast_end) {
    if (d == Dtype::f64 && !lim.f64) return false;
    return cast_end || !is_fp8_dtype(d);
  };
  const bool cast = n.op == XD_OP_COPY;
  for (const View& v : n.inputs)
    if (v.value >= 0 && !ok(g.values[static_cast<size_t>(v.value)].dtype, cast)) return false;
  for (const View& v : n.outputs)
    if (v.value >= 0 && !ok(g.values[static_cast<size_t>(v.value)].dtype, cast)) return false;
  return ok(n.key, cast);
}

bool same_shape(int nd_a, const int64_t* a, int nd_b, const int64_t* b) {
  if (nd_a != nd_b) return false;
  for (int d = 0; d < nd_a; ++d)
    if (a[d] != b[d]) return false;
  return true;
}

// The trailing dims a row op reduces, or 0 when it is not a row reduction generated code does.
int reduced_dims(const Node& n) {
  const View& x = n.inputs.at(0);
  if (x.ndim == 0) return 0;
  switch (n.op) {
    case XD_OP_SOFTMAX:
    case XD_OP_LOG_SOFTMAX: {
      const auto* a = n.attrs_as<xd_attrs_dim>();
      return a != nullptr && a->dim == x.ndim - 1 ? 1 : 0;
    }
    case XD_OP_RMS_NORM: {
      const auto* a = n.attrs_as<xd_attrs_rms_norm>();
      return a != nullptr && a->normalized_ndim >= 1 && a->normalized_ndim <= x.ndim ? a->normalized_ndim : 0;
    }
    default: {
      const auto* a = n.attrs_as<xd_attrs_reduce>();
      if (a == nullptr || a->dim_mask == 0) return 0;
      int k = 0;
      while (k < x.ndim && (a->dim_mask >> (x.ndim - 1 - k) & 1u) != 0) ++k;
      const uint64_t trailing = k == 64 ? ~uint64_t{0} : ((uint64_t{1} << k) - 1) << (x.ndim - k);
      return a->dim_mask == trailing ? k : 0;
    }
  }
}

// A view's trailing `k` dims collapse into one strided run (so a row's elements are a*c + b).
bool trailing_collapses(const View& v, int k) {
  for (int d = v.ndim - k; d < v.ndim - 1; ++d)
    if (v.sizes[d + 1] != 1 && v.sizes[d] != 1 && v.strides[d] != v.strides[d + 1] * v.sizes[d + 1]) return false;
  return true;
}

class Scheduler {
 public:
  Scheduler(const Graph& g, const FusionLimits& lim) : g_(g), lim_(lim) {
    s_.stored.assign(g.values.size(), false);
    s_.step_of.assign(g.nodes.size(), -1);
    step_of_value_.assign(g.values.size(), -1);
    phase_of_value_.assign(g.values.size(), Phase::prologue);
  }

  Schedule run() {
    for (size_t i = 0; i < g_.nodes.size(); ++i) place(static_cast<int>(i));
    mark_stored();
    return std::move(s_);
  }

 private:
  const Value& value(int v) const { return g_.values[static_cast<size_t>(v)]; }

  void place(int id) {
    const Node& n = g_.nodes[static_cast<size_t>(id)];
    if (n.op == XD_OP_FILL && n.outputs.size() == 1 && value(n.outputs[0].value).kind == ValueKind::constant) {
      return;  // inlined where read; stored by an eager FILL only if needed (mark_stored)
    }
    const bool pw = is_pointwise(n.op) && dtypes_ok(g_, n, lim_) && n.outputs.size() == 1;
    const bool rowop = is_row_op(n.op) && dtypes_ok(g_, n, lim_) && reduced_dims(n) > 0;
    if ((pw || rowop) && !s_.steps.empty() && s_.steps.back().fused && try_join(id, s_.steps.back().kernel)) {
      assign(id, static_cast<int>(s_.steps.size()) - 1);
      return;
    }
    Step st;
    if (pw || rowop) {
      st.fused = true;
      if (start_kernel(id, st.kernel)) {
        s_.steps.push_back(std::move(st));
        ++s_.kernels;
        assign(id, static_cast<int>(s_.steps.size()) - 1);
        return;
      }
      st = Step{};
    }
    st.node = id;
    s_.steps.push_back(std::move(st));
    ++s_.eager_nodes;
    assign(id, static_cast<int>(s_.steps.size()) - 1);
  }

  void assign(int id, int step) {
    s_.step_of[static_cast<size_t>(id)] = step;
    const Node& n = g_.nodes[static_cast<size_t>(id)];
    const Step& st = s_.steps[static_cast<size_t>(step)];
    Phase ph = Phase::prologue;
    if (st.fused) {
      const auto& k = st.kernel;
      ph = k.phase[static_cast<size_t>(std::find(k.nodes.begin(), k.nodes.end(), id) - k.nodes.begin())];
      if (id == k.reduction) {
        ph = (n.op == XD_OP_SOFTMAX || n.op == XD_OP_LOG_SOFTMAX || n.op == XD_OP_RMS_NORM) ? Phase::epilogue_elements
                                                                                              : Phase::epilogue_rows;
      }
    }
    for (const View& o : n.outputs) {
      if (o.value < 0) continue;
      step_of_value_[static_cast<size_t>(o.value)] = step;
      phase_of_value_[static_cast<size_t>(o.value)] = ph;
    }
    // rms_norm's rstd is a per-row value.
    if (st.fused && id == st.kernel.reduction && n.op == XD_OP_RMS_NORM && n.outputs.size() > 1 && n.outputs[1].value >= 0)
      phase_of_value_[static_cast<size_t>(n.outputs[1].value)] = Phase::epilogue_rows;
  }

  // Whether every input of n is readable by a kernel that is `step` and in phase `ph` with
  // iteration shape (nd, sizes): constants and values of earlier steps always; values of the
  // kernel itself only element for element, in a phase n can see.
  bool inputs_fit(const Node& n, int step, Phase ph, int64_t numel, size_t first, size_t count) {
    for (size_t i = first; i < first + count && i < n.inputs.size(); ++i) {
      const View& v = n.inputs[i];
      if (v.value < 0) continue;
      const Value& val = value(v.value);
      if (val.kind == ValueKind::constant) continue;
      if (step_of_value_[static_cast<size_t>(v.value)] != step) continue;  // an earlier step's buffer
      if (!v.is_dense(val.numel) || v.numel() != numel) return false;
      const Phase vp = phase_of_value_[static_cast<size_t>(v.value)];
      if (ph == Phase::epilogue_rows ? vp != Phase::epilogue_rows : vp == Phase::epilogue_rows) return false;
    }
    return true;
  }

  bool start_kernel(int id, Kernel& k) {
    const Node& n = g_.nodes[static_cast<size_t>(id)];
    if (is_pointwise(n.op)) {
      const View& o = n.outputs[0];
      k.ndim = o.ndim;
      std::copy(o.sizes, o.sizes + o.ndim, k.sizes);
      k.nodes.push_back(id);
      k.phase.push_back(Phase::prologue);
      return o.numel() > 0;
    }
    const View& x = n.inputs.at(0);
    k.ndim = x.ndim;
    std::copy(x.sizes, x.sizes + x.ndim, k.sizes);
    return add_reduction(id, k);
  }

  bool add_reduction(int id, Kernel& k) {
    const Node& n = g_.nodes[static_cast<size_t>(id)];
    const int r = reduced_dims(n);
    const View& x = n.inputs[0];
    if (!same_shape(x.ndim, x.sizes, k.ndim, k.sizes)) return false;
    k.reduced_dims = r;
    if (k.cols() == 0 || k.rows() == 0) return false;
    // Every operand the row kernel reads element by element must walk a row as one strided run.
    for (int m : k.nodes)
      for (const View& v : g_.nodes[static_cast<size_t>(m)].inputs)
        if (v.value >= 0 && !trailing_collapses(v, r)) return false;
    for (const View& v : n.inputs)
      if (v.value >= 0 && v.ndim == x.ndim && !trailing_collapses(v, r)) return false;
    if (n.op == XD_OP_RMS_NORM && n.inputs.size() > 1 && n.inputs[1].value >= 0) {
      const View& w = n.inputs[1];
      // The weight has the normalised shape; it must collapse too, and not be made in this kernel.
      if (w.ndim != r || !trailing_collapses(w, r)) return false;
      if (step_of_value_[static_cast<size_t>(w.value)] == static_cast<int>(s_.steps.size()) - 1 && !k.nodes.empty() &&
          value(w.value).kind != ValueKind::constant)
        return false;
    }
    for (const View& o : n.outputs)
      if (o.value >= 0 && !o.is_dense(value(o.value).numel)) return false;
    k.row = true;
    k.reduction = id;
    k.nodes.push_back(id);
    k.phase.push_back(Phase::prologue);
    return true;
  }

  bool try_join(int id, Kernel& k) {
    const Node& n = g_.nodes[static_cast<size_t>(id)];
    const int step = static_cast<int>(s_.steps.size()) - 1;
    if (is_row_op(n.op)) {
      if (k.row) return false;
      const View& x = n.inputs[0];
      // The data input must be made in this kernel (else the reduction starts its own).
      if (x.value < 0 || step_of_value_[static_cast<size_t>(x.value)] != step) return false;
      if (!inputs_fit(n, step, Phase::prologue, n.inputs[0].numel(), 0, 1)) return false;
      if (n.inputs.size() > 1 && n.inputs[1].value >= 0 && step_of_value_[static_cast<size_t>(n.inputs[1].value)] == step &&
          value(n.inputs[1].value).kind != ValueKind::constant)
        return false;
      Kernel trial = k;
      if (!add_reduction(id, trial)) return false;
      k = std::move(trial);
      return true;
    }
    const View& o = n.outputs[0];
    Phase ph = Phase::prologue;
    if (k.row) {
      const Node& red = g_.nodes[static_cast<size_t>(k.reduction)];
      const bool per_element = red.op == XD_OP_SOFTMAX || red.op == XD_OP_LOG_SOFTMAX || red.op == XD_OP_RMS_NORM;
      if (per_element) {
        ph = Phase::epilogue_elements;
        if (!same_shape(o.ndim, o.sizes, k.ndim, k.sizes)) return false;
      } else {
        ph = Phase::epilogue_rows;  // any shape of one element per row: indexed by the row
        if (o.numel() != k.rows()) return false;
      }
      if (ph == Phase::epilogue_elements)
        for (const View& v : n.inputs)
          if (v.value >= 0 && !trailing_collapses(v, k.reduced_dims)) return false;
    } else if (!same_shape(o.ndim, o.sizes, k.ndim, k.sizes)) {
      return false;
    }
    if (!inputs_fit(n, step, ph, o.numel(), 0, n.inputs.size())) return false;
    k.nodes.push_back(id);
    k.phase.push_back(ph);
    return true;
  }

  void mark_stored() {
    auto use = [&](int value_id, int reader_step) {
      if (value_id < 0) return;
      const Value& v = value(value_id);
      if (v.kind == ValueKind::input) return;
      const int made = step_of_value_[static_cast<size_t>(value_id)];
      if (v.kind == ValueKind::constant) {
        // A constant read by an eager node (or returned) needs its buffer: an eager FILL step.
        if (reader_step >= 0 && s_.steps[static_cast<size_t>(reader_step)].fused) return;
        if (!s_.stored[static_cast<size_t>(value_id)]) fill_steps_.push_back(v.producer);
        s_.stored[static_cast<size_t>(value_id)] = true;
        return;
      }
      if (made != reader_step) s_.stored[static_cast<size_t>(value_id)] = true;
    };
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const int st = s_.step_of[i];
      if (st < 0) continue;
      for (const View& v : g_.nodes[i].inputs) use(v.value, st);
    }
    for (const View& v : g_.outputs) use(v.value, -1);
    // Eager FILLs of constants go first: they read nothing.
    std::sort(fill_steps_.begin(), fill_steps_.end());
    std::vector<Step> fills;
    for (int id : fill_steps_) {
      Step st;
      st.node = id;
      fills.push_back(std::move(st));
      ++s_.eager_nodes;
    }
    if (!fills.empty()) {
      s_.steps.insert(s_.steps.begin(), fills.begin(), fills.end());
      for (int& st : s_.step_of)
        if (st >= 0) st += static_cast<int>(fills.size());
      for (size_t i = 0; i < fills.size(); ++i) s_.step_of[static_cast<size_t>(fills[i].node)] = static_cast<int>(i);
    }
  }

  const Graph& g_;
  const FusionLimits& lim_;
  Schedule s_;
  std::vector<int> step_of_value_;
  std::vector<Phase> phase_of_value_;
  std::vector<int> fill_steps_;
};

}  // namespace

Schedule schedule(const Graph& g, const FusionLimits& limits) { return Scheduler(g, limits).run(); }

}  // namespace xd::detail::compiler
