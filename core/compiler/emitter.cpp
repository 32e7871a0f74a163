#include "compiler/emitter.hpp"

#include <xd/dtype.hpp>
#include <xd/error.hpp>

#include "compiler/op_math.hpp"

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
    case Dtype::f64:
      return "double";
    case Dtype::f32:
      return "float";
    case Dtype::f16:
    case Dtype::bf16:
      return "ushort";
    case Dtype::i8:
      return "char";
    case Dtype::i32:
      return "int";
    case Dtype::i64:
      return "long";
    default:
      return "uchar";
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
    if (ph != Phase::epilogue_rows && inner != 0)
      at += inner == 1 ? " + " + col : " + " + col + " * " + std::to_string(inner) + "L";
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
      if (k_.row) src << "__attribute__((reqd_work_group_size(" << kernel_.local << ", 1, 1)))\n";
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
  // One block of four consecutive columns starting at the variable c0: `lane(o, col)` writes one
  // column's statements (col: "(c0 + j)"); operands read with stride 1 are loaded once as a vector,
  // stored values of stride 1 written once as a vector (one wide access instead of four).
  template <class F>
  void vector_block(std::ostream& body, const std::string& ind, F&& lane) {
    preloads_.clear();
    vector_stores_.clear();
    std::ostringstream lanes;
    for (int j = 0; j < 4; ++j) {
      vector_lane_ = j;
      lanes << ind << "{\n";
      lane(lanes, "(c0 + " + std::to_string(j) + "L)");
      lanes << ind << "}\n";
    }
    vector_lane_ = -1;
    for (const std::string& ro : preloads_) {
      const int b = ro_buffer_[ro];
      const Dtype d = value(kernel_.buffers[static_cast<size_t>(b)]).dtype;
      const std::string V = std::string(cl_scalar(d)) + "4";
      const std::string addr = "(p" + std::to_string(b) + " + " + ro + " + c0)";
      if (aligned(b, ro, 4))
        body << ind << "const " << V << " v" << ro << " = *(__global const " << V << "*)" << addr << ";\n";
      else
        body << ind << "const " << V << " v" << ro << " = vload4(0, " << addr << ");\n";
    }
    for (int b : vector_stores_)
      body << ind << "xd_T_" << tag(value(kernel_.buffers[static_cast<size_t>(b)]).dtype) << " st" << b << "[4];\n";
    body << lanes.str();
    for (int b : vector_stores_) {
      const Dtype d = value(kernel_.buffers[static_cast<size_t>(b)]).dtype;
      const std::string V = std::string(cl_scalar(d)) + "4";
      const std::string addr = "(p" + std::to_string(b) + " + r * " + std::to_string(cols_) + "L + c0)";
      const std::string sb = "st" + std::to_string(b);
      const std::string val = "(" + V + ")(" + sb + "[0], " + sb + "[1], " + sb + "[2], " + sb + "[3])";
      if (dense_aligned(b, 4))
        body << ind << "*(__global " << V << "*)" << addr << " = " << val << ";\n";
      else
        body << ind << "vstore4(" << val << ", 0, " << addr << ");\n";
    }
  }

  std::string dense_at(const std::string& col) const { return "r * " + std::to_string(cols_) + "L + " + col; }

  void pointwise_kernel(std::ostream& body) {
    if (cl_) {
      const int64_t vec = 4;
      const int64_t blocks = (cols_ + vec - 1) / vec;
      const uint64_t work = static_cast<uint64_t>(rows_) * static_cast<uint64_t>(blocks);
      const uint64_t wg = t_.work_group;
      kernel_.global = (work + wg - 1) / wg * wg;
      kernel_.local = wg;
      // A work-item does four columns of one row: the vector path, or the row's scalar tail.
      std::ostringstream vec_path, tail;
      vector_block(vec_path, "    ", [&](std::ostream& o, const std::string& col) {
        scope_.clear();
        elements(o, Phase::prologue, col, dense_at(col), true, "      ");
      });
      scope_.clear();
      elements(tail, Phase::prologue, "c", dense_at("c"), true, "      ");
      // The row offsets need r: they follow the work-item's position.
      std::ostringstream head;
      head << "  const ulong g = get_global_id(0);\n  if (g >= " << work << "UL) return;\n";
      head << "  const long r = (long)(g / " << blocks << "UL);\n  const long c0 = (long)(g - (ulong)r * " << blocks
           << "UL) * 4L;\n";
      const std::string offsets = setup_.str();
      setup_.str("");
      setup_ << head.str() << offsets;
      const bool full = cols_ % vec == 0;
      body << "  if (" << (full ? "1" : "c0 + 4L <= " + std::to_string(cols_) + "L") << ") {\n" << vec_path.str();
      body << "  } else {\n    for (long c = c0; c < " << cols_ << "L; ++c) {\n" << tail.str() << "    }\n  }\n";
      return;
    }
    // C++: a unit is a chunk of one row; the plugin spreads units over threads.
    const int64_t chunk = std::min<int64_t>(cols_, 4096);
    const int64_t chunks = (cols_ + chunk - 1) / chunk;
    kernel_.global = static_cast<uint64_t>(rows_ * chunks);
    kernel_.local = static_cast<uint64_t>(std::max<int64_t>(1, 16384 / std::max<int64_t>(chunk, 1)));
    std::ostringstream el;
    elements(el, Phase::prologue, "c", dense_at("c"), true, "      ");
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
  // Whether the row's prologue values matter only as the reduction's input: then a device kernel
  // may keep that input in registers between its passes instead of computing it again.
  bool prologue_only_feeds_reduction() const {
    const Node& red = node(k_.reduction);
    for (size_t i = 0; i < k_.nodes.size(); ++i) {
      const int id = k_.nodes[i];
      if (id == k_.reduction) continue;
      const Node& n = node(id);
      if (k_.phase[i] == Phase::prologue) {
        if (stored(n.outputs[0].value)) return false;
        continue;
      }
      for (const View& v : n.inputs)
        if (v.value >= 0 && value(v.value).kind == ValueKind::produced && v.value != red.outputs[0].value) {
          const Node& p = node(value(v.value).producer);
          for (size_t j = 0; j < k_.nodes.size(); ++j)
            if (k_.nodes[j] == value(v.value).producer && k_.phase[j] == Phase::prologue && &p != &red) return false;
        }
    }
    return true;
  }

  void row_kernel(std::ostream& body) {
    const Node& red = node(k_.reduction);
    const xd_op op = red.op;
    const View& xv = red.inputs[0];
    const Dtype xd = value(xv.value).dtype;
    const char xk = compute_kind(xd);
    const char* CT = compute_type(xd);
    const bool per_element = op == XD_OP_SOFTMAX || op == XD_OP_LOG_SOFTMAX || op == XD_OP_RMS_NORM;
    const bool is_max = op == XD_OP_AMAX || op == XD_OP_AMIN || op == XD_OP_SOFTMAX || op == XD_OP_LOG_SOFTMAX;
    const bool softmax = op == XD_OP_SOFTMAX || op == XD_OP_LOG_SOFTMAX;
    // Accumulation: double on the CPU for floating sums (the reference's), the compute type on
    // devices (float, or double for f64); integers in wrapping long.
    const char ak = xk == 'l' ? 'l' : (cl_ ? xk : 'd');
    const char* AT = ak == 'l' ? "long" : ak == 'd' ? "double" : "float";
    const std::string cols = std::to_string(cols_) + "L";
    const std::string ind = "      ";

    // Devices: a work-group per row. When the row splits into four-column blocks evenly over the
    // group (at most 16 blocks per work-item), each pass is unrolled over vector blocks, and the
    // reduction's input stays in registers between passes when nothing else of the prologue is
    // needed after the first.
    uint32_t wg = t_.work_group;
    int64_t nv = 0;
    if (cl_) {
      for (uint32_t w = t_.work_group; w >= 32 && nv == 0; w /= 2)
        if (cols_ % (4 * static_cast<int64_t>(w)) == 0 && cols_ / (4 * static_cast<int64_t>(w)) <= 16) {
          wg = w;
          nv = cols_ / (4 * static_cast<int64_t>(w));
        }
    }
    const bool vec = nv > 0;
    const bool cache = vec && per_element && prologue_only_feeds_reduction();
    bool cached = false;  // xr holds the input (after the first pass)

    if (cl_) {
      kernel_.global = static_cast<uint64_t>(rows_) * wg;
      kernel_.local = wg;
      setup_ << "  const long r = (long)get_group_id(0);\n  const int lid = (int)get_local_id(0);\n";
      setup_ << "  __local " << (is_max ? CT : AT) << " red[" << wg << "];\n";
      if (softmax) setup_ << "  __local " << AT << " red2[" << wg << "];\n";
      if (cache) setup_ << "  " << CT << " xr[" << nv * 4 << "];\n";
    } else {
      kernel_.global = static_cast<uint64_t>(rows_);
      kernel_.local = static_cast<uint64_t>(std::max<int64_t>(1, 16384 / std::max<int64_t>(cols_, 1)));
      setup_ << "  for (long r = begin; r < end; ++r) {\n";
    }
    // The reduction's input at column `col`: from registers, or the prologue's value (or a load).
    auto x_at = [&](std::ostream& o, const std::string& col, bool stores) -> std::string {
      if (cached) return "xr[i * 4 + " + col.substr(col.find('+') + 2, 1) + "]";
      scope_.clear();
      elements(o, Phase::prologue, col, dense_at(col), stores, ind);
      std::string x = operand(xv, Phase::prologue, col);
      if (cache) {
        o << ind << "xr[i * 4 + " << col.substr(col.find('+') + 2, 1) << "] = " << x << ";\n";
      }
      return x;
    };
    // One pass over the row: `each(o, col)` writes one column's statements. `reduction` is the
    // OpenMP clause of the CPU loop.
    auto pass = [&](const std::string& reduction, auto&& each) {
      if (vec) {
        body << "#pragma unroll\n  for (int i = 0; i < " << nv << "; ++i) {\n    const long c0 = ((long)i * " << wg
             << "L + lid) * 4L;\n";
        vector_block(body, "    ", [&](std::ostream& o, const std::string& col) { each(o, col); });
        body << "  }\n";
        return;
      }
      std::ostringstream el;
      each(el, std::string("c"));
      if (!cl_) body << "#pragma omp simd" << reduction << "\n";
      body << (cl_ ? "  for (long c = lid; c < " + cols + "; c += " + std::to_string(wg) + "L) {\n"
                   : "  for (long c = 0; c < " + cols + "; ++c) {\n")
           << el.str() << "  }\n";
    };
    const std::string nan = std::string("xd_isnan_") + xk;
    auto pick = [&](const std::string& a, const std::string& b, bool min) {
      return min ? "(" + b + " < " + a + " ? " + b + " : " + a + ")"
                 : "(" + a + " < " + b + " ? " + b + " : " + a + ")";
    };
    auto combine_max = [&](const std::string& a, const std::string& b, bool min) {
      if (xk == 'l') return pick(a, b, min);
      return nan + "(" + a + ") ? " + a + " : " + nan + "(" + b + ") ? " + b + " : " + pick(a, b, min);
    };
    // Group-wide combination on devices (a tree in local memory); nothing on the CPU.
    auto group_reduce = [&](const char* arr, const char* type, const std::string& var, const std::string& comb_a_b) {
      if (!cl_) return;
      body << "  " << arr << "[lid] = " << var << ";\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
      body << "  for (int s = " << wg / 2 << "; s > 0; s >>= 1) {\n    if (lid < s) { const " << type << " a = " << arr
           << "[lid], b = " << arr << "[lid + s]; " << arr << "[lid] = " << comb_a_b
           << "; }\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
      body << "  " << var << " = " << arr << "[0];\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
    };
    const std::string neg_inf = xk == 'l' ? "(-9223372036854775807L - 1L)" : "-" + literal_kind(xk, HUGE_VAL);
    const std::string pos_inf = xk == 'l' ? "9223372036854775807L" : literal_kind(xk, HUGE_VAL);

    // A reduction to one value per row has no element pass after it: its single accumulating
    // pass writes the prologue's stored values.
    const bool stores_in_reduction = !per_element;
    if (is_max) {
      const bool min = op == XD_OP_AMIN;
      const bool nan_flag = !cl_ && xk != 'l';  // the CPU's simd max loses NaNs: counted aside
      body << "  " << CT << " mx = " << (min ? pos_inf : neg_inf) << ";\n";
      if (nan_flag) body << "  int any_nan = 0;\n";
      const std::string clause =
          std::string(" reduction(") + (min ? "min" : "max") + ":mx)" + (nan_flag ? " reduction(|:any_nan)" : "");
      pass(clause, [&](std::ostream& o, const std::string& col) {
        const std::string x = x_at(o, col, stores_in_reduction);
        if (nan_flag) {
          o << ind << "any_nan |= " << nan << "(" << x << ") ? 1 : 0;\n";
          o << ind << "mx = " << pick("mx", x, min) << ";\n";
        } else {
          o << ind << "mx = " << combine_max("mx", x, min) << ";\n";
        }
      });
      cached = cache;
      if (nan_flag) body << "  if (any_nan) mx = " << literal_kind(xk, NAN) << ";\n";
      group_reduce("red", CT, "mx", combine_max("a", "b", min));
    }
    if (op == XD_OP_SUM || op == XD_OP_MEAN || op == XD_OP_RMS_NORM || softmax) {
      body << "  " << AT << " acc = 0;\n";
      pass(" reduction(+:acc)", [&](std::ostream& o, const std::string& col) {
        const std::string x = x_at(o, col, stores_in_reduction);
        std::string term;
        if (op == XD_OP_RMS_NORM) {
          term = "(" + std::string(AT) + ")" + x + " * (" + AT + ")" + x;
        } else if (softmax) {
          term = "(" + std::string(AT) + ")xd_exp_" + xk + "(" + x + " - mx)";
        } else {
          term = (ak == 'l' ? "(long)" : "(" + std::string(AT) + ")") + x;
        }
        o << ind << (ak == 'l' ? "acc = (long)((ulong)acc + (ulong)(" + term + "));\n" : "acc += " + term + ";\n");
      });
      cached = cache;
      group_reduce(softmax ? "red2" : "red", AT, "acc", ak == 'l' ? "(long)((ulong)a + (ulong)b)" : "a + b");
    }

    if (per_element) {
      const Dtype yd = value(red.outputs[0].value).dtype;
      if (op == XD_OP_RMS_NORM) {
        const auto* at = red.attrs_as<xd_attrs_rms_norm>();
        const double eps = at != nullptr ? at->eps : 1e-6;
        const Dtype rd =
            red.outputs.size() > 1 && red.outputs[1].value >= 0 ? value(red.outputs[1].value).dtype : Dtype::f32;
        const char* RT = compute_type(rd);
        body << "  const " << RT << " rstd = (" << RT << ")(" << literal_kind(ak, 1.0) << " / xd_sqrt_" << ak
             << "(acc / (" << AT << ")" << cols_ << " + " << literal_kind(ak, eps) << "));\n";
        if (red.outputs.size() > 1 && red.outputs[1].value >= 0 && stored(red.outputs[1].value)) {
          const int b = buffer(red.outputs[1].value);
          body << "  " << (cl_ ? "if (lid == 0) " : "") << "p" << b << "[r] = " << encode(rd, compute_kind(rd), "rstd")
               << ";\n";
        }
      }
      pass("", [&](std::ostream& o, const std::string& col) {
        const std::string x = x_at(o, col, true);
        std::string y;
        if (op == XD_OP_RMS_NORM) {
          std::string w;
          if (red.inputs.size() > 1 && red.inputs[1].value >= 0) {
            // The weight, viewed over the kernel's shape (broadcast over the rows).
            const View& wv = red.inputs[1];
            View full;
            full.value = wv.value;
            full.ndim = k_.ndim;
            full.offset = wv.offset;
            const int lead = k_.ndim - k_.reduced_dims;
            for (int d = 0; d < k_.ndim; ++d) {
              full.sizes[d] = k_.sizes[d];
              full.strides[d] = d < lead ? 0 : wv.strides[d - lead];
            }
            w = " * (" + std::string(CT) + ")" + operand(full, Phase::prologue, col);
          }
          y = "(" + std::string(CT) + ")(" + x + " * (" + CT + ")rstd" + w + ")";
        } else if (op == XD_OP_SOFTMAX) {
          y = cl_ ? "xd_exp_" + std::string(1, xk) + "(" + x + " - mx) / acc"
                  : "(" + std::string(CT) + ")((double)xd_exp_" + std::string(1, xk) + "(" + x + " - mx) / acc)";
        } else {
          y = cl_ ? "(" + x + " - mx) - xd_log_" + std::string(1, ak) + "(acc)"
                  : "(" + std::string(CT) + ")((double)(" + x + " - mx) - xd_log_d(acc))";
        }
        o << ind << "const " << compute_type(yd) << " y = " << round_to(yd, y) << ";\n";
        scope_[red.outputs[0].value] = "y";
        store(o, red.outputs[0].value, "y", dense_at(col), ind);
        elements(o, Phase::epilogue_elements, col, dense_at(col), true, ind);
      });
    } else {
      const Dtype od = value(red.outputs[0].value).dtype;
      const std::string v =
          op == XD_OP_MEAN ? "acc / (" + std::string(AT) + ")" + std::to_string(cols_) : (is_max ? "mx" : "acc");
      std::ostringstream el;
      el << ind << "const " << compute_type(od)
         << " y = " << round_to(od, "(" + std::string(compute_type(od)) + ")(" + v + ")") << ";\n";
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
