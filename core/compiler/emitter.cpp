#include "compiler/emitter.hpp"

#include "compiler/op_math.hpp"

#include <xd/dtype.hpp>
#include <xd/error.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace xd::detail::compiler {

namespace {

// OpenCL C's name of a dtype's storage scalar (for its vector types: float4, ushort4, ...).
const char* cl_scalar(Dtype d) {
  switch (d) {
    case Dtype::f64: return "double";
    case Dtype::f32: return "float";
    case Dtype::f16: case Dtype::bf16: return "ushort";
    case Dtype::i8: return "char";
    case Dtype::i32: return "int";
    case Dtype::i64: return "long";
    default: return "uchar";
  }
}

// A view reduced to what a kernel needs: an element offset, `outer` dims walked by the row index
// (or, for a per-row operand, by the linear index) and one inner stride walked by the column.
struct Indexing {
  int64_t offset = 0;
  std::vector<std::pair<int64_t, int64_t>> outer;  // (size, stride), innermost last
  int64_t inner = 0;
};

// Collapses adjacent dims of (sizes, strides) that are one run, dropping size-1 dims.
std::vector<std::pair<int64_t, int64_t>> collapse(const int64_t* sizes, const int64_t* strides, int nd) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int d = 0; d < nd; ++d) {
    if (sizes[d] == 1) continue;
    if (!out.empty() && out.back().second == strides[d] * sizes[d]) {
      out.back().first *= sizes[d];
      out.back().second = strides[d];
    } else {
      out.emplace_back(sizes[d], strides[d]);
    }
  }
  return out;
}

// The element offset of linear index `var` over `dims` (plus a constant), as an expression.
std::string offset_expr(const std::string& var, const std::vector<std::pair<int64_t, int64_t>>& dims, int64_t base) {
  std::string e = std::to_string(base) + "L";
  if (dims.empty()) return e;
  if (dims.size() == 1) {
    const int64_t st = dims[0].second;
    return st == 0 ? e : e + " + (long)" + var + " * " + std::to_string(st) + "L";
  }
  // Innermost first: q = var; idx_d = q % size_d; q /= size_d.
  std::string q = "(ulong)" + var;
  for (size_t i = dims.size(); i-- > 0;) {
    const int64_t sz = dims[i].first, st = dims[i].second;
    const std::string idx = i == 0 ? q : "(" + q + " % " + std::to_string(sz) + "UL)";
    if (st != 0) e += " + (long)" + idx + " * " + std::to_string(st) + "L";
    q = "(" + q + " / " + std::to_string(sz) + "UL)";
  }
  return e;
}

class KernelWriter {
 public:
  KernelWriter(const Graph& g, const Schedule& s, const Kernel& k, const EmitTarget& t, int step,
               const std::vector<int64_t>& base_align)
      : g_(g), s_(s), k_(k), t_(t), align_(base_align), cl_(t.language == Language::opencl_c) {
    kernel_.step = step;
    kernel_.name = "xd_fused_" + std::to_string(step);
    // The kernel's iteration structure: rows x cols, where cols is the innermost run.
    if (k.row) {
      rows_ = k.rows();
      cols_ = k.cols();
    } else {
      joint_pointwise_shape();
    }
  }

  EmittedKernel write(std::ostream& src) {
    std::ostringstream body;
    if (k_.row) {
      row_kernel(body);
    } else {
      pointwise_kernel(body);
    }
    signature(src);
    src << setup_.str() << body.str() << "}\n\n";
    return kernel_;
  }

 private:
  const Value& value(int v) const { return g_.values[static_cast<size_t>(v)]; }
  const Node& node(int n) const { return g_.nodes[static_cast<size_t>(n)]; }
  bool stored(int v) const { return s_.stored[static_cast<size_t>(v)]; }

  int buffer(int v) {
    for (size_t i = 0; i < kernel_.buffers.size(); ++i)
      if (kernel_.buffers[i] == v) return static_cast<int>(i);
    kernel_.buffers.push_back(v);
    return static_cast<int>(kernel_.buffers.size()) - 1;
  }

