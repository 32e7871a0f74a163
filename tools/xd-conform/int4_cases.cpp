// Cases of the int4 weight-only ops: M = 1 (decode), odd M, empty M, M above the GPU's
// small-M path, K equal to the group size, several group sizes, and a non-contiguous input.
// Operands are random but legal: every byte of the packed weight, zero points in 0..15 and
// positive scales of a realistic size, so products and sums stay in a range every dtype holds.
#include "case_generator.hpp"

namespace xd::conform {

namespace {

InputSpec spec(const std::string& name, Dtype d, std::vector<int64_t> sizes, double lo, double hi,
               Layout layout = Layout::contiguous) {
  InputSpec s;
  s.name = name;
  s.dtype = d;
  s.sizes = std::move(sizes);
  s.lo = lo;
  s.hi = hi;
  s.layout = layout;
  if (is_floating(d) && lo > 0) s.values = Values::positive;
  return s;
}

std::string dims(int64_t a, int64_t b, int64_t c, int64_t g) {
  return std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(c) + ".g" + std::to_string(g);
}

Case base(const OpSchema& schema, Dtype dtype, std::string variant, int64_t g) {
  Case c;
  c.schema = schema;
  c.dtype = dtype;
  c.variant = std::move(variant);
  c.attrs.group_size = g;
  return c;
}

}  // namespace

std::vector<Case> int4_cases(const OpSchema& schema, Dtype dtype, bool quick) {
  std::vector<Case> out;
  if (schema.kind == OpKind::weight_int4_mm) {
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
    if (!quick) {
      ss.push_back({64, 1024, 96, 128});
      ss.push_back({33, 2048, 130, 32});
      ss.push_back({2, 8192, 256, 64});
      ss.push_back({1, 1024, 200, 32});
    }
    for (const S& s : ss) {
      Case c = base(schema, dtype, dims(s.m, s.k, s.n, s.g) + (s.lx == Layout::transposed ? ".T" : ""), s.g);
      c.inputs = {spec("input", dtype, {s.m, s.k}, -1.0, 1.0, s.lx), spec("weight", Dtype::u8, {s.n, s.k / 2}, 0, 255),
                  spec("scales", dtype, {s.k / s.g, s.n}, 0.005, 0.05),
                  spec("zeros", Dtype::i8, {s.k / s.g, s.n}, 0, 15)};
      c.attrs.reduction_length = std::max<int64_t>(1, s.k);
      out.push_back(std::move(c));
    }
  } else if (schema.kind == OpKind::quantize_int4) {
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
    if (!quick) ss.push_back({257, 1024, 32});
    for (const S& s : ss) {
      std::string v = std::to_string(s.n) + "x" + std::to_string(s.k) + ".g" + std::to_string(s.g);
      if (s.lo > 0) v += ".positive";
      if (s.l == Layout::transposed) v += ".T";
      Case c = base(schema, dtype, v, s.g);
      c.inputs = {spec("weight", dtype, {s.n, s.k}, s.lo, s.hi, s.l)};
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace xd::conform
