#include "comparison.hpp"

#include <xd/numeric.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace xd::conform {

namespace {

template <class T>
T load(const uint8_t* p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

std::string shape_text(const std::vector<int64_t>& s) { return index_text(s); }

std::string num(double v) {
  std::ostringstream o;
  o.precision(9);
  o << v;
  return o.str();
}

}  // namespace

double decode(Dtype d, const uint8_t* p, int64_t i) {
  switch (d) {
    case Dtype::f64: return load<double>(p, i);
    case Dtype::f32: return load<float>(p, i);
    case Dtype::f16: return numeric_detail::f16_to_float(load<uint16_t>(p, i));
    case Dtype::bf16: return numeric_detail::bf16_to_float(load<uint16_t>(p, i));
    case Dtype::i8: return load<int8_t>(p, i);
    case Dtype::u8: return load<uint8_t>(p, i);
    case Dtype::i32: return load<int32_t>(p, i);
    case Dtype::i64: return static_cast<double>(load<int64_t>(p, i));
    case Dtype::boolean: return load<uint8_t>(p, i);
    case Dtype::f8e4m3fn: return numeric_detail::e4m3fn_format::decode(load<uint8_t>(p, i));
    case Dtype::f8e5m2: return numeric_detail::e5m2_format::decode(load<uint8_t>(p, i));
  }
  return 0;
}

std::string index_text(const std::vector<int64_t>& index) {
  std::string s = "[";
  for (size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
  return s + "]";
}

Tolerance dtype_tolerance(Dtype d) {
  switch (d) {
    case Dtype::f64: return {1e-7, 1e-7};
    case Dtype::f32: return {1.3e-6, 1e-5};
    case Dtype::f16: return {1e-3, 1e-5};
    case Dtype::bf16: return {1.6e-2, 1e-5};
    case Dtype::f8e4m3fn: return {1.25e-1, 1e-5};  // one unit in the last place (3 mantissa bits)
    case Dtype::f8e5m2: return {2.5e-1, 1e-5};
    default: return {0.0, 0.0};  // integers and bool: exact
  }
}

Tolerance sum_tolerance(Dtype d, int64_t reduction_length) {
  // Rounding errors of a sum of n terms grow like sqrt(n) for a random summation order.
  Tolerance t = dtype_tolerance(d);
  const double s = std::sqrt(static_cast<double>(std::max<int64_t>(1, reduction_length)));
  t.rtol *= s;
  t.atol *= s;
  return t;
}

Comparison compare_bytes(Dtype d, const std::vector<int64_t>& shape, const std::vector<uint8_t>& e,
                         const std::vector<uint8_t>& g, Tolerance tol) {
  Comparison r;
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  const size_t bytes = static_cast<size_t>(n) * itemsize(d);
  if (e.size() != bytes || g.size() != bytes) {
    r.ok = false;
    r.message = "byte counts differ: expected " + std::to_string(e.size()) + ", got " + std::to_string(g.size());
    return r;
  }
  r.elementwise = true;
  int64_t worst = -1, first_nonfinite = -1;
  double worst_excess = -1;  // how far past the tolerance (in tolerance units); inf for NaN/Inf mismatches
  std::string worst_why;
  for (int64_t i = 0; i < n; ++i) {
    const double ev = decode(d, e.data(), i), gv = decode(d, g.data(), i);
    std::string why;  // set for a NaN/Inf mismatch or an invalid bool byte
    double excess = 0;
    if (d == Dtype::boolean && (gv != 0 && gv != 1)) {
      why = "invalid bool byte " + std::to_string(static_cast<int>(gv)) + " (element not written?)";
    } else if (std::isnan(ev) || std::isnan(gv)) {
      if (std::isnan(ev) != std::isnan(gv))
        why = std::isnan(gv) ? "NaN where a number was expected" : "a number where NaN was expected";
    } else if (std::isinf(ev) || std::isinf(gv)) {
      if (ev != gv) why = "infinity mismatch";
    } else {
      const double abs_err = std::fabs(gv - ev);
      const double rel_err = ev != 0 ? abs_err / std::fabs(ev) : (abs_err != 0 ? INFINITY : 0);
      r.finite_max_abs_error = std::max(r.finite_max_abs_error, abs_err);
      if (std::isfinite(rel_err)) r.finite_max_rel_error = std::max(r.finite_max_rel_error, rel_err);
      const double allowed = tol.atol + tol.rtol * std::fabs(ev);
      if (abs_err > allowed) excess = allowed > 0 ? abs_err / allowed : INFINITY;
    }
    if (!why.empty()) {
      excess = INFINITY;
      if (r.nonfinite_mismatches++ == 0) first_nonfinite = i;
    }
    if (excess > 0) {
      ++r.mismatches;
      if (excess > worst_excess) {
        worst_excess = excess;
        worst = i;
        worst_why = why;
      }
    }
  }
  const auto index_of = [&](int64_t flat) {
    std::vector<int64_t> index(shape.size(), 0);
    for (size_t k = shape.size(); k-- > 0;) {
      index[k] = flat % shape[k];
      flat /= shape[k];
    }
    return index;
  };
  r.max_abs_error = r.nonfinite_mismatches ? INFINITY : r.finite_max_abs_error;
  r.max_rel_error = r.nonfinite_mismatches ? INFINITY : r.finite_max_rel_error;
  if (first_nonfinite >= 0) r.first_nonfinite_index = index_of(first_nonfinite);
  if (worst >= 0) {
    r.ok = false;
    r.worst_index = index_of(worst);
    r.got = decode(d, g.data(), worst);
    r.expected = decode(d, e.data(), worst);
    std::ostringstream m;
    m << r.mismatches << " of " << n << " elements differ; worst at " << index_text(r.worst_index) << ": got "
      << num(r.got) << ", expected " << num(r.expected);
    if (!worst_why.empty()) m << " (" << worst_why << ")";
    if (r.nonfinite_mismatches) {
      m << "; " << r.nonfinite_mismatches
        << (d == Dtype::boolean ? " invalid bool byte" : " NaN/Inf position mismatch")
        << (r.nonfinite_mismatches == 1 ? "" : (d == Dtype::boolean ? "s" : "es")) << ", first at "
        << index_text(r.first_nonfinite_index);
    }
    m << "; max abs error " << num(r.max_abs_error) << ", max rel error " << num(r.max_rel_error);
    if (r.nonfinite_mismatches)
      m << " (finite elements: " << num(r.finite_max_abs_error) << ", " << num(r.finite_max_rel_error) << ")";
    m << " (rtol " << num(tol.rtol) << ", atol " << num(tol.atol) << ")";
    r.message = m.str();
  }
  return r;
}

Comparison compare(const Tensor& expected, const Tensor& got, Tolerance tol) {
  Comparison r;
  const std::vector<int64_t> es(expected.sizes().begin(), expected.sizes().end());
  const std::vector<int64_t> gs(got.sizes().begin(), got.sizes().end());
  if (es != gs) {
    r.ok = false;
    r.message = "shape " + shape_text(gs) + ", expected " + shape_text(es);
    return r;
  }
  if (expected.dtype() != got.dtype()) {
    r.ok = false;
    r.message = std::string("dtype ") + dtype_name(got.dtype()) + ", expected " + dtype_name(expected.dtype());
    return r;
  }
  return compare_bytes(expected.dtype(), es, expected.to_bytes(), got.to_bytes(), tol);
}

}  // namespace xd::conform