  // Pointwise kernels: the kernel's shape and every operand's strides collapsed together, so
  // the innermost run is as long as every operand allows.
  void joint_pointwise_shape() {
    std::vector<const View*> views;
    for (int n : k_.nodes)
      for (const View& v : node(n).inputs)
        if (v.value >= 0 && v.ndim == k_.ndim && value(v.value).kind != ValueKind::constant) views.push_back(&v);
    std::vector<int> keep;
    for (int d = 0; d < k_.ndim; ++d)
      if (k_.sizes[d] != 1) keep.push_back(d);
    // dims_[i]: (size, first dim, last dim) of a collapsed group.
    for (int d : keep) {
      bool merge = !groups_.empty();
      if (merge) {
        // The group ending at `prev` and dim d merge when every view steps prev as d's run (the
        // dense outputs always do).
        const int prev = groups_.back().second;
        for (const View* v : views)
          if (v->strides[prev] != v->strides[d] * k_.sizes[d]) merge = false;
      }
      if (merge) {
        groups_.back().second = d;
      } else {
        groups_.emplace_back(d, d);
      }
    }
    cols_ = 1;
    rows_ = 1;
    if (!groups_.empty()) {
      for (int d = groups_.back().first; d <= groups_.back().second; ++d) cols_ *= k_.sizes[d];
      for (size_t i = 0; i + 1 < groups_.size(); ++i)
        for (int d = groups_[i].first; d <= groups_[i].second; ++d) rows_ *= k_.sizes[d];
    }
  }

  // The indexing of a view over the kernel's shape (prologue, per-element epilogue).
  Indexing element_indexing(const View& v) const {
    Indexing ix;
    ix.offset = v.offset;
    if (k_.row) {
      const int lead = v.ndim - k_.reduced_dims;
      ix.outer = collapse(v.sizes, v.strides, lead);
      for (int d = v.ndim - 1; d >= lead; --d)
        if (v.sizes[d] != 1) {
          ix.inner = v.strides[d];
          break;
        }
      return ix;
    }
    if (groups_.empty()) return ix;
    for (size_t i = 0; i + 1 < groups_.size(); ++i) {
      int64_t size = 1;
      for (int d = groups_[i].first; d <= groups_[i].second; ++d) size *= k_.sizes[d];
      const int64_t st = v.strides[groups_[i].second];
      if (!ix.outer.empty() && ix.outer.back().second == st * size) {
        ix.outer.back().first *= size;
        ix.outer.back().second = st;
      } else {
        ix.outer.emplace_back(size, st);
      }
    }
    ix.inner = v.strides[groups_.back().second];
    return ix;
  }

  // A load of view v (read in `ph`), as a compute-typed expression; `col` is the column
  // expression (elements phases) and `pre` a vector preload to take lane `lane` from.
  std::string load(const View& v, Phase ph, const std::string& col) {
    const Value& val = value(v.value);
    const int b = buffer(v.value);
    const std::string p = "p" + std::to_string(b);
    std::string key;
    Indexing ix;
    if (ph == Phase::epilogue_rows) {
      ix.offset = v.offset;
      ix.outer = collapse(v.sizes, v.strides, v.ndim);
    } else {
      ix = element_indexing(v);
    }
    std::ostringstream k;
    k << b << ':' << ix.offset << ':' << ix.inner << ':' << (ph == Phase::epilogue_rows);
    for (const auto& d : ix.outer) k << ':' << d.first << 'x' << d.second;
    key = k.str();
    auto it = row_offsets_.find(key);
    std::string ro;
    if (it == row_offsets_.end()) {
      ro = "ro" + std::to_string(row_offsets_.size());
      row_offsets_[key] = ro;
      setup_ << "  const long " << ro << " = " << offset_expr("r", ix.outer, ix.offset) << ";\n";
      inner_[ro] = ph == Phase::epilogue_rows ? 0 : ix.inner;
      ro_buffer_[ro] = b;
    } else {
      ro = it->second;
    }
    const int64_t inner = inner_[ro];
    std::string at = ro;
    if (ph != Phase::epilogue_rows && inner != 0) at += inner == 1 ? " + " + col : " + " + col + " * " + std::to_string(inner) + "L";
    if (vector_lane_ >= 0 && inner == 1 && ph != Phase::epilogue_rows) {
      preloads_.insert(ro);
      return decode(val.dtype, "v" + ro + ".s" + std::to_string(vector_lane_));
    }
    return decode(val.dtype, p + "[" + at + "]");
  }

