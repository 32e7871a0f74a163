// fill, arange, rand, randn: ops that take no tensor and make one of the slot's dtype. Their
// cases are sizes only: 0-d, empty, size 1, odd and prime sizes, and large ones in the full set.
#include <xd/ops.hpp>
#include <xd/runtime.hpp>

#include "helpers.hpp"

namespace xd::conform {

namespace {

std::vector<Shape> creation_shapes(bool quick) {
  if (quick) return {{}, {0}, {1}, {7, 13}, {4099}};
  return {{}, {0}, {1}, {7, 13}, {3, 5, 7}, {4099}, {1 << 20}};
}

// A value every dtype holds exactly.
void fill_cases(CaseList& l) {
  for (const Shape& s : creation_shapes(l.quick)) {
    Case& c = l.add(shape_text(s));
    c.attrs.sizes = s;
    c.attrs.value = l.dtype == Dtype::boolean ? 1.0 : is_integral(l.dtype) ? 7.0 : -1.25;
  }
}

// The 1-d sizes, with starts and steps that keep every element exact in the dtype.
void arange_cases(CaseList& l) {
  const Dtype d = l.dtype;
  for (const Shape& s : creation_shapes(l.quick)) {
    if (s.size() != 1) continue;
    const int64_t len = (d == Dtype::i8 || d == Dtype::u8) ? std::min<int64_t>(s[0], 100) : s[0];
    const bool narrow = d == Dtype::f16 || d == Dtype::bf16;
    // i8/u8 ranges are capped at 100 values, so two long shapes can become the same case.
    if (std::any_of(l.cases.begin(), l.cases.end(), [&](const Case& o) { return o.variant == shape_text({len}); }))
      continue;
    Case& c = l.add(shape_text({len}));
    c.attrs.sizes = {len};
    c.attrs.start = is_integral(d) ? (d == Dtype::u8 ? 3 : -5) : -1.5;
    c.attrs.step = is_integral(d) ? 1 : (narrow ? 0.25 : 0.125);
    if (narrow && len > 512) c.attrs.step = 1.0 / 256;  // stays representable (exact) in bf16 up to 2^8
  }
}

void random_cases(CaseList& l) {
  for (const Shape& s : creation_shapes(l.quick)) l.add(shape_text(s)).attrs.sizes = s;
}

// Both sides draw from a generator seeded by the case, so both make the same stream.
uint64_t generator_seed(const OpCall& call) { return call.seed ^ 0x5eedULL; }

struct CreationOp {
  const char* name;
  void (*cases)(CaseList&);
  Tensor (*call)(const OpCall&);
  bool exact;  // fill converts one value, exactly specified; the others compute theirs
};

const CreationOp creation_ops[] = {
    {"fill", fill_cases, [](const OpCall& c) { return full(c.attrs.sizes, c.attrs.value, c.dtype, c.device); }, true},
    {"arange", arange_cases,
     [](const OpCall& c) {
       const Attrs& a = c.attrs;
       const int64_t len = a.sizes.empty() ? 0 : a.sizes[0];
       // The end half a step past the last element, so rounding cannot add or drop one.
       return arange(a.start, a.start + a.step * static_cast<double>(len) - a.step / 2, a.step, c.dtype, c.device);
     },
     false},
    {"rand", random_cases,
     [](const OpCall& c) {
       Generator g(generator_seed(c));
       return rand(c.attrs.sizes, c.dtype, c.device, &g);
     },
     false},
    {"randn", random_cases,
     [](const OpCall& c) {
       Generator g(generator_seed(c));
       return randn(c.attrs.sizes, c.dtype, c.device, &g);
     },
     false},
};

class CreationFamily final : public TableFamily<CreationOp> {
 public:
  CreationFamily() : TableFamily(creation_ops, [](const CreationOp& op, CaseList& l) { op.cases(l); }) {}

  std::vector<Tensor> invoke(const OpCall& call) const override { return {entry(call.schema.name).call(call)}; }

  Tolerance tolerance(const Case& c, size_t, Dtype out) const override {
    return entry(c.schema.name).exact ? exact_tolerance() : dtype_tolerance(out);
  }
};

}  // namespace

const OpFamily& creation_family() {
  static const CreationFamily family;
  return family;
}

}  // namespace xd::conform
