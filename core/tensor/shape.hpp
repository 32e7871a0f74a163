// Shape arithmetic shared by the tensor views and the op meta functions.
#pragma once

#include <xd/tensor.hpp>

#include <string>

namespace xd::detail {

// "[2, 3]"
std::string shape_str(const int64_t* sizes, int ndim);
std::string shape_str(std::span<const int64_t> s);

// dim in [-ndim, ndim) -> [0, ndim); IndexError otherwise. `ndim` 0 accepts -1 and 0 (PyTorch).
int normalize_dim(int64_t dim, int ndim, const char* op);

// LayoutError unless ndim <= kMaxDims (the message of creating such a tensor).
[[noreturn]] void throw_rank(int ndim);
inline void check_rank(int ndim) {
  if (ndim > kMaxDims) [[unlikely]]
    throw_rank(ndim);
}

// Row-major strides for `sizes`; returns numel. ValueError for negative sizes, LayoutError for
// more than kMaxDims dims, ValueError when the element count overflows int64.
int64_t contiguous_strides(const int64_t* sizes, int ndim, int64_t* strides, const char* op);

// Broadcasts `b` into `out` (NumPy rules); ShapeError naming both shapes when incompatible.
void broadcast_into(int64_t* out, int& out_ndim, const int64_t* b, int b_ndim, const char* op);

// Strides of `t` viewed as broadcast to `sizes` (0 on broadcast dims). The caller guarantees
// that t's shape broadcasts to sizes.
void broadcast_strides(const int64_t* t_sizes, const int64_t* t_strides, int t_ndim, const int64_t* sizes,
                       int ndim, int64_t* strides);

}  // namespace xd::detail
