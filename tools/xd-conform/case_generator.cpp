#include "case_generator.hpp"

#include "quant_cases.hpp"
#include "sparse_cases.hpp"

#include <xd/backend.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace xd::conform {

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::contiguous: return "contiguous";
    case Layout::transposed: return "transposed";
    case Layout::sliced: return "sliced";
    case Layout::expanded: return "expanded";
  }
  return "?";
}

namespace {

using Shape = std::vector<int64_t>;

std::string shape_text(const Shape& s) {
  if (s.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// Value ranges that keep every dtype exact where it must be (no integer overflow that would
// differ by accumulation order, no float-to-integer conversion out of range).
struct Range {
  double lo, hi;
};
Range int_range(Dtype d, bool small) {
  switch (d) {
    case Dtype::i8: return small ? Range{-10, 10} : Range{-60, 60};
    case Dtype::u8: return small ? Range{0, 15} : Range{0, 120};
    default: return small ? Range{-300, 300} : Range{-1000, 1000};
  }
}

InputSpec input(const std::string& name, Dtype d, Shape sizes, Layout layout = Layout::contiguous) {
  InputSpec s;
  s.name = name;
  s.dtype = d;
  s.sizes = std::move(sizes);
  s.layout = layout;
  if (d == Dtype::boolean) s.values = Values::boolean;
  if (is_integral(d)) {
    const Range r = int_range(d, false);
    s.lo = r.lo;
    s.hi = r.hi;
  }
  return s;
}

// An input stored with size-1 dims and expanded (stride 0) to `to`, the shape the op sees.
InputSpec expanded_input(const std::string& name, Dtype d, Shape stored, Shape to) {
  InputSpec s = input(name, d, std::move(stored), Layout::expanded);
  s.expand_to = std::move(to);
  return s;
}

// "1x9.ex6x9": the stored shape, then the shape it is expanded to.
std::string expanded_text(const Shape& stored, const Shape& to) { return shape_text(stored) + ".ex" + shape_text(to); }

// Drops the entries whose name `name_of` gives is in `names`. By name, never by position, so
// editing one list cannot silently drop another case from the quick set.
template <class T, class F>
void erase_named(std::vector<T>& v, const std::set<std::string>& names, F name_of) {
  std::erase_if(v, [&](const T& x) { return names.count(name_of(x)) != 0; });
}

// A layout the shape can have: transposing needs two dims, slicing one.
Layout usable(Layout l, const Shape& s) {
  if (l == Layout::transposed && s.size() < 2) return s.empty() ? Layout::contiguous : Layout::sliced;
  if (l == Layout::sliced && s.empty()) return Layout::contiguous;
  return l;
}

const char* layout_suffix(Layout l) {
  switch (l) {
    case Layout::transposed: return ".T";
    case Layout::sliced: return ".sl";
    case Layout::expanded: return ".ex";
    default: return "";
  }
}

struct Builder {
  const OpSchema& schema;
  Dtype dtype;
  bool quick;
  std::vector<Case> out;

  Case& add(std::string variant) {
    Case c;
    c.schema = schema;
    c.dtype = dtype;
    c.variant = std::move(variant);
    out.push_back(std::move(c));
    return out.back();
  }
  bool floating() const { return is_floating(dtype); }
};

// ------------------------------------------------------------------ per kind

void creation_cases(Builder& b) {
  const std::vector<Shape> shapes = b.quick ? std::vector<Shape>{{}, {0}, {1}, {7, 13}, {4099}}
                                            : std::vector<Shape>{{}, {0}, {1}, {7, 13}, {3, 5, 7}, {4099}, {1 << 20}};
  const std::string& n = b.schema.name;
  for (const Shape& s : shapes) {
    if (b.schema.kind == OpKind::fill) {
      const double v = b.dtype == Dtype::boolean ? 1.0 : is_integral(b.dtype) ? 7.0 : -1.25;
      Case& c = b.add(shape_text(s));
      c.attrs.sizes = s;
      c.attrs.value = v;
    } else if (b.schema.kind == OpKind::arange) {
      if (s.size() != 1) continue;
      const int64_t len = (b.dtype == Dtype::i8 || b.dtype == Dtype::u8) ? std::min<int64_t>(s[0], 100) : s[0];
      const bool narrow = b.dtype == Dtype::f16 || b.dtype == Dtype::bf16;
      // i8/u8 ranges are capped at 100 values, so two long shapes can become the same case.
      if (std::any_of(b.out.begin(), b.out.end(), [&](const Case& o) { return o.variant == shape_text({len}); }))
        continue;
      Case& c = b.add(shape_text({len}));
      c.attrs.sizes = {len};
      c.attrs.start = is_integral(b.dtype) ? (b.dtype == Dtype::u8 ? 3 : -5) : -1.5;
      c.attrs.step = is_integral(b.dtype) ? 1 : (narrow ? 0.25 : 0.125);
      if (narrow && len > 512) c.attrs.step = 1.0 / 256;  // stays representable (exact) in bf16 up to 2^8
    } else {
      Case& c = b.add(shape_text(s));
      c.attrs.sizes = s;
    }
  }
  (void)n;
}

void copy_cases(Builder& b) {
  static const Dtype all[] = {Dtype::f64, Dtype::f32, Dtype::f16,     Dtype::bf16,    Dtype::i8,    Dtype::u8,
                              Dtype::i32, Dtype::i64, Dtype::boolean, Dtype::f8e4m3fn, Dtype::f8e5m2};
  std::vector<std::pair<Shape, Layout>> shapes = {{{}, Layout::contiguous}, {{0, 3}, Layout::contiguous},
                                                  {{13, 17}, Layout::contiguous}, {{13, 17}, Layout::transposed},
                                                  {{9, 5}, Layout::sliced}};
  if (!b.quick) shapes.push_back({{257, 1031}, Layout::contiguous});
  // A stride-0 source (a [1, 9] row expanded to [6, 9]): its last entry, with the stored shape.
  shapes.push_back({{1, 9}, Layout::expanded});
  for (Dtype to : all) {
    for (const auto& [s, l] : shapes) {
      if (b.quick && l == Layout::sliced && to != Dtype::f32) continue;
      const bool ex = l == Layout::expanded;
      Case& c = b.add(std::string("to_") + dtype_name(to) + "." +
                      (ex ? expanded_text(s, {6, 9}) : shape_text(s) + layout_suffix(l)));
      InputSpec in = ex ? expanded_input("self", b.dtype, s, {6, 9}) : input("self", b.dtype, s, usable(l, s));
      // Floating sources stay inside the destination's range: converting an out-of-range float
      // to an integer is undefined in C and differs between devices.
      if (is_floating(b.dtype)) {
        if (to == Dtype::u8) in.lo = 0, in.hi = 200;
        else if (to == Dtype::i8) in.lo = -100, in.hi = 100;
        else if (is_integral(to)) in.lo = -1000, in.hi = 1000;
        else in.lo = -100, in.hi = 100;
      }
      c.inputs = {in};
      c.attrs.to_dtype = to;
    }
    // NaN and infinities survive every floating-to-floating cast.
    const bool wide = to == Dtype::f64 || to == Dtype::f32 || to == Dtype::f16 || to == Dtype::bf16;
    if (b.floating() && b.dtype != Dtype::f8e4m3fn && b.dtype != Dtype::f8e5m2 && wide) {
      Case& c = b.add(std::string("to_") + dtype_name(to) + ".special.257");
      InputSpec in = input("self", b.dtype, {257});
      in.values = Values::special;
      c.inputs = {in};
      c.attrs.to_dtype = to;
    }
  }
}

// Unary values: domains where the function is defined, and what the CPU reference computes.
void unary_domain(const std::string& op, InputSpec& in) {
  if (!is_floating(in.dtype)) {
    const Range r = int_range(in.dtype, false);
    in.lo = r.lo;
    in.hi = r.hi;
    if (op == "abs" || op == "neg") in.lo = std::max(in.lo, -100.0);
    return;
  }
  if (op == "log" || op == "sqrt" || op == "rsqrt" || op == "pow") {
    in.values = Values::positive;
    in.lo = 0.05;
    in.hi = 8.0;
  } else if (op == "exp") {
    in.lo = -8;
    in.hi = 8;
  } else {
    in.lo = -5;
    in.hi = 5;
  }
}

void unary_cases(Builder& b) {
  const std::string& op = b.schema.name;
  std::vector<std::pair<Shape, Layout>> shapes = {
      {{}, Layout::contiguous},     {{0}, Layout::contiguous},       {{1}, Layout::contiguous},
      {{7}, Layout::contiguous},    {{13, 17}, Layout::contiguous},  {{13, 17}, Layout::transposed},
      {{31, 3}, Layout::sliced},    {{3, 1, 5}, Layout::contiguous}, {{4099}, Layout::contiguous}};
  if (!b.quick) {
    shapes.push_back({{2, 3, 5, 7}, Layout::transposed});
    shapes.push_back({{(1 << 20) + 7}, Layout::contiguous});
  } else {
    // 13x17 and 4099 keep odd and prime sizes in the quick set.
    erase_named(shapes, {"7", "3x1x5"}, [](const auto& p) { return shape_text(p.first); });
  }
  std::vector<double> exponents = {2.0};
  if (op == "pow") exponents = b.quick ? std::vector<double>{2.0, -1.5} : std::vector<double>{2.0, 0.5, -1.5, 3.0, 0.0};
  std::vector<GeluApproximate> approx = {GeluApproximate::none};
  if (op == "gelu") approx = {GeluApproximate::none, GeluApproximate::tanh};
  for (double e : exponents) {
    for (GeluApproximate a : approx) {
      std::string tag;
      if (op == "pow") tag = "e" + std::to_string(e).substr(0, std::to_string(e).find('.') + 2) + ".";
      if (op == "gelu") tag = a == GeluApproximate::tanh ? "tanh." : "erf.";
      for (const auto& [s, l] : shapes) {
        Case& c = b.add(tag + shape_text(s) + layout_suffix(usable(l, s)));
        InputSpec in = input("self", b.dtype, s, usable(l, s));
        unary_domain(op, in);
        c.inputs = {in};
        c.attrs.exponent = e;
        c.attrs.approximate = a;
      }
      // An expanded (stride 0) input.
      {
        Case& c = b.add(tag + "1x9.ex6x9");
        InputSpec in = input("self", b.dtype, {1, 9}, Layout::expanded);
        in.expand_to = {6, 9};
        unary_domain(op, in);
        c.inputs = {in};
        c.attrs.exponent = e;
        c.attrs.approximate = a;
      }
      if (b.floating()) {
        Case& c = b.add(tag + "special.257");
        InputSpec in = input("self", b.dtype, {257});
        in.values = Values::special;
        in.lo = -5;
        in.hi = 5;
        c.inputs = {in};
        c.attrs.exponent = e;
        c.attrs.approximate = a;
      }
    }
  }
}

// Binary, compare and where: equal shapes, broadcasting both ways, expanded and strided inputs.
void binary_like_cases(Builder& b) {
  const OpKind kind = b.schema.kind;
  const std::string& op = b.schema.name;
  struct Pair {
    Shape a, b;
    Layout la = Layout::contiguous, lb = Layout::contiguous;
  };
  std::vector<Pair> pairs = {{{}, {}},         {{0, 3}, {3}},     {{1}, {1}},          {{13, 17}, {13, 17}},
                             {{7, 13}, {13}},  {{7, 1}, {1, 13}}, {{}, {5, 3}},        {{13, 17}, {13, 17}, Layout::transposed, Layout::contiguous},
                             {{9, 5}, {9, 5}, Layout::sliced, Layout::transposed},     {{4099}, {4099}}};
  if (!b.quick) {
    pairs.push_back({{2, 1, 7, 5}, {3, 1, 5}});
    pairs.push_back({{513, 1031}, {1031}});
    pairs.push_back({{(1 << 20) + 3}, {(1 << 20) + 3}});
  }
  // The quick set keeps every pair above: size 1 (1+1), a 0-d operand broadcast to a matrix
  // (scalar+5x3), empty, odd, transposed, sliced and both broadcast directions.
  const bool small = op == "mul";
  auto fill_range = [&](InputSpec& in, bool denominator) {
    if (is_integral(in.dtype)) {
      const Range r = int_range(in.dtype, small);
      in.lo = r.lo;
      in.hi = r.hi;
    } else if (denominator) {
      in.values = Values::magnitude;  // |x| in [0.5, 2), either sign
      in.lo = 0.5;
      in.hi = 2.0;
    }
    // Comparisons on wide integer ranges rarely tie; a narrow range makes eq meaningful.
    if (kind == OpKind::compare && is_integral(in.dtype)) in.lo = 0, in.hi = 4;
    if (kind == OpKind::compare && is_floating(in.dtype)) in.lo = -2, in.hi = 2;
  };
  auto make = [&](const std::string& variant, Shape sa, Layout la, Shape sb, Layout lb, Values v) {
    Case& c = b.add(variant);
    la = usable(la, sa);
    lb = usable(lb, sb);
    if (kind == OpKind::where) {
      Shape sc = sa.size() >= sb.size() ? sa : sb;
      InputSpec cond = input("condition", Dtype::boolean, sc);
      c.inputs.push_back(cond);
    }
    InputSpec a = input(kind == OpKind::where ? "self" : "self", b.dtype, sa, la);
    InputSpec bb = input("other", b.dtype, sb, lb);
    fill_range(a, false);
    fill_range(bb, op == "div");
    if (v == Values::special && is_floating(b.dtype)) a.values = bb.values = Values::special;
    c.inputs.push_back(a);
    c.inputs.push_back(bb);
    if (op == "add" || op == "sub") c.attrs.alpha = is_integral(b.dtype) ? 2.0 : -0.5;
    if (b.dtype == Dtype::boolean) c.attrs.alpha = 1.0;
  };
  for (const Pair& p : pairs) {
    std::string v = shape_text(p.a) + layout_suffix(usable(p.la, p.a)) + "+" + shape_text(p.b) +
                    layout_suffix(usable(p.lb, p.b));
    make(v, p.a, p.la, p.b, p.lb, Values::uniform);
  }
  {
    Case& c = b.add("1x9.ex5x9+5x9");
    InputSpec a = input("self", b.dtype, {1, 9}, Layout::expanded);
    a.expand_to = {5, 9};
    InputSpec bb = input("other", b.dtype, {5, 9});
    fill_range(a, false);
    fill_range(bb, op == "div");
    if (kind == OpKind::where) c.inputs.push_back(input("condition", Dtype::boolean, {5, 9}));
    c.inputs.push_back(a);
    c.inputs.push_back(bb);
  }
  if (is_floating(b.dtype)) make("special.257+257", {257}, Layout::contiguous, {257}, Layout::contiguous, Values::special);
}

void reduce_cases(Builder& b) {
  const bool arg = b.schema.kind == OpKind::argreduce;
  const std::string& op = b.schema.name;
  const bool needs_nonempty = op != "sum" && op != "mean";
  struct R {
    Shape s;
    std::vector<int64_t> dims;
    bool keepdim;
    Layout l = Layout::contiguous;
  };
  std::vector<R> rs = {{{}, {}, false},         {{1}, {0}, false},        {{7}, {}, false},
                       {{13, 17}, {0}, false},  {{13, 17}, {1}, true},    {{13, 17}, {-1}, false, Layout::transposed},
                       {{3, 5, 7}, {0, 2}, true}, {{3, 5, 7}, {1}, false, Layout::sliced}, {{0, 5}, {1}, false},
                       {{5, 0}, {1}, false},    {{64, 4099}, {1}, false}};
  if (!b.quick) {
    rs.push_back({{2, 3, 4, 5}, {1, 3}, false, Layout::transposed});
    rs.push_back({{4099, 64}, {0}, true});
    rs.push_back({{1 << 20}, {}, false});
  } else {
    // 13x17 and 64x4099 keep odd and prime sizes; the sliced 3x5x7 stays.
    erase_named(rs, {"7"}, [](const R& r) { return shape_text(r.s); });
  }
  for (const R& r : rs) {
    std::vector<int64_t> dims = r.dims;
    if (arg) {
      if (dims.size() != 1) {
        if (r.s.empty()) dims = {0};
        else dims = {static_cast<int64_t>(r.s.size()) - 1};
      }
    }
    int64_t len = 1;
    bool empty_reduced = false;
    if (dims.empty()) {
      len = std::max<int64_t>(1, numel(r.s));
      empty_reduced = numel(r.s) == 0;
    }
    for (int64_t d : dims) {
      if (r.s.empty()) continue;
      const int64_t n = r.s[static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(r.s.size()) : d)];
      len *= std::max<int64_t>(1, n);
      empty_reduced = empty_reduced || n == 0;
    }
    // amax/amin/argmax on an empty reduced dim raise ShapeError: both sides must agree on that,
    // which the runner checks, so such cases stay in.
    (void)needs_nonempty;
    std::string v = shape_text(r.s) + layout_suffix(usable(r.l, r.s)) + ".d";
    for (size_t i = 0; i < dims.size(); ++i) v += (i ? "," : "") + std::to_string(dims[i]);
    if (dims.empty()) v += "all";
    if (r.keepdim) v += ".k";
    Case& c = b.add(v);
    InputSpec in = input("self", b.dtype, r.s, usable(r.l, r.s));
    c.inputs = {in};
    c.attrs.dims = dims;
    c.attrs.dim = dims.empty() ? 0 : dims[0];
    c.attrs.keepdim = r.keepdim;
    c.attrs.reduction_length = len;
    (void)empty_reduced;
  }
  // Expanded (stride 0) inputs: reduced along the repeated dim (every term equal; argmax must
  // pick the first) and across it.
  for (const auto& [stored, dim] : {std::pair<Shape, int64_t>{{1, 9}, 0}, std::pair<Shape, int64_t>{{6, 1}, 1}}) {
    const Shape to = {6, 9};
    Case& c = b.add(expanded_text(stored, to) + ".d" + std::to_string(dim));
    c.inputs = {expanded_input("self", b.dtype, stored, to)};
    c.attrs.dims = {dim};
    c.attrs.dim = dim;
    c.attrs.reduction_length = to[static_cast<size_t>(dim)];
  }
  if (is_floating(b.dtype)) {
    Case& c = b.add("special.9x31.d1");
    InputSpec in = input("self", b.dtype, {9, 31});
    in.values = Values::special;
    c.inputs = {in};
    c.attrs.dims = {1};
    c.attrs.dim = 1;
    c.attrs.reduction_length = 31;
  }
}

void softmax_cases(Builder& b) {
  struct S {
    Shape s;
    int64_t dim;
    Layout l = Layout::contiguous;
  };
  std::vector<S> ss = {{{}, 0},          {{1}, 0},         {{0, 7}, 1},     {{13, 17}, 1}, {{13, 17}, 0},
                       {{13, 17}, -1, Layout::transposed}, {{3, 5, 7}, 1, Layout::sliced}, {{16, 4099}, 1}};
  if (!b.quick) ss.push_back({{4099, 33}, 0});
  for (const S& s : ss) {
    Case& c = b.add(shape_text(s.s) + layout_suffix(usable(s.l, s.s)) + ".d" + std::to_string(s.dim));
    InputSpec in = input("self", b.dtype, s.s, usable(s.l, s.s));
    in.lo = -8;
    in.hi = 8;
    c.inputs = {in};
    c.attrs.dim = s.dim;
    int64_t len = 1;
    if (!s.s.empty()) len = s.s[static_cast<size_t>(s.dim < 0 ? s.dim + static_cast<int64_t>(s.s.size()) : s.dim)];
    c.attrs.reduction_length = std::max<int64_t>(1, len);
  }
  // Expanded (stride 0) inputs: softmax along the repeated dim (a uniform distribution) and
  // across it (equal rows).
  for (const auto& [stored, dim] : {std::pair<Shape, int64_t>{{1, 9}, 0}, std::pair<Shape, int64_t>{{6, 1}, 1}}) {
    const Shape to = {6, 9};
    Case& c = b.add(expanded_text(stored, to) + ".d" + std::to_string(dim));
    InputSpec in = expanded_input("self", b.dtype, stored, to);
    in.lo = -8;
    in.hi = 8;
    c.inputs = {in};
    c.attrs.dim = dim;
    c.attrs.reduction_length = to[static_cast<size_t>(dim)];
  }
  Case& c = b.add("special.9x31.d1");
  InputSpec in = input("self", b.dtype, {9, 31});
  in.values = Values::special;
  c.inputs = {in};
  c.attrs.dim = 1;
  c.attrs.reduction_length = 31;
}

// Matmul family: (B,) M, K, N with degenerate, odd, prime and large sizes; transposed operands.
void matmul_cases(Builder& b) {
  const OpKind kind = b.schema.kind;
  const bool batched = kind == OpKind::bmm || kind == OpKind::baddbmm;
  const bool with_input = kind == OpKind::addmm || kind == OpKind::baddbmm;
  struct M {
    int64_t B, m, k, n;
    Layout la = Layout::contiguous, lb = Layout::contiguous;
  };
  std::vector<M> ms = {{1, 1, 1, 1},
                       {2, 0, 5, 3},
                       {2, 5, 0, 3},
                       {3, 7, 13, 11},
                       {1, 64, 64, 64},
                       {2, 13, 17, 11, Layout::transposed, Layout::contiguous},
                       {2, 13, 17, 11, Layout::contiguous, Layout::transposed},
                       {2, 9, 33, 7, Layout::sliced, Layout::sliced},
                       // stride 0: bmm shares one matrix across the batch; mm repeats a column
                       // of self ([m, 1] -> [m, k]) or a row of mat2 ([1, n] -> [k, n])
                       {3, 7, 13, 11, Layout::expanded, Layout::contiguous},
                       {3, 7, 13, 11, Layout::contiguous, Layout::expanded},
                       {1, 1, 4099, 3},
                       // register-tiled, dense operands: rows and columns past a tile, k past a step
                       {1, 130, 36, 132}};
  if (!b.quick) {
    ms.push_back({2, 129, 257, 65});
    ms.push_back({1, 512, 512, 512});
    ms.push_back({2, 200, 100, 260});
    ms.push_back({4, 65, 96, 130, Layout::transposed, Layout::transposed});
  }
  const char* a_name = kind == OpKind::addmm ? "mat1" : kind == OpKind::baddbmm ? "batch1" : "self";
  const char* b_name = kind == OpKind::addmm ? "mat2" : kind == OpKind::baddbmm ? "batch2" : "mat2";
  const bool narrow = b.dtype == Dtype::f16 || b.dtype == Dtype::bf16;
  for (const M& m : ms) {
    if (narrow && m.k > 1024 && b.quick) continue;
    Shape sa = batched ? Shape{m.B, m.m, m.k} : Shape{m.m, m.k};
    Shape sb = batched ? Shape{m.B, m.k, m.n} : Shape{m.k, m.n};
    Shape so = batched ? Shape{m.B, m.m, m.n} : Shape{m.m, m.n};
    std::string v = (batched ? std::to_string(m.B) + "x" : "") + std::to_string(m.m) + "x" + std::to_string(m.k) +
                    "x" + std::to_string(m.n) + layout_suffix(m.la) + (m.lb != Layout::contiguous ? std::string("+b") + layout_suffix(m.lb) : "");
    // For addmm/baddbmm: a full input, a broadcast row, and beta = 0 over a NaN-filled input.
    std::vector<std::pair<std::string, Shape>> inputs = {{"", {}}};
    if (with_input) {
      inputs = {{".in_full", so}, {".in_row", Shape{m.n}}};
      if (m.m == 13 || m.m == 1) inputs.push_back({".beta0_nan", so});
    }
    for (const auto& [tag, si] : inputs) {
      Case& c = b.add(v + tag);
      if (with_input) {
        InputSpec in = input("self", b.dtype, si);
        in.lo = -1;
        in.hi = 1;
        if (tag == ".beta0_nan") in.values = Values::special;
        c.inputs.push_back(in);
        c.attrs.beta = tag == ".beta0_nan" ? 0.0 : 0.5;
        c.attrs.alpha = -1.5;
      }
      InputSpec a = m.la == Layout::expanded
                        ? expanded_input(a_name, b.dtype, batched ? Shape{1, m.m, m.k} : Shape{m.m, 1}, sa)
                        : input(a_name, b.dtype, sa, m.la);
      InputSpec bb = m.lb == Layout::expanded
                         ? expanded_input(b_name, b.dtype, batched ? Shape{1, m.k, m.n} : Shape{1, m.n}, sb)
                         : input(b_name, b.dtype, sb, m.lb);
      a.lo = bb.lo = -1;
      a.hi = bb.hi = 1;
      c.inputs.push_back(a);
      c.inputs.push_back(bb);
      c.attrs.reduction_length = std::max<int64_t>(1, m.k);
    }
  }
}

void rms_norm_cases(Builder& b, bool backward) {
  struct N {
    Shape s;
    Shape norm;
    bool weight;
    bool eps;
    Layout l = Layout::contiguous;
  };
  std::vector<N> ns = {{{3, 64}, {64}, true, true},  {{3, 64}, {64}, false, false}, {{2, 3, 8}, {3, 8}, true, false},
                       {{1}, {1}, true, true},       {{0, 16}, {16}, true, true},   {{17, 33}, {33}, true, true, Layout::transposed},
                       {{9, 31}, {31}, true, false, Layout::sliced}, {{4, 4099}, {4099}, true, true},
                       // stride 0: one [1, 64] row expanded to five equal rows
                       {{5, 64}, {64}, true, true, Layout::expanded}};
  if (!b.quick) ns.push_back({{257, 1024}, {1024}, true, false});
  std::vector<std::array<bool, 2>> masks = {{true, true}};
  if (backward) masks = {{true, true}, {true, false}, {false, true}};
  for (const N& n : ns) {
    for (const auto& mask : masks) {
      if (backward && !n.weight && !mask[0]) continue;
      const bool ex = n.l == Layout::expanded;
      Shape stored = n.s;
      if (ex) stored[0] = 1;
      std::string v = (ex ? expanded_text(stored, n.s) : shape_text(n.s) + layout_suffix(usable(n.l, n.s))) + ".n" +
                      shape_text(n.norm) + (n.weight ? ".w" : "") + (n.eps ? ".eps" : "");
      if (backward) v += std::string(".m") + (mask[0] ? "1" : "0") + (mask[1] ? "1" : "0");
      Case& c = b.add(v);
      int64_t len = numel(n.norm);
      InputSpec x = ex ? expanded_input("input", b.dtype, stored, n.s) : input("input", b.dtype, n.s, usable(n.l, n.s));
      InputSpec w = input("weight", b.dtype, n.norm);
      w.values = Values::positive;
      w.lo = 0.5;
      w.hi = 1.5;
      w.absent = !n.weight;
      if (backward) {
        InputSpec g = input("grad_out", b.dtype, n.s);
        g.lo = -1;
        g.hi = 1;
        Shape rs = n.s;
        for (size_t i = n.s.size() - n.norm.size(); i < n.s.size(); ++i) rs[i] = 1;
        InputSpec r = input("rstd", b.dtype == Dtype::f64 ? Dtype::f64 : Dtype::f32, rs);
        r.values = Values::rstd;
        c.inputs = {g, x, r, w};
        c.attrs.output_mask = mask;
        // grad_weight sums over every row as well.
        len = std::max<int64_t>(len, numel(n.s) / std::max<int64_t>(1, numel(n.norm)));
      } else {
        c.inputs = {x, w};
      }
      c.attrs.normalized_shape = n.norm;
      if (n.eps) c.attrs.eps = 1e-5;
      c.attrs.reduction_length = std::max<int64_t>(1, len);
    }
  }
}

}  // namespace

std::string make_case_id(const Case& c) {
  std::string id = c.schema.name + "/" + dtype_name(c.dtype) + "/" + c.backend;
  if (!c.kernel.empty()) id += "/" + c.kernel;
  return id + "/" + c.variant + "/s" + std::to_string(c.seed);
}

std::vector<Case> generate_cases(const GeneratorOptions& o) {
  // The slots every selected backend registers, with their kernels in the order tried.
  std::map<std::tuple<std::string, std::string, Dtype>, std::vector<std::string>> slots;
  for (const KernelInfo& k : kernels()) {
    if (std::find(o.backends.begin(), o.backends.end(), k.backend) == o.backends.end()) continue;
    if (!o.ops.empty() && std::find(o.ops.begin(), o.ops.end(), k.op) == o.ops.end()) continue;
    if (!o.dtypes.empty() && std::find(o.dtypes.begin(), o.dtypes.end(), k.dtype) == o.dtypes.end()) continue;
    slots[{k.backend, k.op, k.dtype}].push_back(k.name);
  }
  // The (op, dtype) pairs the CPU reference registers: a backend lacking one gets an unsupported
  // case for it, so what is missing shows in the matrix, the JSON and the JUnit (as skipped).
  std::set<std::pair<std::string, Dtype>> reference_slots;
  for (const KernelInfo& k : kernels()) {
    if (k.backend != "cpu") continue;
    if (!o.ops.empty() && std::find(o.ops.begin(), o.ops.end(), k.op) == o.ops.end()) continue;
    if (!o.dtypes.empty() && std::find(o.dtypes.begin(), o.dtypes.end(), k.dtype) == o.dtypes.end()) continue;
    reference_slots.insert({k.op, k.dtype});
  }
  std::vector<Case> out;
  for (const OpSchema& schema : op_schemas()) {
    for (const std::string& backend : o.backends) {
      for (int di = 0; di < kNumDtypes; ++di) {
        const Dtype d = static_cast<Dtype>(di);
        auto it = slots.find({backend, schema.name, d});
        if (it == slots.end()) {
          if (backend != "cpu" && reference_slots.count({schema.name, d})) {
            Case c;
            c.schema = schema;
            c.dtype = d;
            c.backend = backend;
            c.variant = "no_kernel";
            c.seed = o.seed;
            c.unsupported = "backend '" + backend + "' registers no " + schema.name + " kernel for " + dtype_name(d) +
                            " (the CPU reference does)";
            c.id = make_case_id(c);
            out.push_back(std::move(c));
          }
          continue;
        }
        Builder b{schema, d, o.quick, {}};
        switch (schema.kind) {
          case OpKind::fill:
          case OpKind::arange:
          case OpKind::random: creation_cases(b); break;
          case OpKind::copy: copy_cases(b); break;
          case OpKind::unary: unary_cases(b); break;
          case OpKind::binary:
          case OpKind::compare:
          case OpKind::where: binary_like_cases(b); break;
          case OpKind::reduce:
          case OpKind::argreduce: reduce_cases(b); break;
          case OpKind::softmax: softmax_cases(b); break;
          case OpKind::mm:
          case OpKind::addmm:
          case OpKind::bmm:
          case OpKind::baddbmm: matmul_cases(b); break;
          case OpKind::rms_norm: rms_norm_cases(b, false); break;
          case OpKind::rms_norm_backward: rms_norm_cases(b, true); break;
          case OpKind::weight_int4_mm:
          case OpKind::quantize_int4: b.out = int4_cases(schema, d, o.quick); break;
          case OpKind::csr_addmm:
          case OpKind::csr_to_dense: b.out = csr_cases(schema, d, o.quick); break;
          case OpKind::int_mm:
          case OpKind::scaled_mm: b.out = quant_mm_cases(schema, d, o.quick); break;
        }
        const std::vector<std::string>& names = it->second;
        for (const std::string& kernel : names) {
          for (Case c : b.out) {
            c.backend = backend;
            c.seed = o.seed;
            if (names.size() > 1) c.kernel = kernel;
            c.id = make_case_id(c);
            out.push_back(std::move(c));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace xd::conform
