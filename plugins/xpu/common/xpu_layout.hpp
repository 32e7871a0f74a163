// Host mirrors of the structs the shared kernels take by value (kernels/common.cl: xd_layout,
// xd_scalars), in plain C++ types so any XPU variant can use them (the Level Zero plugin does;
// the OpenCL plugin's cl_layout in opencl/kernels/layout.hpp has the same fields in cl_* types).
#pragma once

#include <cstdint>
#include <initializer_list>

namespace xd::xpu {

inline constexpr int kMaxDims = 8;
inline constexpr int kMaxOps = 4;
inline constexpr int kVec = 4;  // XD_VEC: elements per work-item of the pointwise kernels

// Field for field as xd_layout in common.cl; every field 8 bytes, so no padding differs.
struct layout {
  int64_t size[kMaxDims];
  int64_t stride[kMaxOps][kMaxDims];
  int64_t offset[kMaxOps];
  int64_t ndim;
  int64_t numel;
  int64_t col_blocks;
  int64_t work;
};
static_assert(sizeof(layout) == 8 * (kMaxDims + kMaxOps * kMaxDims + kMaxOps + 4));

struct scalars {
  int64_t d[2];  // double bits
  int64_t i[2];
  float f[2];    // the doubles rounded to float
  uint64_t u[2];
};
static_assert(sizeof(scalars) == 56);

struct operand {
  const int64_t* strides;
  int64_t offset;  // elements
};

// The index space of `sizes` (dim 0 outermost) walked by `ops`: size-1 dims dropped, dims merged
// where every operand is contiguous across them, size[0] the innermost. Dims whose bit is set in
// `skip` are left out (the dims a kernel walks itself: reduced dims, softmax's dim, a row).
// Returns false when the view has more dims or operands than the kernels take.
bool make_layout(layout& out, int ndim, const int64_t* sizes, std::initializer_list<operand> ops,
                 uint64_t skip = 0);

scalars make_scalars(double a = 0, double b = 0, int64_t ia = 0, int64_t ib = 0);

}  // namespace xd::xpu
