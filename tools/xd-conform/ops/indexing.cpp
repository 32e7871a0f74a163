// index_select along each dim: repeated, unsorted and empty indices, every index of a dim, a 0-d
// self and a 0-d index, transposed, sliced and expanded self, a sliced (strided) index, an i32
// index, empty self dims. gather likewise, with indexes smaller than self outside dim and larger
// along it. A bitwise move: exact on every dtype.
#include <xd/dtype_set.hpp>
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

struct IndexOp {
  const char* name;
  void (*cases)(CaseList& l);
  Tensor (*call)(const Tensor& self, int64_t dim, const Tensor& index);
};

// An index of `n` entries in [0, size) (size 0: none can exist, so n must be 0).
InputSpec index_input(Shape sizes, int64_t size, Layout layout = Layout::contiguous, Dtype d = Dtype::i64) {
  return ranged_input("index", d, std::move(sizes), 0, static_cast<double>(std::max<int64_t>(size, 1) - 1), layout);
}

void index_select_cases(CaseList& l) {
  struct S {
    Shape self;
    int64_t dim;
    Shape index;
    Layout self_layout = Layout::contiguous;
    Layout index_layout = Layout::contiguous;
    Dtype index_dtype = Dtype::i64;
  };
  std::vector<S> ss = {
      {{}, 0, {1}},                                             // 0-d self, one index
      {{}, -1, {}},                                             // 0-d self, 0-d index
      {{7}, 0, {12}},                                           // repeated indices (12 draws from 7)
      {{7}, 0, {0}},                                            // empty index
      {{7}, 0, {}},                                             // 0-d index: a 1-d result of one element
      {{13, 17}, 0, {9}},                                       // rows (an embedding lookup)
      {{13, 17}, 1, {5}},                                       // columns
      {{13, 17}, -1, {20}},                                     // negative dim, more indices than the dim
      {{13, 17}, 0, {9}, Layout::transposed},                   // strided self
      {{13, 17}, 1, {6}, Layout::sliced},                       // sliced self
      {{3, 5, 7}, 1, {4}, Layout::contiguous, Layout::sliced},  // strided index
      {{3, 5, 7}, -3, {5}},
      {{3, 5, 7}, 2, {3}, Layout::contiguous, Layout::contiguous, Dtype::i32},  // i32 index
      {{0, 7}, 1, {3}},                                                         // empty self dim beside the indexed one
      {{0, 7}, 0, {0}},  // empty self dim indexed by an empty index
      {{2, 3, 4, 5}, 2, {7}},
      {{64, 257}, 0, {33}},  // long rows
  };
  if (!l.quick) ss.push_back({{4099, 33}, 1, {100}});
  for (const S& s : ss) {
    const int64_t size = s.self.empty() ? 1 : dim_size(s.self, s.dim);
    const Layout sl = usable(s.self_layout, s.self), il = usable(s.index_layout, s.index);
    std::string v = shape_text(s.self) + layout_suffix(sl) + ".d" + std::to_string(s.dim) + ".i" + shape_text(s.index) +
                    layout_suffix(il);
    if (s.index_dtype != Dtype::i64) v += ".i32";
    Case& c = l.add(v);
    c.inputs = {input("self", l.dtype, s.self, sl), index_input(s.index, size, il, s.index_dtype)};
    c.attrs.dim = s.dim;
  }
  // Expanded (stride 0) self: selecting along the repeated dim and across it.
  for (const auto& [stored, dim] : {std::pair<Shape, int64_t>{{1, 9}, 0}, std::pair<Shape, int64_t>{{6, 1}, 1}}) {
    const Shape to = {6, 9};
    Case& c = l.add(expanded_text(stored, to) + ".d" + std::to_string(dim));
    c.inputs = {expanded_input("self", l.dtype, stored, to), index_input({8}, dim_size(to, dim))};
    c.attrs.dim = dim;
  }
  // Special values (NaN, +-Inf, +-0, subnormals) are moved bit for bit.
  if (dtypes::compute_floating.contains(l.dtype)) {
    Case& c = l.add("special.9x31.d1");
    InputSpec in = input("self", l.dtype, {9, 31});
    in.values = Values::special;
    c.inputs = {in, index_input({40}, 31)};
    c.attrs.dim = 1;
  }
}