  // Statements computing the nodes of phase `ph` for one element (or row); returns nothing,
  // fills scope_ with the values computed. Stores when `with_stores`.
  void elements(std::ostream& o, Phase ph, const std::string& col, const std::string& dense, bool with_stores,
                const std::string& ind) {
    for (size_t i = 0; i < k_.nodes.size(); ++i) {
      const int id = k_.nodes[i];
      if (id == k_.reduction || k_.phase[i] != ph) continue;
      const Node& n = node(id);
      std::vector<std::string> args;
      for (const View& v : n.inputs) args.push_back(operand(v, ph, col));
      const std::string r = emit_pointwise(g_, n, args, o, tmp_, ind);
      scope_[n.outputs[0].value] = r;
      if (with_stores) store(o, n.outputs[0].value, r, dense, ind);
    }
  }

  std::string operand(const View& v, Phase ph, const std::string& col) {
    if (v.value < 0) return "";
    const Value& val = value(v.value);
    if (val.kind == ValueKind::constant) return literal(val.dtype, val.constant);
    auto it = scope_.find(v.value);
    if (it != scope_.end()) return it->second;
    return load(v, ph, col);
  }

  void store(std::ostream& o, int v, const std::string& var, const std::string& dense, const std::string& ind) {
    if (!stored(v)) return;
    const Value& val = value(v);
    const int b = buffer(v);
    const std::string enc = encode(val.dtype, compute_kind(val.dtype), var);
    if (vector_lane_ >= 0) {
      o << ind << "st" << b << "[" << vector_lane_ << "] = " << enc << ";\n";
      vector_stores_.insert(b);
      return;
    }
    o << ind << "p" << b << "[" << dense << "] = " << enc << ";\n";
  }

  void signature(std::ostream& src) {
    if (cl_) {
      if (k_.row) src << "__attribute__((reqd_work_group_size(" << t_.work_group << ", 1, 1)))\n";
      src << "XD_KERNEL void " << kernel_.name << "(";
      for (size_t i = 0; i < kernel_.buffers.size(); ++i) {
        src << (i ? ", " : "") << "__global xd_T_" << tag(value(kernel_.buffers[i]).dtype) << "* p" << i << ", long o"
            << i;
      }
      src << ") {\n";
      for (size_t i = 0; i < kernel_.buffers.size(); ++i) src << "  p" << i << " += o" << i << ";\n";
    } else {
      src << "XD_KERNEL void " << kernel_.name << "(void* const* args, long begin, long end) {\n";
      for (size_t i = 0; i < kernel_.buffers.size(); ++i) {
        const char* T = tag(value(kernel_.buffers[i]).dtype);
        src << "  xd_T_" << T << "* const __restrict p" << i << " = (xd_T_" << T << "*)args[" << 2 * i
            << "] + *(const long*)args[" << 2 * i + 1 << "];\n";
      }
    }
  }

