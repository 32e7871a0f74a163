// cumsum and topk along one dim: 0-d, empty, each dim of a matrix, transposed, sliced and expanded
// inputs, rows short (one work-item each on the XPU) and long (a work-group each, several chunks),
// special values; cumsum's dtype rule (bool and integer inputs to i64, a given dtype); topk with
// k = 0 and k = size, largest and smallest, sorted or not, rows longer than the XPU's local sort
// and k beyond it, many ties (integers, expanded rows).
//
// topk: torch does not say which of equal elements' indices it returns, so indices are not
// compared literally. invoke() checks on the host that each row's indices are distinct, in range
// and point at elements bitwise equal to the values, then returns in their place the index where
// the value occurs once in its row and -1 where it is tied; values are compared exactly.
#include <xd/dtype_set.hpp>
#include <xd/ops.hpp>

#include "helpers.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace xd::conform {

namespace {

struct ScanOp {
  const char* name;
  void (*cases)(CaseList& l);
};

// The dtype of the input a cumsum case of slot `key` reads, and the dtype argument it passes: the
// kernel is keyed on the result's dtype, which i8, u8 and i32 only are when asked for.
struct CumsumInput {
  Dtype input;
  std::optional<Dtype> dtype;
};
CumsumInput cumsum_input(Dtype key) {
  if (is_floating(key) || key == Dtype::i64) return {key, std::nullopt};
  return {key, key};
}

void cumsum_cases(CaseList& l) {
  struct S {
    Shape s;
    int64_t dim;
    Layout l = Layout::contiguous;
  };
  std::vector<S> ss = {{{}, 0},
                       {{}, -1},
                       {{1}, 0},
                       {{0, 7}, 1},
                       {{0, 7}, 0},
                       {{13, 17}, 0},
                       {{13, 17}, 1},
                       {{13, 17}, -1, Layout::transposed},
                       {{3, 5, 7}, 1, Layout::sliced},
                       {{2, 3, 4, 5}, 2},
                       {{5, 1000}, 1},
                       {{3, 3000}, -1},
                       {{3000, 3}, 0},
                       {{2, 70}, 1, Layout::transposed}};
  if (!l.quick) {
    ss.push_back({{2, 100000}, 1});
    ss.push_back({{4099, 33}, 0});
  }
  const CumsumInput ci = cumsum_input(l.dtype);
  auto add = [&](std::string v, InputSpec in, int64_t dim, std::optional<Dtype> dtype, int64_t len) {
    Case& c = l.add(std::move(v));
    c.inputs = {std::move(in)};
    c.attrs.dim = dim;
    c.attrs.cumsum_dtype = dtype;
    c.attrs.reduction_length = std::max<int64_t>(1, len);
  };
  for (const S& s : ss) {
    const Layout lay = usable(s.l, s.s);
    add(shape_text(s.s) + layout_suffix(lay) + ".d" + std::to_string(s.dim), input("self", ci.input, s.s, lay), s.dim,
        ci.dtype, s.s.empty() ? 1 : dim_size(s.s, s.dim));
  }
  for (const auto& [stored, dim] : {std::pair<Shape, int64_t>{{1, 9}, 0}, std::pair<Shape, int64_t>{{6, 1}, 1}}) {
    const Shape to = {6, 9};
    add(expanded_text(stored, to) + ".d" + std::to_string(dim), expanded_input("self", ci.input, stored, to), dim,
        ci.dtype, dim_size(to, dim));
  }
  if (l.floating()) {
    // NaN, +-Inf, +-0, near-overflow values in short rows (summed in index order on every
    // backend); infinities and one near-overflow value per row in long ones (a parallel scan
    // reassociates, and two near-overflow terms may overflow in one order and not the other).
    InputSpec sp = input("self", ci.input, {9, 31});
    sp.values = Values::special;
    add("special.9x31.d1", sp, 1, ci.dtype, 31);
    InputSpec ex = input("self", ci.input, {6, 3000});
    ex.values = Values::extreme;
    add("extreme.6x3000.d1", ex, 1, ci.dtype, 3000);
  }
  // The dtype rule: other input dtypes reaching this slot.
  if (l.dtype == Dtype::i64) {
    add("bool.13x17.d1", input("self", Dtype::boolean, {13, 17}), 1, std::nullopt, 17);
    add("bool.2x3000.d1", input("self", Dtype::boolean, {2, 3000}), 1, std::nullopt, 3000);
    add("i32.13x17.d0", input("self", Dtype::i32, {13, 17}), 0, std::nullopt, 13);
    add("u8.5x300.d1", input("self", Dtype::u8, {5, 300}), 1, std::nullopt, 300);
  }
  if (l.dtype == Dtype::f64) add("f32.to_f64.13x17.d1", input("self", Dtype::f32, {13, 17}), 1, Dtype::f64, 17);
  if (l.dtype == Dtype::i32) {
    add("f32.to_i32.13x17.d1", ranged_input("self", Dtype::f32, {13, 17}, -50, 50), 1, Dtype::i32, 17);
    add("i64.to_i32.3x2000.d1", input("self", Dtype::i64, {3, 2000}), 1, Dtype::i32, 2000);
  }
  if (l.dtype == Dtype::f16) add("f32.to_f16.4x1500.d1", input("self", Dtype::f32, {4, 1500}), 1, Dtype::f16, 1500);
}

void topk_cases(CaseList& l) {
  struct S {
    Shape s;
    int64_t dim;
    int64_t k;
    bool largest = true;
    bool sorted = true;
    Layout l = Layout::contiguous;
    Values values = Values::uniform;
  };
  std::vector<S> ss = {
      {{}, 0, 0},
      {{}, -1, 1},
      {{7}, 0, 0},
      {{7}, 0, 3},
      {{7}, 0, 7, false},
      {{13, 17}, 1, 5},
      {{13, 17}, 0, 13, false},
      {{13, 17}, -1, 4, true, true, Layout::transposed},
      {{13, 17}, 1, 17, false, false},
      {{3, 5, 7}, 1, 2, true, false, Layout::sliced},
      {{3, 5, 7}, -3, 3, false, true, Layout::sliced},
      {{0, 7}, 1, 0},
      {{0, 7}, 0, 0},
      {{4, 0}, 0, 2},
      {{2, 3, 4, 5}, 2, 4},
      {{40, 2048}, 1, 2048, false},  // a row of exactly the XPU's local sort
      {{2, 3000}, 1, 10},            // longer: radix select, the k sorted in local memory
      {{2, 3000}, 1, 100, false},
      {{2, 3000}, 1, 2500},         // k beyond the local sort: sorted in global memory
      {{3000, 3}, 0, 3000, false},  // strided rows, all of them
      {{5, 2049}, 1, 2049},
  };
  if (l.floating()) {
    ss.push_back({{9, 31}, 1, 10, true, true, Layout::contiguous, Values::special});
    ss.push_back({{9, 31}, 1, 31, false, true, Layout::contiguous, Values::special});
    ss.push_back({{2, 3000}, 1, 700, false, true, Layout::contiguous, Values::special});
    ss.push_back({{2, 3000}, 1, 2200, true, true, Layout::contiguous, Values::special});
  }
  if (!l.quick) {
    ss.push_back({{3, 100000}, 1, 50});
    ss.push_back({{2, 20000}, 1, 20000, false});
  }
  for (const S& s : ss) {
    const Layout lay = usable(s.l, s.s);
    std::string v = shape_text(s.s) + layout_suffix(lay) + ".d" + std::to_string(s.dim) + ".k" + std::to_string(s.k);
    if (!s.largest) v += ".smallest";
    if (!s.sorted) v += ".unsorted";
    if (s.values == Values::special) v = "special." + v;
    Case& c = l.add(v);
    InputSpec in = input("self", l.dtype, s.s, lay);
    in.values = s.values;
    c.inputs = {in};
    c.attrs.dim = s.dim;
    c.attrs.k = s.k;
    c.attrs.largest = s.largest;
    c.attrs.sorted = s.sorted;
  }
  // Expanded (stride 0): along the repeated dim every element ties.
  for (const auto& [stored, dim] : {std::pair<Shape, int64_t>{{1, 9}, 0}, std::pair<Shape, int64_t>{{6, 1}, 1}}) {
    const Shape to = {6, 9};
    Case& c = l.add(expanded_text(stored, to) + ".d" + std::to_string(dim));
    c.inputs = {expanded_input("self", l.dtype, stored, to)};
    c.attrs.dim = dim;
    c.attrs.k = 3;
  }
}

const ScanOp scan_ops[] = {{"cumsum", cumsum_cases}, {"topk", topk_cases}};

void table_cases(const ScanOp& op, CaseList& l) { op.cases(l); }

// Row-major copy on the host with `dim` moved last.
std::vector<uint8_t> rows_last(const Tensor& t, int64_t dim) {
  return t.transpose(dim, t.dim() - 1).contiguous().to(cpu()).to_bytes();
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// topk's indices made comparable across backends (see the top of the file); throws when a row's
// indices are not k distinct positions of elements equal to the values.
Tensor checked_indices(const Tensor& a, const Tensor& values, const Tensor& indices, int64_t dim) {
  if (a.dim() == 0) return indices;  // one element: index 0 or nothing to tie with
  const int64_t d = dim < 0 ? dim + a.dim() : dim;
  const int64_t len = a.sizes()[static_cast<size_t>(d)], k = values.sizes()[static_cast<size_t>(d)];
  const Dtype dt = a.dtype();
  const size_t es = itemsize(dt);
  const std::vector<uint8_t> ab = rows_last(a, d), vb = rows_last(values, d), ib = rows_last(indices, d);
  std::vector<int64_t> out(ib.size() / 8);
  const int64_t rows = k == 0 ? 0 : static_cast<int64_t>(out.size()) / k;
  std::vector<uint8_t> seen(static_cast<size_t>(len));
  for (int64_t r = 0; r < rows; ++r) {
    std::fill(seen.begin(), seen.end(), 0);
    for (int64_t p = 0; p < k; ++p) {
      int64_t j;
      std::memcpy(&j, ib.data() + (r * k + p) * 8, 8);
      const std::string where =
          "topk: row " + std::to_string(r) + ", position " + std::to_string(p) + ": index " + std::to_string(j);
      if (j < 0 || j >= len) throw std::runtime_error(where + " is outside [0, " + std::to_string(len) + ")");
      if (seen[static_cast<size_t>(j)]++) throw std::runtime_error(where + " appears twice in the row");
      const uint8_t* elem = ab.data() + (r * len + j) * static_cast<int64_t>(es);
      if (std::memcmp(elem, vb.data() + (r * k + p) * static_cast<int64_t>(es), es) != 0)
        throw std::runtime_error(where + " holds another value than the one returned");
      const double x = decode(dt, ab.data(), r * len + j);
      int64_t equal = 0;
      for (int64_t q = 0; q < len && equal < 2; ++q) equal += same_value(decode(dt, ab.data(), r * len + q), x);
      out[static_cast<size_t>(r * k + p)] = equal > 1 ? -1 : j;
    }
  }
  std::vector<int64_t> shape(indices.sizes().begin(), indices.sizes().end());
  std::swap(shape[static_cast<size_t>(d)], shape.back());
  return from_host(out.data(), Dtype::i64, shape, indices.device()).transpose(d, a.dim() - 1).contiguous();
}

class ScanFamily final : public TableFamily<ScanOp> {
 public:
  ScanFamily() : TableFamily(scan_ops, table_cases) {}

  std::vector<Tensor> invoke(const OpCall& call) const override {
    const Attrs& at = call.attrs;
    if (call.schema.name == "cumsum") return {cumsum(call.input(0), at.dim, at.cumsum_dtype)};
    const Tensor& a = call.input(0);
    auto [values, indices] = topk(a, at.k, at.dim, at.largest, at.sorted);
    return {values, checked_indices(a, values, indices, at.dim)};
  }

  // cumsum: each output sums the row up to it, in another order on a parallel backend: the
  // dtype's tolerance widened by 4 sqrt(length) (f16/bf16 round one f32 sum, so only rarely a
  // last place differs). topk moves elements: exact.
  Tolerance tolerance(const Case& c, size_t, Dtype out) const override {
    if (c.schema.name == "topk") return exact_tolerance();
    return sum_tolerance(out, 16 * c.attrs.reduction_length);
  }

  bool read_golden_attr(const std::string& op, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string& unsupported) const override {
    if (read_dim(key, value, attrs)) return true;
    if (op == "cumsum" && key == "dtype") {
      if (value.is_null()) return true;
      const std::string name = strict_get<std::string>(value);
      attrs.cumsum_dtype = dtype_or_none(name);
      if (!attrs.cumsum_dtype) unsupported = "dtype " + name;
      return true;
    }
    if (op != "topk") return false;
    return read_attr(key, "k", value, attrs.k) || read_attr(key, "largest", value, attrs.largest) ||
           read_attr(key, "sorted", value, attrs.sorted);
  }
};

}  // namespace

const OpFamily& scan_family() {
  static const ScanFamily family;
  return family;
}

}  // namespace xd::conform
