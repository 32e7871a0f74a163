// Host mirrors of the structs kernels receive by value (kernels/common.cl: xd_layout, xd_scalars)
// and building a layout: the index space of a view, walked by several operands, with size-1
// dims dropped and dims merged where every operand is contiguous across them. The structs and the
// algorithm are the ones shared with the Level Zero plugin (plugins/xpu/common/xpu_layout.hpp);
// the names here keep the OpenCL plugin's spelling, and make_layout throws instead of returning
// false.
#pragma once

#include "runtime/cl.hpp"
#include "xpu_layout.hpp"

#include <cstdint>
#include <initializer_list>

namespace xd::ocl {

inline constexpr int kMaxDims = xpu::kMaxDims;
inline constexpr int kMaxOps = xpu::kMaxOps;
inline constexpr int kVec = xpu::kVec;  // XD_VEC: elements per work-item of the pointwise kernels

using cl_layout = xpu::layout;    // field for field as xd_layout in common.cl
using cl_scalars = xpu::scalars;  // as xd_scalars
using operand = xpu::operand;     // one operand of a layout: its strides and its element offset
static_assert(sizeof(cl_long) == sizeof(int64_t) && sizeof(cl_float) == sizeof(float));

// The index space of `sizes` (ndim dims, the view's order: dim 0 outermost) walked by `ops`.
// Dims whose bit is set in `skip` are left out (the dims a kernel walks itself). The result has
// ndim >= 1 with size[0] the innermost dim.
cl_layout make_layout(int ndim, const int64_t* sizes, std::initializer_list<operand> ops, uint64_t skip = 0);

// Scalars holding two doubles (d and f filled) and, optionally, integers.
cl_scalars make_scalars(double a = 0, double b = 0, int64_t ia = 0, int64_t ib = 0);

}  // namespace xd::ocl