void gather_cases(CaseList& l) {
  struct S {
    Shape self;
    int64_t dim;
    Shape index;
    Layout self_layout = Layout::contiguous;
    Layout index_layout = Layout::contiguous;
    Dtype index_dtype = Dtype::i64;
  };
  std::vector<S> ss = {
      {{}, 0, {}},                                                    // 0-d self and index
      {{}, -1, {1}},                                                  // 0-d self, one-element index
      {{7}, 0, {12}},                                                 // more entries than the dim, repeated
      {{7}, 0, {0}},                                                  // empty index
      {{13, 17}, 0, {9, 17}},                                         // along rows
      {{13, 17}, 1, {13, 5}},                                         // along columns
      {{13, 17}, -1, {6, 20}},                                        // smaller outside dim, larger along it
      {{13, 17}, 0, {9, 17}, Layout::transposed},                     // strided self
      {{13, 17}, 1, {13, 6}, Layout::sliced},                         // sliced self
      {{3, 5, 7}, 1, {3, 4, 7}, Layout::contiguous, Layout::sliced},  // strided index
      {{3, 5, 7}, -3, {5, 5, 7}, Layout::contiguous, Layout::transposed},
      {{3, 5, 7}, 2, {2, 5, 3}, Layout::contiguous, Layout::contiguous, Dtype::i32},  // i32 index
      {{0, 7}, 1, {0, 3}},                                                            // empty self dim
      {{2, 3, 4, 5}, 2, {2, 3, 7, 5}},
      {{64, 257}, 1, {64, 100}},  // long rows: take_along_dim after a sort or topk
  };
  if (!l.quick) ss.push_back({{1024, 513}, 1, {1024, 64}});
  for (const S& s : ss) {
    const int64_t size = s.self.empty() ? 1 : dim_size(s.self, s.dim);
    const Layout sl = usable(s.self_layout, s.self), il = usable(s.index_layout, s.index);
    std::string v = shape_text(s.self) + layout_suffix(sl) + ".d" + std::to_string(s.dim) + ".i" + shape_text(s.index) +
                    layout_suffix(il);
    if (s.index_dtype != Dtype::i64) v += ".i32";
    Case& c = l.add(v);
    c.inputs = {input("self", l.dtype, s.self, sl), index_input(s.index, size, il, s.index_dtype)};
    c.attrs.dim = s.dim;
  }
  // Expanded (stride 0) self, gathered along the repeated dim and across it.
  for (const auto& [stored, dim] : {std::pair<Shape, int64_t>{{1, 9}, 0}, std::pair<Shape, int64_t>{{6, 1}, 1}}) {
    const Shape to = {6, 9};
    Shape index = to;
    index[static_cast<size_t>(dim)] = 8;
    Case& c = l.add(expanded_text(stored, to) + ".d" + std::to_string(dim));
    c.inputs = {expanded_input("self", l.dtype, stored, to), index_input(index, dim_size(to, dim))};
    c.attrs.dim = dim;
  }
  if (dtypes::compute_floating.contains(l.dtype)) {
    Case& c = l.add("special.9x31.d1");
    InputSpec in = input("self", l.dtype, {9, 31});
    in.values = Values::special;
    c.inputs = {in, index_input({9, 40}, 31)};
    c.attrs.dim = 1;
  }
}

const IndexOp index_ops[] = {{"index_select", index_select_cases, index_select}, {"gather", gather_cases, gather}};

class IndexFamily final : public TableFamily<IndexOp> {
 public:
  IndexFamily() : TableFamily(index_ops, [](const IndexOp& op, CaseList& l) { op.cases(l); }) {}

  std::vector<Tensor> invoke(const OpCall& call) const override {
    return {entry(call.schema.name).call(call.input(0), call.attrs.dim, call.input(1))};
  }

  Tolerance tolerance(const Case&, size_t, Dtype) const override { return exact_tolerance(); }

  bool read_golden_attr(const std::string&, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    return read_dim(key, value, attrs);
  }
};

}  // namespace

const OpFamily& index_family() {
  static const IndexFamily family;
  return family;
}

}  // namespace xd::conform
