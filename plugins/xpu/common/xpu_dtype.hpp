// Element sizes and offsets of the dtypes the XPU kernels take, shared by the OpenCL and the Level
// Zero plugin: the two index typed pointers the same way, so they must agree on both.
#pragma once

#include <xd/plugin_abi.h>

#include <cstdint>

namespace xd::xpu {

bool is_floating(int32_t dtype);

// Bytes of one element; throws XD_ERR_INVALID_ARGUMENT for an unknown dtype, the message prefixed
// with "<backend>: " when `backend` is given (the Level Zero plugin's callers pass none).
int64_t element_size(int32_t dtype, const char* backend = nullptr);

// The view's byte offset in elements (kernels index typed pointers); checks it is a multiple of
// the element size (the error names the view as `what`, or "a view") and that the view has at
// most kMaxDims dims.
int64_t element_offset(const xd_view& v, const char* backend, const char* what = nullptr);

}  // namespace xd::xpu
