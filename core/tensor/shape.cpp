#include "tensor/shape.hpp"

#include <xd/error.hpp>

#include <limits>

namespace xd::detail {

std::string shape_str(const int64_t* sizes, int ndim) {
  std::string s = "[";
  for (int i = 0; i < ndim; ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

std::string shape_str(std::span<const int64_t> s) { return shape_str(s.data(), static_cast<int>(s.size())); }

int normalize_dim(int64_t dim, int ndim, const char* op) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  if (dim < -n || dim >= n)
    throw IndexError(std::string(op) + ": dim " + std::to_string(dim) + " is out of range for a " +
                     std::to_string(ndim) + "-d tensor (expected a dim in [" + std::to_string(-n) + ", " +
                     std::to_string(n - 1) + "])");
  return static_cast<int>(dim < 0 ? dim + n : dim);
}

void throw_rank(int ndim) {
  throw LayoutError("cannot create a " + std::to_string(ndim) + "-d tensor; xdispatch tensors have at most " +
                    std::to_string(kMaxDims) + " dims");
}

namespace {

// contiguous_strides's errors, out of line: the hot path (every output's allocation) then carries
// none of their string work.
[[noreturn, gnu::cold, gnu::noinline]] void bad_shape(const int64_t* sizes, int ndim, const char* op) {
  if (ndim > kMaxDims)
    throw LayoutError(std::string(op) + ": " + std::to_string(ndim) + " dims requested; xdispatch tensors have at most " +
                      std::to_string(kMaxDims));
  for (int i = 0; i < ndim; ++i)
    if (sizes[i] < 0)
      throw ValueError(std::string(op) + ": negative size " + std::to_string(sizes[i]) + " at dim " +
                       std::to_string(i) + " of " + shape_str(sizes, ndim) + "; sizes must be >= 0");
  throw ValueError(std::string(op) + ": shape " + shape_str(sizes, ndim) + " has more elements than int64 can count");
}

}  // namespace

int64_t contiguous_strides(const int64_t* sizes, int ndim, int64_t* strides, const char* op) {
  if (ndim > kMaxDims) [[unlikely]]
    bad_shape(sizes, ndim, op);
  bool negative = false;
  for (int i = 0; i < ndim; ++i) negative |= sizes[i] < 0;
  if (negative) [[unlikely]]
    bad_shape(sizes, ndim, op);
  int64_t numel = 1;
  bool overflow = false;
  for (int i = ndim - 1; i >= 0; --i) {
    strides[i] = overflow ? 0 : numel;
    if (!overflow && __builtin_mul_overflow(numel, sizes[i] > 1 ? sizes[i] : 1, &numel)) overflow = true;
  }
  for (int i = 0; i < ndim; ++i)
    if (sizes[i] == 0) return 0;
  if (overflow) [[unlikely]]
    bad_shape(sizes, ndim, op);
  return numel;
}

void broadcast_into(int64_t* out, int& out_ndim, const int64_t* b, int b_ndim, const char* op) {
  if (b_ndim == out_ndim) {  // the common case: equal shapes, nothing to compute
    int i = 0;
    while (i < b_ndim && out[i] == b[i]) ++i;
    if (i == b_ndim) return;
  }
  const int n = out_ndim > b_ndim ? out_ndim : b_ndim;
  int64_t res[kMaxDims];
  for (int i = 0; i < n; ++i) {
    const int ia = i - (n - out_ndim), ib = i - (n - b_ndim);
    const int64_t sa = ia >= 0 ? out[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      throw ShapeError(std::string(op) + ": shapes " + shape_str(out, out_ndim) + " and " + shape_str(b, b_ndim) +
                       " do not broadcast (dim " + std::to_string(i) + ": " + std::to_string(sa) + " vs " +
                       std::to_string(sb) + "; sizes must match or be 1)");
    res[i] = sa == 1 ? sb : sa;
  }
  for (int i = 0; i < n; ++i) out[i] = res[i];
  out_ndim = n;
}

void broadcast_strides(const int64_t* t_sizes, const int64_t* t_strides, int t_ndim, const int64_t* sizes, int ndim,
                       int64_t* strides) {
  for (int i = 0; i < ndim; ++i) {
    const int it = i - (ndim - t_ndim);
    strides[i] = (it < 0 || (t_sizes[it] == 1 && sizes[i] != 1)) ? 0 : t_strides[it];
  }
}

}  // namespace xd::detail
