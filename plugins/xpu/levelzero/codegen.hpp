// The Level Zero backend's codegen overrides (xd_codegen_api, docs/compiler.md): generated OpenCL
// C is compiled to SPIR-V at run time (program/spirv_compiler.hpp: clang-15 and llvm-spirv-15 found
// on PATH, cached in XD_CACHE_DIR) and created as a module with zeModuleCreate. Without the tools,
// target() answers XD_ERR_UNAVAILABLE and the core runs every op eagerly.
//
// Never run on hardware by this project (no machine has a Level Zero driver): the SPIR-V step is
// checked with spirv-val and the table's calls against the fake driver (tests/plugins/levelzero).
//
// Modules and kernels live as long as the plugin. Every entry point is thread-safe; a kernel's
// arguments are set and its launch appended under the kernel's mutex.
#pragma once

#include <xd/plugin_abi.h>

namespace xd::l0 {

// Sets api.codegen_languages (XD_CODEGEN_OPENCL_C) and api.codegen (the plugin's one table).
void fill_codegen_api(xd_plugin_api& api);

}  // namespace xd::l0
