#include "tensor_factory.hpp"

#include "op_case.hpp"

#include <xd/error.hpp>
#include <xd/philox.hpp>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

namespace xd::conform {

uint64_t fnv1a(const void* data, size_t n, uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::string hex64(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

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

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The largest finite value of a floating dtype, for "near overflow" special values.
double max_finite(Dtype d) {
  switch (d) {
    case Dtype::f16: return 65504.0;
    case Dtype::bf16: return 3.3895313892515355e38;
    case Dtype::f32: return std::numeric_limits<float>::max();
    case Dtype::f8e4m3fn: return 448.0;
    case Dtype::f8e5m2: return 57344.0;
    default: return std::numeric_limits<double>::max();
  }
}

// Three times the smallest subnormal of a floating dtype (f32's for f64).
double min_subnormal(Dtype d) {
  switch (d) {
    case Dtype::f16: return 3 * 5.9604644775390625e-8;
    case Dtype::bf16: return 3 * 9.183549615799121e-41;
    case Dtype::f8e4m3fn: return 3 * 0.001953125;
    case Dtype::f8e5m2: return 3 * 1.52587890625e-5;
    default: return 3 * 1.401298464324817e-45;  // f32, f64
  }
}

// Values::sparse: x where element i (row-major over in.sizes) is kept, else 0. The keep decision
// depends on the element's place inside its matrix only, never on the batch.
double sparse_value(const InputSpec& in, int64_t i, uint64_t stream, double x) {
  const int64_t k = in.sizes.empty() ? 1 : in.sizes.back();
  const int64_t m = in.sizes.size() < 2 ? 1 : in.sizes[in.sizes.size() - 2];
  if (k == 0 || m == 0) return x;
  const int64_t e = i % (m * k);
  if (in.empty_rows && (e / k) % 3 == 1) return 0.0;
  const double u = static_cast<double>(splitmix64(~stream ^ static_cast<uint64_t>(e)) >> 11) * (1.0 / 9007199254740992.0);
  if (u >= in.density) return 0.0;
  return x == 0.0 ? 0.5 : x;  // a kept element is a nonzero
}

std::vector<double> host_values(const Case& c, const InputSpec& in, int64_t n) {
  const std::string key = c.schema.name + "/" + dtype_name(c.dtype) + "/" + c.variant + "/" + in.name;
  const uint64_t stream = splitmix64(c.seed ^ fnv1a(key.data(), key.size()));
  std::vector<double> v(static_cast<size_t>(n));
  const bool integral = is_integral(in.dtype);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  // The last is a subnormal of the dtype (f64: of f32 too): flush-to-zero must not change a result.
  const double specials[] = {nan, inf, -inf, 0.0, -0.0, max_finite(in.dtype), -max_finite(in.dtype), 1e-30,
                             min_subnormal(in.dtype)};
  for (int64_t i = 0; i < n; i += 2) {
    // Two elements per block: words 0/1 for element i, 2/3 for element i + 1.
    const philox::block blk = philox::counter_block(stream, static_cast<uint64_t>(i / 2));
    for (int64_t j = 0; j < 2 && i + j < n; ++j) {
      const uint32_t w = blk[static_cast<size_t>(2 * j)], w2 = blk[static_cast<size_t>(2 * j + 1)];
      const double u = static_cast<double>(w >> 8) * (1.0 / 16777216.0);
      double x;
      switch (in.values) {
        case Values::boolean: x = (w2 & 1u) ? 1.0 : 0.0; break;
        case Values::halves: x = in.lo + std::floor((in.hi - in.lo) * 2 * u) / 2; break;
        case Values::magnitude:
          x = in.lo + (in.hi - in.lo) * u;
          if (w2 & 1u) x = -x;
          break;
        default:
          x = integral ? std::floor(in.lo + (in.hi - in.lo + 1) * u) : in.lo + (in.hi - in.lo) * u;
          if (integral && x > in.hi) x = in.hi;
          if (in.values == Values::special && (w2 & 7u) == 0) x = specials[(w2 >> 3) % std::size(specials)];
      }
      if (in.values == Values::sparse) x = sparse_value(in, i + j, stream, x);
      v[static_cast<size_t>(i + j)] = x;
    }
  }
  if (in.values == Values::extreme && !in.sizes.empty() && in.sizes.back() > 0) {
    const int64_t len = in.sizes.back();
    for (int64_t r = 0; r * len < n; ++r) {
      const double e = r % 3 == 0 ? inf : r % 3 == 1 ? -inf : (r % 2 ? -0.9 : 0.9) * max_finite(in.dtype);
      v[static_cast<size_t>(r * len + (7 * r + 3) % len)] = e;
    }
  }
  return v;
}

std::vector<int64_t> base_shape(const InputSpec& in) {
  std::vector<int64_t> s = in.sizes;
  if (in.layout == Layout::transposed && s.size() >= 2) std::swap(s[s.size() - 1], s[s.size() - 2]);
  if (in.layout == Layout::sliced && !s.empty()) s[0] = 2 * s[0] + 1;
  return s;
}

Tensor apply_layout(const Tensor& base, const InputSpec& in) {
  switch (in.layout) {
    case Layout::transposed: return in.sizes.size() >= 2 ? base.transpose(-1, -2) : base;
    case Layout::sliced: return in.sizes.empty() ? base : base.slice(0, 1, 1 + 2 * in.sizes[0], 2);
    case Layout::expanded: return base.expand(in.expand_to);
    default: return base;
  }
}

}  // namespace

CaseInputs make_inputs(const Case& c, Device target) {
  CaseInputs out;
  const Device ref = cpu();
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const InputSpec& in = c.inputs[i];
    if (in.absent) {
      out.reference.emplace_back();
      out.target.emplace_back();
      out.hashes.push_back(0);
      continue;
    }
    Tensor base;
    if (in.values == Values::derived) {
      const OpFamily* family = find_op_family(c.schema.name);
      if (family == nullptr) throw NotImplementedError(no_case_description(c.schema.name));
      base = family->derived_input(c, i, out.reference);
    } else {
      const std::vector<int64_t> shape = base_shape(in);
      int64_t n = 1;
      for (int64_t s : shape) n *= s;
      const std::vector<double> v = host_values(c, in, n);
      base = tensor(v, shape, ref).to(in.dtype);
    }
    const Tensor r = apply_layout(base, in);
    const Tensor t = apply_layout(base.to(target), in);
    const std::vector<uint8_t> bytes = r.to_bytes();
    out.hashes.push_back(fnv1a(bytes.data(), bytes.size()));
    out.reference.emplace_back(r);
    out.target.emplace_back(t);
  }
  return out;
}

}  // namespace xd::conform
