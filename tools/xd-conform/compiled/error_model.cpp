#include "error_model.hpp"

#include "../comparison.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace xd::conform {

double ValueInfo::magnitude() const { return std::max(std::fabs(lo), std::fabs(hi)); }

namespace {

bool arithmetic_float(Dtype d) { return is_floating(d) && !is_fp8(d); }

// Unit roundoff of a dtype's storage (0: integers and bool are exact).
double unit_roundoff(Dtype d) {
  switch (d) {
    case Dtype::f64:
      return 0x1p-53;
    case Dtype::f32:
      return 0x1p-24;
    case Dtype::f16:
      return 0x1p-11;
    case Dtype::bf16:
      return 0x1p-8;
    case Dtype::f8e4m3fn:
      return 0x1p-4;
    case Dtype::f8e5m2:
      return 0x1p-3;
    default:
      return 0.0;
  }
}

// Unit roundoff of the type the kernels compute a dtype in (float below f64).
double compute_roundoff(Dtype d) { return d == Dtype::f64 ? 0x1p-53 : 0x1p-24; }
// One transcendental function's error bound, relative to the result's magnitude.
double math_roundoff(Dtype d) { return kMathUlps * 2.0 * compute_roundoff(d); }

// The largest magnitude a value of d may reach: far enough below overflow that no rounding
// difference can make one side overflow and the other not.
double magnitude_limit(Dtype d) {
  switch (d) {
    case Dtype::f64:
      return 1e300;
    case Dtype::f32:
    case Dtype::bf16:
      return 1e36;
    case Dtype::f16:
      return 4096.0;
    case Dtype::f8e4m3fn:
      return 400.0;
    case Dtype::f8e5m2:
      return 50000.0;
    case Dtype::i32:
      return 0x1p30;
    case Dtype::i64:
      return 0x1p60;
    case Dtype::i8:
      return 127.0;
    case Dtype::u8:
      return 255.0;
    default:
      return 1.0;
  }
}

// The range of an integer dtype, for the wrap-around of i8 and u8.
std::pair<double, double> int_limits(Dtype d) {
  switch (d) {
    case Dtype::i8:
      return {-128.0, 127.0};
    case Dtype::u8:
      return {0.0, 255.0};
    case Dtype::boolean:
      return {0.0, 1.0};
    case Dtype::i32:
      return {-2147483648.0, 2147483647.0};
    default:
      return {-9.2e18, 9.2e18};
  }
}

double min_abs_of(double lo, double hi) { return lo > 0 ? lo : (hi < 0 ? -hi : 0.0); }

// The smallest positive value a drawn or computed element can have when a range reaches zero:
// inputs are drawn on a 2^-24 grid of their range, so log and sqrt of an exact value stay finite.
double tiny(double magnitude) { return std::max(1e-8, magnitude * 0x1p-25); }

struct Out {
  ValueInfo v;
  std::string why;
  bool ok = true;
  void reject(std::string reason) {
    if (ok) why = std::move(reason);
    ok = false;
  }
};

// The result's range: [lo, hi] with min_abs from it; err starts at the inputs' propagated error.
void set_range(ValueInfo& v, double lo, double hi) {
  v.lo = lo;
  v.hi = hi;
  v.min_abs = min_abs_of(lo, hi);
}

// Wraps an integer range into the dtype (i8 and u8 wrap; wider integers must not overflow).
void fit_integer(Out& o) {
  ValueInfo& v = o.v;
  const auto [lo, hi] = int_limits(v.dtype);
  if (v.lo >= lo && v.hi <= hi) return;
  if (v.dtype == Dtype::i8 || v.dtype == Dtype::u8) {
    set_range(v, lo, hi);
    return;
  }
  o.reject(std::string("overflows ") + dtype_name(v.dtype));
}

// Adds the result's own rounding and checks its magnitude against the dtype's limit.
void finish(Out& o, bool transcendental) {
  ValueInfo& v = o.v;
  if (!is_floating(v.dtype)) {
    v.err = 0;
    v.exact = true;
    fit_integer(o);
    return;
  }
  const double m = v.magnitude();
  if (!(m <= magnitude_limit(v.dtype)))
    o.reject("magnitude " + std::to_string(m) + " near overflow of " + dtype_name(v.dtype));
  if (!v.exact)
    v.err += m * (unit_roundoff(v.dtype) + (transcendental ? math_roundoff(v.dtype) : compute_roundoff(v.dtype)));
}

int64_t numel_of(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

// sup |f'| over [lo, hi] for the smooth unary ops, and f's range there.
void unary_float(const GraphStep& s, const ValueInfo& a, Out& o) {
  ValueInfo& v = o.v;
  const double lo = a.lo, hi = a.hi, m = a.magnitude();
  double deriv = 1.0;
  bool transcendental = true;
  auto domain = [&](bool positive_needed) {
    // A value whose sign rounding could change must not reach a domain edge.
    if (positive_needed && lo <= 0 && !a.exact)
      o.reject(std::string(graph_op_name(s.op)) + " of an inexact value that reaches 0");
    if (lo < 0) v.nan = true;
  };
  const double plo = lo > 0 ? lo : tiny(m);
  switch (s.op) {
    case GraphOp::exp:
      set_range(v, std::exp(lo), std::exp(hi));
      deriv = std::exp(hi);
      break;
    case GraphOp::log:
      domain(true);
      if (hi <= 0) o.reject("log of a range without positive values");
      set_range(v, std::log(plo), std::log(std::max(hi, plo)));
      deriv = 1.0 / plo;
      break;
    case GraphOp::sqrt:
      domain(true);
      set_range(v, std::sqrt(std::max(lo, 0.0)), std::sqrt(std::max(hi, 0.0)));
      deriv = 0.5 / std::sqrt(plo);
      break;
    case GraphOp::rsqrt:
      if (lo <= 0) o.reject("rsqrt of a range that reaches 0");
      set_range(v, 1.0 / std::sqrt(std::max(hi, plo)), 1.0 / std::sqrt(plo));
      deriv = 0.5 * std::pow(plo, -1.5);
      break;
    case GraphOp::pow: {
      const double e = s.exponent;
      const bool integral = e == std::floor(e);
      if (e < 0 && lo < 0.05) o.reject("negative power of a range reaching 0");
      if (!integral) domain(true);
      if (integral) {
        const double c[] = {std::pow(lo, e), std::pow(hi, e)};
        double rlo = std::min(c[0], c[1]), rhi = std::max(c[0], c[1]);
        if (lo < 0 && hi > 0 && static_cast<int64_t>(e) % 2 == 0) rlo = 0;
        set_range(v, rlo, rhi);
        deriv = std::fabs(e) * std::pow(std::max(m, 1e-300), std::max(e - 1, 0.0));
        if (e == 0) {
          set_range(v, 1, 1);
          deriv = 0;
        }
      } else {
        const double a0 = std::pow(plo, e), a1 = std::pow(std::max(hi, plo), e);
        set_range(v, std::min(a0, a1), std::max(a0, a1));
        deriv = std::fabs(e) * std::max(std::pow(plo, e - 1), std::pow(std::max(hi, plo), e - 1));
      }
      break;
    }
    case GraphOp::tanh:
      set_range(v, std::tanh(lo), std::tanh(hi));
      break;
    case GraphOp::sigmoid:
      set_range(v, 1 / (1 + std::exp(-lo)), 1 / (1 + std::exp(-hi)));
      deriv = 0.25;
      break;
    case GraphOp::silu:
    case GraphOp::gelu: {
      // Both dip below zero once (silu at x = -1.2785, gelu near -0.7518) and grow like x after.
      const bool silu = s.op == GraphOp::silu;
      auto f = [&](double x) { return silu ? x / (1 + std::exp(-x)) : 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); };
      const double xmin = silu ? -1.2785 : -0.7518;
      double rlo = std::min(f(lo), f(hi)), rhi = std::max(f(lo), f(hi));
      if (lo < xmin && hi > xmin) rlo = std::min(rlo, f(xmin));
      set_range(v, rlo - 1e-3, rhi);  // the tanh form differs from erf's by less than 1e-3
      deriv = 1.13;
      break;
    }
    case GraphOp::relu:
      set_range(v, std::max(lo, 0.0), std::max(hi, 0.0));
      transcendental = false;
      break;
    case GraphOp::neg:
      set_range(v, -hi, -lo);
      v.min_abs = a.min_abs;
      transcendental = false;
      break;
    case GraphOp::abs:
      set_range(v, a.min_abs, m);
      v.min_abs = a.min_abs;
      transcendental = false;
      break;
    default:
      break;
  }
  const bool bitwise = s.op == GraphOp::relu || s.op == GraphOp::neg || s.op == GraphOp::abs;
  v.exact = a.exact && bitwise;
  v.err = a.err == 0 ? 0 : deriv * a.err;
  if (v.exact) return finish(o, false);
  finish(o, transcendental);
}

void unary_int(const GraphStep& s, const ValueInfo& a, Out& o) {
  ValueInfo& v = o.v;
  switch (s.op) {
    case GraphOp::neg:
      set_range(v, -a.hi, -a.lo);
      break;
    case GraphOp::abs:
      set_range(v, a.min_abs, a.magnitude());
      break;
    case GraphOp::relu:
      set_range(v, std::max(a.lo, 0.0), std::max(a.hi, 0.0));
      break;
    default:
      o.reject(std::string(graph_op_name(s.op)) + " of an integer dtype");
      return;
  }
  finish(o, false);
}

void binary(const GraphStep& s, const ValueInfo& a, const ValueInfo& b, Out& o) {
  ValueInfo& v = o.v;
  const bool fl = is_floating(a.dtype);
  const double ma = a.magnitude(), mb = b.magnitude();
  v.exact = a.exact && b.exact && !fl;
  v.nan = a.nan || b.nan;
  switch (s.op) {
    case GraphOp::add:
    case GraphOp::sub: {
      const double k = s.op == GraphOp::add ? s.alpha : -s.alpha;
      const double b0 = k * b.lo, b1 = k * b.hi;
      set_range(v, a.lo + std::min(b0, b1), a.hi + std::max(b0, b1));
      v.err = a.err + std::fabs(k) * b.err;
      break;
    }
    case GraphOp::mul: {
      const double c[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
      set_range(v, *std::min_element(c, c + 4), *std::max_element(c, c + 4));
      v.min_abs = a.min_abs * b.min_abs;
      v.err = ma * b.err + mb * a.err + a.err * b.err;
      break;
    }
    case GraphOp::div: {
      if (!fl) return o.reject("div of an integer dtype");
      if (b.min_abs < 0.25 * std::max(mb, 1e-3) || b.min_abs < 1e-3)
        return o.reject("division by a range reaching near 0");
      const double q = ma / b.min_abs;
      const double lo_q = b.lo > 0 ? std::min(a.lo / b.lo, a.lo / b.hi) : std::min(a.hi / b.lo, a.hi / b.hi);
      const double hi_q = b.lo > 0 ? std::max(a.hi / b.lo, a.hi / b.hi) : std::max(a.lo / b.lo, a.lo / b.hi);
      // b's range may straddle zero with min_abs > 0 (magnitude inputs): then a/b spans +-q.
      if (b.lo < 0 && b.hi > 0)
        set_range(v, -q, q);
      else
        set_range(v, std::min(lo_q, hi_q), std::max(lo_q, hi_q));
      v.err = (a.err + q * b.err) / b.min_abs;
      break;
    }
    case GraphOp::maximum:
    case GraphOp::minimum: {
      const bool mx = s.op == GraphOp::maximum;
      set_range(v, mx ? std::max(a.lo, b.lo) : std::min(a.lo, b.lo), mx ? std::max(a.hi, b.hi) : std::min(a.hi, b.hi));
      v.err = std::max(a.err, b.err);
      v.exact = a.exact && b.exact;
      break;
    }
    default:
      break;
  }
  finish(o, false);
}

void reduction(const GraphStep& s, const ValueInfo& a, Out& o) {
  ValueInfo& v = o.v;
  const int nd = static_cast<int>(a.shape.size());
  const int k = s.op == GraphOp::softmax || s.op == GraphOp::log_softmax ? 1 : s.dims;
  if (k < 1 || k > nd)
    return o.reject("reduces " + std::to_string(k) + " dims of a rank-" + std::to_string(nd) + " value");
  const std::vector<int64_t> tail(a.shape.end() - k, a.shape.end());
  const double n = static_cast<double>(numel_of(tail));
  const double m = a.magnitude(), u = compute_roundoff(a.dtype), rn = std::sqrt(std::max(n, 1.0));
  const bool fl = is_floating(a.dtype);
  if (!arithmetic_float(a.dtype) && s.op != GraphOp::sum && s.op != GraphOp::amax && s.op != GraphOp::amin)
    return o.reject(std::string(graph_op_name(s.op)) + " of " + dtype_name(a.dtype));
  if (is_fp8(a.dtype) || a.dtype == Dtype::boolean)
    return o.reject(std::string(graph_op_name(s.op)) + " of " + dtype_name(a.dtype));
  const bool rowwise = s.op == GraphOp::sum || s.op == GraphOp::mean || s.op == GraphOp::amax || s.op == GraphOp::amin;
  if (rowwise) {
    v.shape.assign(a.shape.begin(), a.shape.end() - k);
    if (s.keepdim) v.shape.insert(v.shape.end(), static_cast<size_t>(k), 1);
  }
  v.exact = false;
  v.nan = a.nan;
  switch (s.op) {
    case GraphOp::sum:
      if (!fl) v.dtype = Dtype::i64;
      set_range(v, std::min(0.0, n * a.lo), std::max(0.0, n * a.hi));
      v.exact = !fl;
      v.err = n * a.err + 2 * u * n * rn * m;
      break;
    case GraphOp::mean:
      if (n == 0) v.nan = true;
      set_range(v, a.lo, a.hi);
      v.err = a.err + 2 * u * rn * m;
      break;
    case GraphOp::amax:
    case GraphOp::amin:
      if (n == 0) return o.reject(std::string(graph_op_name(s.op)) + " over an empty dim");
      set_range(v, a.lo, a.hi);
      v.err = a.err;
      v.exact = a.exact;
      break;
    case GraphOp::softmax:
      set_range(v, 0.0, 1.0);
      v.err = 2 * a.err + math_roundoff(a.dtype) + 4 * u * rn;
      break;
    case GraphOp::log_softmax: {
      const double width = a.hi - a.lo + std::log(std::max(n, 1.0));
      set_range(v, -width, 0.0);
      v.err = 2 * a.err + (math_roundoff(a.dtype) + 4 * u * rn) * (width + 1);
      break;
    }
    default:
      break;
  }
  finish(o, s.op == GraphOp::softmax || s.op == GraphOp::log_softmax);
}

// rms_norm: a row's rms is assumed at least a thirtieth of the range's magnitude (rows of drawn
// or computed values are never nearly all zero here), so |y| <= min(sqrt(n), 30) * |w|.
void rms_norm_info(const GraphStep& s, const ValueInfo& a, const ValueInfo* w, Out& o) {
  ValueInfo& v = o.v;
  const int nd = static_cast<int>(a.shape.size());
  if (!arithmetic_float(a.dtype)) return o.reject(std::string("rms_norm of ") + dtype_name(a.dtype));
  if (s.dims < 1 || s.dims > nd) return o.reject("rms_norm over more dims than the value has");
  const std::vector<int64_t> tail(a.shape.end() - s.dims, a.shape.end());
  if (w != nullptr && (w->shape != tail || w->dtype != a.dtype))
    return o.reject("rms_norm weight of another shape or dtype");
  const double n = static_cast<double>(numel_of(tail)), m = a.magnitude(), u = compute_roundoff(a.dtype);
  const double mw = w ? w->magnitude() : 1.0, ew = w ? w->err : 0.0;
  const double ratio = std::min(std::sqrt(std::max(n, 1.0)), 30.0);
  if (m == 0) {
    set_range(v, 0, 0);
    v.err = 0;
  } else {
    const double rms_floor = m / 30.0;
    set_range(v, -ratio * mw, ratio * mw);
    v.err = mw * (2 * a.err / rms_floor + ratio * 4 * u * std::sqrt(std::max(n, 1.0))) + ratio * ew;
  }
  v.exact = false;
  v.nan = a.nan || (w && w->nan);
  finish(o, true);
}

}  // namespace

ValueInfo input_info(const InputSpec& spec) {
  ValueInfo v;
  v.dtype = spec.dtype;
  v.shape = spec.layout == Layout::expanded ? spec.expand_to : spec.sizes;
  if (spec.dtype == Dtype::boolean || spec.values == Values::boolean) {
    set_range(v, 0, 1);
  } else if (spec.values == Values::magnitude) {
    set_range(v, -spec.hi, spec.hi);
    v.min_abs = spec.lo;
  } else {
    set_range(v, spec.lo, spec.hi);
  }
  return v;
}

std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

std::optional<ValueInfo> propagate(const GraphStep& s, const std::vector<ValueInfo>& values, std::string& why) {
  Out o;
  std::vector<const ValueInfo*> in;
  for (int a : s.args) {
    if (a < 0 || a >= static_cast<int>(values.size())) {
      why = "refers to value v" + std::to_string(a) + ", which does not exist yet";
      return std::nullopt;
    }
    in.push_back(&values[static_cast<size_t>(a)]);
  }
  auto need = [&](size_t n) {
    if (in.size() != n) o.reject(std::string(graph_op_name(s.op)) + " takes " + std::to_string(n) + " values");
    return in.size() == n;
  };
  for (const ValueInfo* p : in) o.v.depth = std::max(o.v.depth, p->depth + 1);
  if (!in.empty()) {
    o.v.dtype = in[0]->dtype;
    o.v.shape = in[0]->shape;
  }
  switch (s.op) {
    case GraphOp::neg:
    case GraphOp::abs:
    case GraphOp::relu:
    case GraphOp::exp:
    case GraphOp::log:
    case GraphOp::sqrt:
    case GraphOp::rsqrt:
    case GraphOp::gelu:
    case GraphOp::silu:
    case GraphOp::sigmoid:
    case GraphOp::tanh:
    case GraphOp::pow:
      if (!need(1)) break;
      o.v.nan = in[0]->nan;
      if (arithmetic_float(in[0]->dtype))
        unary_float(s, *in[0], o);
      else if (is_integral(in[0]->dtype) && in[0]->dtype != Dtype::boolean)
        unary_int(s, *in[0], o);
      else
        o.reject(std::string(graph_op_name(s.op)) + " of " + dtype_name(in[0]->dtype));
      break;
    case GraphOp::add:
    case GraphOp::sub:
    case GraphOp::mul:
    case GraphOp::div:
    case GraphOp::maximum:
    case GraphOp::minimum:
    case GraphOp::eq:
    case GraphOp::lt:
    case GraphOp::gt: {
      if (!need(2)) break;
      const ValueInfo &a = *in[0], &b = *in[1];
      const auto shape = broadcast_shapes(a.shape, b.shape);
      if (!shape) {
        o.reject("shapes do not broadcast");
        break;
      }
      if (a.dtype != b.dtype) {
        o.reject("operands of two dtypes");
        break;
      }
      o.v.shape = *shape;
      const bool compare = s.op == GraphOp::eq || s.op == GraphOp::lt || s.op == GraphOp::gt;
      if (compare) {
        if (!a.exact || !b.exact) {
          o.reject("compares values rounding could change");
          break;
        }
        if (is_fp8(a.dtype)) {
          o.reject("compares fp8");
          break;
        }
        o.v.dtype = Dtype::boolean;
        set_range(o.v, 0, 1);
        break;
      }
      if (!arithmetic_float(a.dtype) && (!is_integral(a.dtype) || a.dtype == Dtype::boolean)) {
        o.reject(std::string(graph_op_name(s.op)) + " of " + dtype_name(a.dtype));
        break;
      }
      binary(s, a, b, o);
      break;
    }
    case GraphOp::where: {
      if (!need(3)) break;
      const ValueInfo &c = *in[0], &a = *in[1], &b = *in[2];
      if (c.dtype != Dtype::boolean || !c.exact) {
        o.reject("where's condition is not an exact bool");
        break;
      }
      if (a.dtype != b.dtype || is_fp8(a.dtype)) {
        o.reject("where of two dtypes");
        break;
      }
      auto shape = broadcast_shapes(c.shape, a.shape);
      if (shape) shape = broadcast_shapes(*shape, b.shape);
      if (!shape) {
        o.reject("shapes do not broadcast");
        break;
      }
      o.v.dtype = a.dtype;
      o.v.shape = *shape;
      set_range(o.v, std::min(a.lo, b.lo), std::max(a.hi, b.hi));
      o.v.min_abs = std::min(a.min_abs, b.min_abs);
      o.v.err = std::max(a.err, b.err);
      o.v.exact = a.exact && b.exact;
      o.v.nan = a.nan || b.nan;
      break;
    }
    case GraphOp::constant: {
      if (!need(0)) break;
      o.v.dtype = s.dtype;
      o.v.shape = {};
      set_range(o.v, s.value, s.value);
      o.v.exact = true;
      break;
    }
    case GraphOp::cast: {
      if (!need(1)) break;
      const ValueInfo& a = *in[0];
      o.v = a;
      o.v.depth = a.depth + 1;
      o.v.dtype = s.dtype;
      if (is_floating(s.dtype)) {
        finish(o, false);  // adds the target's rounding to an inexact value
        if (o.v.exact && a.magnitude() > magnitude_limit(s.dtype))
          o.reject("casts beyond the range of " + std::string(dtype_name(s.dtype)));
      } else if (s.dtype == Dtype::boolean) {
        if (!a.exact || a.nan) o.reject("casts an inexact value to bool");
        set_range(o.v, 0, 1);
      } else if (is_floating(a.dtype)) {
        if (!a.exact || a.nan) o.reject("casts an inexact value to an integer");
        const auto [lo, hi] = int_limits(s.dtype);
        if (a.lo <= lo || a.hi >= hi) o.reject("casts a float beyond the integer's range");
        set_range(o.v, std::trunc(a.lo), std::trunc(a.hi));
      } else {
        fit_integer(o);
      }
      break;
    }
    case GraphOp::sum:
    case GraphOp::mean:
    case GraphOp::amax:
    case GraphOp::amin:
    case GraphOp::softmax:
    case GraphOp::log_softmax:
      if (need(1)) reduction(s, *in[0], o);
      break;
    case GraphOp::rms_norm:
      if (in.empty() || in.size() > 2) {
        o.reject("rms_norm takes 1 or 2 values");
        break;
      }
      rms_norm_info(s, *in[0], in.size() > 1 ? in[1] : nullptr, o);
      break;
    case GraphOp::mm: {
      if (!need(2)) break;
      const ValueInfo &a = *in[0], &b = *in[1];
      if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[1] != b.shape[0] || a.dtype != b.dtype ||
          !arithmetic_float(a.dtype)) {
        o.reject("mm of mismatched operands");
        break;
      }
      const double k = static_cast<double>(a.shape[1]), ma = a.magnitude(), mb = b.magnitude();
      o.v.shape = {a.shape[0], b.shape[1]};
      set_range(o.v, -k * ma * mb, k * ma * mb);
      o.v.err = k * (ma * b.err + mb * a.err) + 2 * compute_roundoff(a.dtype) * k * std::sqrt(k) * ma * mb;
      o.v.exact = false;
      o.v.nan = a.nan || b.nan;
      finish(o, false);
      break;
    }
  }
  if (!o.ok) {
    why = std::string(graph_op_name(s.op)) + ": " + o.why;
    return std::nullopt;
  }
  return o.v;
}

std::optional<std::vector<ValueInfo>> analyze(const Recipe& r, const std::vector<InputSpec>& inputs, std::string& why) {
  std::vector<ValueInfo> v;
  for (const InputSpec& in : inputs) v.push_back(input_info(in));
  for (const GraphStep& s : r.steps) {
    auto next = propagate(s, v, why);
    if (!next) return std::nullopt;
    v.push_back(std::move(*next));
  }
  return v;
}

Tolerance output_tolerance(const ValueInfo& v) {
  if (v.exact) return {0.0, 0.0};
  Tolerance t = dtype_tolerance(v.dtype);
  t.atol += kSafety * v.err;
  return t;
}

}  // namespace xd::conform
