// The int4 weight-only ops (docs/ops/int4.md). weight_int4_mm: M = 1 (decode), odd M, empty M,
// M above the GPU's small-M path, K equal to the group size, several group sizes and a
// non-contiguous input. Operands are random but legal: every byte of the packed weight, zero
// points in 0..15 and positive scales of a realistic size, so products and sums stay in a range
// every dtype holds. quantize_int4: odd and empty N, group sizes 32 to 128, an all-positive
// weight and a transposed one.
#include <xd/ops.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

// An input of uniform values in [lo, hi); floating ones with lo > 0 are positive (scales).
InputSpec int4_input(const std::string& name, Dtype d, Shape sizes, double lo, double hi,
                     Layout layout = Layout::contiguous) {
  InputSpec s = ranged_input(name, d, std::move(sizes), lo, hi, layout);
  if (is_floating(d) && lo > 0) s.values = Values::positive;
  return s;
}

std::string dims_text(int64_t a, int64_t b, int64_t c, int64_t g) {
  return std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(c) + ".g" + std::to_string(g);
}

void weight_int4_mm_cases(CaseList& l) {
  struct S {
    int64_t m, k, n, g;
    Layout lx = Layout::contiguous;
  };
  std::vector<S> ss = {{1, 32, 1, 32},
                       {0, 64, 5, 32},
                       {3, 64, 8, 32},
                       {7, 256, 33, 64},
                       {5, 384, 17, 128},
                       {16, 512, 40, 256},
                       {17, 128, 9, 32},
                       {1, 4096, 64, 128},
                       {6, 96, 10, 32, Layout::transposed},
                       // M = 1 with whole column groups of 8 but not whole blocks (the aligned gemv)
                       {1, 256, 72, 64},
                       // whole tiles of 32 columns, group 128 (NVIDIA: the aligned tensor-core kernels)
                       {8, 256, 32, 128},
                       {16, 256, 64, 128},
                       // the aligned tensor-core kernels again: K of 5 and 3 pieces (pieces left over
                       // after the four warps' split), M = 12 (rows past M read as row M - 1), a group
                       // of four pieces, and M <= 8 (the 8-row variant) on 256 columns
                       {16, 640, 128, 128},
                       {12, 384, 128, 128},
                       {5, 1024, 256, 512}};
  if (!l.quick) {
    ss.push_back({64, 1024, 96, 128});
    ss.push_back({33, 2048, 130, 32});
    ss.push_back({2, 8192, 256, 64});
    ss.push_back({1, 1024, 200, 32});
  }
  for (const S& s : ss) {
    Case& c = l.add(dims_text(s.m, s.k, s.n, s.g) + (s.lx == Layout::transposed ? ".T" : ""));
    c.inputs = {int4_input("input", l.dtype, {s.m, s.k}, -1.0, 1.0, s.lx),
                int4_input("weight", Dtype::u8, {s.n, s.k / 2}, 0, 255),
                int4_input("scales", l.dtype, {s.k / s.g, s.n}, 0.005, 0.05),
                int4_input("zeros", Dtype::i8, {s.k / s.g, s.n}, 0, 15)};
    c.attrs.group_size = s.g;
    c.attrs.reduction_length = std::max<int64_t>(1, s.k);
  }
  // Inputs with NaN, +-Inf, +-0, values near the dtype's largest and tiny ones, through each
  // kernel shape (M = 1; a few rows; 16 rows on whole tiles; the tiled kernel): the reference's
  // x * ((q - zero) * scale) summed in order is the result, whatever a kernel reassociates.
  struct E {
    int64_t m, k, n, g;
    Values values;
  };
  for (const E& s : std::vector<E>{{1, 256, 72, 64, Values::special},
                                   {5, 384, 17, 128, Values::special},
                                   {16, 256, 64, 128, Values::special},
                                   {33, 256, 40, 32, Values::special},
                                   {1, 256, 72, 64, Values::extreme},
                                   {5, 384, 17, 128, Values::extreme},
                                   {3, 256, 64, 128, Values::extreme},
                                   {16, 256, 64, 128, Values::extreme},
                                   {33, 256, 40, 32, Values::extreme}}) {
    Case& c = l.add(std::string(s.values == Values::extreme ? "extreme." : "special.") + dims_text(s.m, s.k, s.n, s.g));
    InputSpec x = int4_input("input", l.dtype, {s.m, s.k}, -1.0, 1.0);
    x.values = s.values;
    c.inputs = {x, int4_input("weight", Dtype::u8, {s.n, s.k / 2}, 0, 255),
                int4_input("scales", l.dtype, {s.k / s.g, s.n}, 0.005, 0.05),
                int4_input("zeros", Dtype::i8, {s.k / s.g, s.n}, 0, 15)};
    c.attrs.group_size = s.g;
    c.attrs.reduction_length = s.k;
  }
}

void quantize_int4_cases(CaseList& l) {
  struct S {
    int64_t n, k, g;
    double lo = -2.0, hi = 2.0;
    Layout l = Layout::contiguous;
  };
  std::vector<S> ss = {{1, 32, 32},
                       {0, 64, 32},
                       {5, 64, 32},
                       {7, 256, 64},
                       {3, 384, 128},
                       {16, 4096, 128},
                       {9, 128, 32, 0.5, 1.5},
                       {6, 96, 32, -2.0, 2.0, Layout::transposed}};
  if (!l.quick) ss.push_back({257, 1024, 32});
  for (const S& s : ss) {
    std::string v = std::to_string(s.n) + "x" + std::to_string(s.k) + ".g" + std::to_string(s.g);
    if (s.lo > 0) v += ".positive";
    if (s.l == Layout::transposed) v += ".T";
    Case& c = l.add(v);
    c.inputs = {int4_input("weight", l.dtype, {s.n, s.k}, s.lo, s.hi, s.l)};
    c.attrs.group_size = s.g;
  }
}

struct Int4Op {
  const char* name;
  void (*cases)(CaseList&);
  std::vector<Tensor> (*call)(const OpCall& c);
  bool sums;  // weight_int4_mm sums K products; quantize_int4 computes each output on its own
};

const Int4Op int4_ops[] = {
    {"weight_int4_mm", weight_int4_mm_cases,
     [](const OpCall& c) -> std::vector<Tensor> {
       return {weight_int4_mm(c.input(0), c.input(1), c.input(2), c.input(3), c.attrs.group_size)};
     },
     true},
    {"quantize_int4", quantize_int4_cases,
     [](const OpCall& c) -> std::vector<Tensor> {
       auto [packed, scales, zeros] = quantize_int4(c.input(0), c.attrs.group_size);
       return {packed, scales, zeros};
     },
     false},
};

class Int4Family final : public TableFamily<Int4Op> {
 public:
  Int4Family() : TableFamily(int4_ops, [](const Int4Op& op, CaseList& l) { op.cases(l); }) {}

  std::vector<Tensor> invoke(const OpCall& call) const override { return entry(call.schema.name).call(call); }

  Tolerance tolerance(const Case& c, size_t, Dtype out) const override {
    return entry(c.schema.name).sums ? summed_tolerance(c, out) : dtype_tolerance(out);
  }

  bool read_golden_attr(const std::string&, const std::string& key, const nlohmann::json& value, Attrs& attrs,
                        std::string&) const override {
    return read_attr(key, "group_size", value, attrs.group_size);
  }
};

}  // namespace

const OpFamily& int4_family() {
  static const Int4Family family;
  return family;
}

}  // namespace xd::conform
