// Host mirrors of the structs the shared kernels take by value (kernels/common.cl: xd_layout,
// xd_scalars), and building them from the views of a call: the index space of a view walked by
// several operands, with size-1 dims dropped and dims merged where every operand is contiguous
// across them. Plain C++ over plugin_abi.h views.
#pragma once

#include <xd/plugin_abi.h>

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
// The same, throwing XD_ERR_INVALID_ARGUMENT for a view of more than kMaxDims dims.
layout layout_of(int ndim, const int64_t* sizes, std::initializer_list<operand> ops, uint64_t skip = 0);

// Scalars holding two doubles (d and f filled) and, optionally, integers.
scalars make_scalars(double a = 0, double b = 0, int64_t ia = 0, int64_t ib = 0);

// The view's byte offset in elements (kernels index typed pointers); throws XD_ERR_INVALID_ARGUMENT
// for an unknown dtype, an offset that is not a multiple of the element size (the message names
// the view as `what`, or "a view") or more than kMaxDims dims.
int64_t element_offset(const xd_view& v, const char* what = nullptr);
// The view as a layout operand: its strides and its element offset.
inline operand operand_of(const xd_view& v) { return {v.strides, element_offset(v)}; }

// kMaxDims zero strides: the operand of an absent view (no weight, no dx), which the kernels
// never read through but whose layout slot must hold valid strides.
const int64_t* zero_strides();
inline operand absent_operand() { return {zero_strides(), 0}; }

// The layout skip mask of the row layout: every dim from `lead` on (a work-group walks a row).
inline uint64_t trailing_mask(int lead) { return ~((uint64_t{1} << lead) - 1); }

}  // namespace xd::xpu
