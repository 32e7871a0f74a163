// Host mirrors of the structs kernels receive by value (kernels/common.cl: xd_layout, xd_scalars),
// and building a layout: the index space of a view, walked by several operands, with size-1
// dims dropped and dims merged where every operand is contiguous across them.
#pragma once

#include "runtime/cl.hpp"

#include <cstdint>
#include <initializer_list>

namespace xd::ocl {

inline constexpr int kMaxDims = 8;
inline constexpr int kMaxOps = 4;
inline constexpr int kVec = 4;  // XD_VEC: elements per work-item of the pointwise kernels

// Field for field as xd_layout in common.cl; every field 8 bytes, so no padding differs.
struct cl_layout {
  cl_long size[kMaxDims];
  cl_long stride[kMaxOps][kMaxDims];
  cl_long offset[kMaxOps];
  cl_long ndim;
  cl_long numel;
  cl_long col_blocks;
  cl_long work;
};
static_assert(sizeof(cl_layout) == 8 * (kMaxDims + kMaxOps * kMaxDims + kMaxOps + 4));

struct cl_scalars {
  cl_long d[2];   // double bits
  cl_long i[2];
  cl_float f[2];  // the doubles rounded to float
  cl_ulong u[2];
};
static_assert(sizeof(cl_scalars) == 56);

// One operand of a layout: its strides over the index space's dims and its element offset.
struct operand {
  const int64_t* strides;
  int64_t offset;
};

// The index space of `sizes` (ndim dims, the view's order: dim 0 outermost) walked by `ops`.
// Dims whose bit is set in `skip` are left out (the dims a kernel walks itself). The result has
// ndim >= 1 with size[0] the innermost dim.
cl_layout make_layout(int ndim, const int64_t* sizes, std::initializer_list<operand> ops, uint64_t skip = 0);

// Scalars holding two doubles (d and f filled) and, optionally, integers.
cl_scalars make_scalars(double a = 0, double b = 0, int64_t ia = 0, int64_t ib = 0);

}  // namespace xd::ocl