  // ---------------------------------------------------------------- pointwise kernels
  void pointwise_kernel(std::ostream& body) {
    const std::string ind = "    ";
    if (cl_) {
      const int64_t vec = 4;
      const int64_t blocks = (cols_ + vec - 1) / vec;
      const uint64_t work = static_cast<uint64_t>(rows_) * static_cast<uint64_t>(blocks);
      const uint64_t wg = t_.work_group;
      kernel_.global = (work + wg - 1) / wg * wg;
      kernel_.local = wg;
      // Element code, once per lane of the vector path and once for the scalar tail.
      std::ostringstream lanes, tail;
      for (int j = 0; j < vec; ++j) {
        vector_lane_ = j;
        scope_.clear();
        lanes << "    {\n";
        elements(lanes, Phase::prologue, "(c0 + " + std::to_string(j) + "L)", "", true, "      ");
        lanes << "    }\n";
      }
      vector_lane_ = -1;
      scope_.clear();
      elements(tail, Phase::prologue, "c", "r * " + std::to_string(cols_) + "L + c", true, "      ");
      // setup_ runs before `r` is known in a pointwise kernel: it is filled after r and c0.
      std::ostringstream head;
      head << "  const ulong g = get_global_id(0);\n  if (g >= " << work << "UL) return;\n";
      head << "  const long r = (long)(g / " << blocks << "UL);\n  const long c0 = (long)(g - (ulong)r * " << blocks
           << "UL) * 4L;\n";
      const std::string offsets = setup_.str();
      setup_.str("");
      setup_ << head.str() << offsets;
      const bool full = cols_ % vec == 0;
      body << "  if (" << (full ? "1" : "c0 + 4L <= " + std::to_string(cols_) + "L") << ") {\n";
      for (const std::string& ro : preloads_) {
        const int b = ro_buffer_[ro];
        const Dtype d = value(kernel_.buffers[static_cast<size_t>(b)]).dtype;
        const std::string V = std::string(cl_scalar(d)) + "4";
        const std::string addr = "(p" + std::to_string(b) + " + " + ro + " + c0)";
        if (aligned(b, ro, 4))
          body << "    const " << V << " v" << ro << " = *(__global const " << V << "*)" << addr << ";\n";
        else
          body << "    const " << V << " v" << ro << " = vload4(0, " << addr << ");\n";
      }
      for (int b : vector_stores_) body << "    xd_T_" << tag(value(kernel_.buffers[static_cast<size_t>(b)]).dtype) << " st" << b << "[4];\n";
      body << lanes.str();
      for (int b : vector_stores_) {
        const Dtype d = value(kernel_.buffers[static_cast<size_t>(b)]).dtype;
        const std::string V = std::string(cl_scalar(d)) + "4";
        const std::string addr = "(p" + std::to_string(b) + " + r * " + std::to_string(cols_) + "L + c0)";
        const std::string val = "(" + V + ")(st" + std::to_string(b) + "[0], st" + std::to_string(b) + "[1], st" +
                                std::to_string(b) + "[2], st" + std::to_string(b) + "[3])";
        if (dense_aligned(b, 4))
          body << "    *(__global " << V << "*)" << addr << " = " << val << ";\n";
        else
          body << "    vstore4(" << val << ", 0, " << addr << ");\n";
      }
      body << "  } else {\n    for (long c = c0; c < " << cols_ << "L; ++c) {\n" << tail.str() << "    }\n  }\n";
      return;
    }
    // C++: a unit is a chunk of one row; the plugin spreads units over threads.
    const int64_t chunk = std::min<int64_t>(cols_, 4096);
    const int64_t chunks = (cols_ + chunk - 1) / chunk;
    kernel_.global = static_cast<uint64_t>(rows_ * chunks);
    kernel_.local = static_cast<uint64_t>(std::max<int64_t>(1, 16384 / std::max<int64_t>(chunk, 1)));
    std::ostringstream el;
    elements(el, Phase::prologue, "c", "r * " + std::to_string(cols_) + "L + c", true, "      ");
    std::ostringstream head;
    head << "  for (long u = begin; u < end; ++u) {\n";
    head << "  const long r = u / " << chunks << "L;\n";
    head << "  const long c0 = (u - r * " << chunks << "L) * " << chunk << "L;\n";
    head << "  const long c1 = c0 + " << chunk << "L < " << cols_ << "L ? c0 + " << chunk << "L : " << cols_ << "L;\n";
    const std::string offsets = setup_.str();
    setup_.str("");
    setup_ << head.str() << offsets;
    body << "#pragma omp simd\n    for (long c = c0; c < c1; ++c) {\n" << el.str() << "    }\n  }\n";
  }

