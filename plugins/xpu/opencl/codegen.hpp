// The OpenCL backend's codegen overrides (xd_codegen_api, docs/compiler.md): it builds generated
// OpenCL C. target() gives a device's prelude (its defines, kernels/common.cl, kernels/codegen.cl)
// and sizes; program_build() goes through the device's program cache and its disk cache
// (program/program_cache.hpp: generated()); kernel_get() creates one cl_kernel per (program, name);
// kernel_launch() sets the arguments and enqueues an NDRange on the stream's queue under that
// kernel's mutex (the arguments live in the cl_kernel until the enqueue captures them).
//
// Programs and kernels live as long as the plugin. Every entry point is thread-safe and reports
// errors through the host (XD_ERR_INVALID_ARGUMENT for a bad call or a source that does not build).
#pragma once

#include <xd/plugin_abi.h>

namespace xd::ocl {

// Sets api.codegen_languages (XD_CODEGEN_OPENCL_C) and api.codegen (the plugin's one table).
void fill_codegen_api(xd_plugin_api& api);

}  // namespace xd::ocl
