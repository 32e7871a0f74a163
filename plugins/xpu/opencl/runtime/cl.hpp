// The OpenCL headers at the API level this plugin targets (1.2: clEnqueueMarkerWithWaitList,
// clCreateCommandQueue), and turning OpenCL error codes into plugin errors.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <xd/plugin.hpp>

#include <string>

namespace xd::ocl {

// The plugin toolbox's host glue (include/xd/plugin.hpp) under the short names the runtime uses.
using plugin::host;
using plugin::log;

// "CL_OUT_OF_RESOURCES (-5)".
std::string cl_error_string(cl_int err);

// The status an OpenCL error maps to: out of memory for the allocation failures, device otherwise.
xd_status status_of(cl_int err);

// Throws plugin::error "opencl: <what> failed: CL_... (n)".
[[noreturn]] void throw_cl(cl_int err, const std::string& what);

inline void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) throw_cl(err, what);
}
inline void check(cl_int err, const std::string& what) {
  if (err != CL_SUCCESS) throw_cl(err, what);
}

}  // namespace xd::ocl