  // Whether buffer b's view `ro` (an offset expression per row) is `n`-element aligned for
  // every row: base alignment, the view's constant offset and its row strides are multiples.
  bool aligned(int b, const std::string& ro, int64_t n) {
    const int v = kernel_.buffers[static_cast<size_t>(b)];
    if (align_[static_cast<size_t>(v)] % n != 0) return false;
    for (const auto& [key, name] : row_offsets_) {
      if (name != ro) continue;
      // key: b:offset:inner:rows[:size x stride]...
      std::istringstream is(key);
      std::string part;
      int field = 0;
      while (std::getline(is, part, ':')) {
        if (field == 1 && std::stoll(part) % n != 0) return false;
        if (field >= 4) {
          const auto x = part.find('x');
          if (std::stoll(part.substr(x + 1)) % n != 0) return false;
        }
        ++field;
      }
    }
    return true;
  }
  bool dense_aligned(int b, int64_t n) {
    const int v = kernel_.buffers[static_cast<size_t>(b)];
    return align_[static_cast<size_t>(v)] % n == 0 && cols_ % n == 0;
  }

  // ---------------------------------------------------------------- row kernels
  void row_kernel(std::ostream& body) {
    const Node& red = node(k_.reduction);
    const xd_op op = red.op;
    const View& xv = red.inputs[0];
    const Dtype xd = value(xv.value).dtype;
    const char xk = compute_kind(xd);
    const char* CT = compute_type(xd);
    const bool per_element = op == XD_OP_SOFTMAX || op == XD_OP_LOG_SOFTMAX || op == XD_OP_RMS_NORM;
    const bool is_max = op == XD_OP_AMAX || op == XD_OP_AMIN || op == XD_OP_SOFTMAX || op == XD_OP_LOG_SOFTMAX;
    // Accumulation: double on the CPU for floating sums (the reference's), the compute type on
    // devices (float, or double for f64); integers in wrapping long.
    const char ak = xk == 'l' ? 'l' : (cl_ ? xk : 'd');
    const char* AT = ak == 'l' ? "long" : ak == 'd' ? "double" : "float";
    const std::string cols = std::to_string(cols_) + "L";
    const std::string dense = "r * " + cols + " + c";
    const std::string ind = "      ";

    if (cl_) {
      kernel_.global = static_cast<uint64_t>(rows_) * t_.work_group;
      kernel_.local = t_.work_group;
      setup_ << "  const long r = (long)get_group_id(0);\n  const int lid = (int)get_local_id(0);\n";
      setup_ << "  __local " << (is_max ? CT : AT) << " red[" << t_.work_group << "];\n";
      if (op == XD_OP_SOFTMAX || op == XD_OP_LOG_SOFTMAX) setup_ << "  __local " << AT << " red2[" << t_.work_group << "];\n";
    } else {
      kernel_.global = static_cast<uint64_t>(rows_);
      kernel_.local = static_cast<uint64_t>(std::max<int64_t>(1, 16384 / std::max<int64_t>(cols_, 1)));
      setup_ << "  for (long r = begin; r < end; ++r) {\n";
    }
    // The reduction's input for one element: the prologue's value or a load.
    auto x_of = [&](std::ostream& o, bool stores) {
      scope_.clear();
      elements(o, Phase::prologue, "c", dense, stores, ind);
      return operand(xv, Phase::prologue, "c");
    };
    const std::string loop = cl_ ? "    for (long c = lid; c < " + cols + "; c += " + std::to_string(t_.work_group) + "L) {\n"
                                 : "    for (long c = 0; c < " + cols + "; ++c) {\n";
    const std::string nan = std::string("xd_isnan_") + xk;
    auto combine_max = [&](const std::string& a, const std::string& b, bool min) {
      if (xk == 'l') return min ? "(" + b + " < " + a + " ? " + b + " : " + a + ")" : "(" + a + " < " + b + " ? " + b + " : " + a + ")";
      return nan + "(" + a + ") ? " + a + " : " + nan + "(" + b + ") ? " + b + " : " +
             (min ? "(" + b + " < " + a + " ? " + b + " : " + a + ")" : "(" + a + " < " + b + " ? " + b + " : " + a + ")");
    };
    // Group-wide combination on devices (a tree in local memory); nothing on the CPU.
    auto group_reduce = [&](const char* arr, const std::string& var, const std::string& comb_a_b) {
      if (!cl_) return;
      body << "  " << arr << "[lid] = " << var << ";\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
      body << "  for (int s = " << t_.work_group / 2 << "; s > 0; s >>= 1) {\n    if (lid < s) { const "
           << (std::string(arr) == "red" && is_max ? CT : AT) << " a = " << arr << "[lid], b = " << arr
           << "[lid + s]; " << arr << "[lid] = " << comb_a_b << "; }\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
      body << "  " << var << " = " << arr << "[0];\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
    };
    const std::string neg_inf = xk == 'l' ? "(-9223372036854775807L - 1L)" : "-" + literal_kind(xk, HUGE_VAL);
    const std::string pos_inf = xk == 'l' ? "9223372036854775807L" : literal_kind(xk, HUGE_VAL);

    std::string m;  // the row maximum (softmax) or the row's reduced value
    if (is_max) {
      const bool min = op == XD_OP_AMIN;
      body << "  " << CT << " mx = " << (min ? pos_inf : neg_inf) << ";\n";
      if (!cl_ && xk != 'l') body << "  int any_nan = 0;\n";
      std::ostringstream el;
      const std::string x = x_of(el, false);
      if (!cl_ && xk != 'l') {
        body << "#pragma omp simd reduction(" << (min ? "min" : "max") << ":mx) reduction(|:any_nan)\n" << loop << el.str();
        body << ind << "any_nan |= " << nan << "(" << x << ") ? 1 : 0;\n";
        body << ind << "mx = " << (min ? x + " < mx ? " + x + " : mx" : "mx < " + x + " ? " + x + " : mx") << ";\n    }\n";
        body << "  if (any_nan) mx = " << literal_kind(xk, NAN) << ";\n";
      } else {
        if (!cl_) body << "#pragma omp simd reduction(" << (min ? "min" : "max") << ":mx)\n";
        body << loop << el.str() << ind << "mx = " << combine_max("mx", x, min) << ";\n    }\n";
        group_reduce("red", "mx", combine_max("a", "b", min));
      }
      m = "mx";
    }
    std::string acc;
    if (op == XD_OP_SUM || op == XD_OP_MEAN || op == XD_OP_RMS_NORM || op == XD_OP_SOFTMAX || op == XD_OP_LOG_SOFTMAX) {
      body << "  " << AT << " acc = 0;\n";
      std::ostringstream el;
      const std::string x = x_of(el, false);
      std::string term;
      if (op == XD_OP_RMS_NORM) {
        term = "(" + std::string(AT) + ")" + x + " * (" + AT + ")" + x;
      } else if (op == XD_OP_SOFTMAX || op == XD_OP_LOG_SOFTMAX) {
        term = "(" + std::string(AT) + ")xd_exp_" + xk + "(" + x + " - mx)";
      } else if (ak == 'l') {
        term = "(long)" + x;
      } else {
        term = "(" + std::string(AT) + ")" + x;
      }
      if (!cl_) body << "#pragma omp simd reduction(+:acc)\n";
      body << loop << el.str() << ind << (ak == 'l' ? "acc = (long)((ulong)acc + (ulong)(" + term + "));\n" : "acc += " + term + ";\n")
           << "    }\n";
      group_reduce(op == XD_OP_SOFTMAX || op == XD_OP_LOG_SOFTMAX ? "red2" : "red", "acc",
                   ak == 'l' ? "(long)((ulong)a + (ulong)b)" : "a + b");
      acc = "acc";
    }

    if (per_element) {
      const Dtype yd = value(red.outputs[0].value).dtype;
      std::ostringstream el;
      const std::string x = x_of(el, true);
      std::string y;
      if (op == XD_OP_RMS_NORM) {
        const auto* at = red.attrs_as<xd_attrs_rms_norm>();
        const double eps = at != nullptr ? at->eps : 1e-6;
        const Dtype rd = red.outputs.size() > 1 && red.outputs[1].value >= 0 ? value(red.outputs[1].value).dtype : Dtype::f32;
        const char* RT = compute_type(rd);
        body << "  const " << RT << " rstd = (" << RT << ")(" << literal_kind(ak, 1.0) << " / xd_sqrt_" << ak << "(acc / ("
             << AT << ")" << cols_ << " + " << literal_kind(ak, eps) << "));\n";
        if (red.outputs.size() > 1 && red.outputs[1].value >= 0 && stored(red.outputs[1].value)) {
          const int b = buffer(red.outputs[1].value);
          body << "  " << (cl_ ? "if (lid == 0) " : "") << "p" << b << "[r] = " << encode(rd, compute_kind(rd), "rstd") << ";\n";
        }
        std::string w;
        if (red.inputs.size() > 1 && red.inputs[1].value >= 0) {
          // The weight, viewed over the kernel's shape (broadcast over the rows).
          View wv = red.inputs[1];
          View full;
          full.value = wv.value;
          full.ndim = k_.ndim;
          full.offset = wv.offset;
          const int lead = k_.ndim - k_.reduced_dims;
          for (int d = 0; d < k_.ndim; ++d) {
            full.sizes[d] = k_.sizes[d];
            full.strides[d] = d < lead ? 0 : wv.strides[d - lead];
          }
          const std::string wl = operand(full, Phase::prologue, "c");
          w = " * (" + std::string(CT) + ")" + wl;
        }
        y = "(" + std::string(CT) + ")(" + x + " * (" + CT + ")rstd" + w + ")";
      } else if (op == XD_OP_SOFTMAX) {
        y = cl_ ? "xd_exp_" + std::string(1, xk) + "(" + x + " - mx) / acc"
                : "(" + std::string(CT) + ")((double)xd_exp_" + std::string(1, xk) + "(" + x + " - mx) / acc)";
      } else {
        y = cl_ ? "(" + x + " - mx) - xd_log_" + std::string(1, ak) + "(acc)"
                : "(" + std::string(CT) + ")((double)(" + x + " - mx) - xd_log_d(acc))";
      }
      el << ind << "const " << compute_type(yd) << " y = " << round_to(yd, y) << ";\n";
      scope_[red.outputs[0].value] = "y";
      store(el, red.outputs[0].value, "y", dense, ind);
      elements(el, Phase::epilogue_elements, "c", dense, true, ind);
      if (!cl_) body << "#pragma omp simd\n";
      body << loop << el.str() << "    }\n";
    } else {
      const Dtype od = value(red.outputs[0].value).dtype;
      std::string v = op == XD_OP_MEAN ? "acc / (" + std::string(AT) + ")" + std::to_string(cols_) : (is_max ? m : acc);
      std::ostringstream el;
      el << ind << "const " << compute_type(od) << " y = " << round_to(od, "(" + std::string(compute_type(od)) + ")(" + v + ")")
         << ";\n";
      scope_.clear();
      scope_[red.outputs[0].value] = "y";
      store(el, red.outputs[0].value, "y", "r", ind);
      elements(el, Phase::epilogue_rows, "", "r", true, ind);
      body << (cl_ ? "  if (lid == 0) {\n" : "  {\n") << el.str() << "  }\n";
    }
    if (!cl_) body << "  }\n";
  }

  const Graph& g_;
  const Schedule& s_;
  const Kernel& k_;
  const EmitTarget& t_;
  const std::vector<int64_t>& align_;
  bool cl_;
  int64_t rows_ = 1, cols_ = 1;
  std::vector<std::pair<int, int>> groups_;
  EmittedKernel kernel_;
  std::ostringstream setup_;
  std::map<std::string, std::string> row_offsets_;
  std::map<std::string, int64_t> inner_;
  std::map<std::string, int> ro_buffer_;
  std::map<int, std::string> scope_;
  std::set<std::string> preloads_;
  std::set<int> vector_stores_;
  int vector_lane_ = -1;
  int tmp_ = 0;
};

}  // namespace

EmittedProgram emit(const Graph& g, const Schedule& s, const EmitTarget& t, const std::vector<int64_t>& base_align) {
  EmittedProgram p;
  std::ostringstream src;
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    if (!st.fused) continue;
    KernelWriter w(g, s, st.kernel, t, static_cast<int>(i), base_align);
    p.kernels.push_back(w.write(src));
  }
  p.source = src.str();
  return p;
}

}  // namespace xd::detail::compiler
