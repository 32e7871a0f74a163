// The (op, dtype) -> OpenCL C entry point table shared by the XPU variants, independent of any
// driver: which kernels of plugins/xpu/kernels/*.cl serve which op for which dtype, and which
// source file holds them. The Level Zero plugin registers from it and loads the matching SPIR-V
// module; its tests compare it with the OpEntryPoints of every built module, so the table, the
// build's variant list (xpu_variants.cmake) and the .cl guards cannot drift apart silently.
//
// The dtype sets are the CPU reference's (and the OpenCL plugin's, kernels/register.hpp there).
#pragma once

#include <xd/plugin_abi.h>

#include <string>
#include <vector>

namespace xd::xpu {

// The kernel-source tag of a dtype (-DXD_DT=<tag>); nullptr for an unknown dtype.
const char* dtype_tag(int32_t dtype);

// One entry point an op may launch for a dtype.
struct kernel_entry {
  xd_op op;
  const char* source;  // kernels/<source>.cl
  std::string entry;   // the __kernel function name
};

// Every entry point the plugin registers or launches for `dtype` in the given flavour (`fp64`:
// the module was built with -DXD_HAS_FP64). An op may need several (copy: one per target dtype).
std::vector<kernel_entry> kernels_for(int32_t dtype, bool fp64);

// The ops registered for `dtype` (what the plugin passes to register_kernel), each once.
std::vector<xd_op> registered_ops(int32_t dtype);

// Entry points the .cl sources compile for `dtype` that no registered op launches; listed so
// the entry-point test can demand exact equality everywhere else. Each has a reason beside it.
std::vector<std::string> compiled_but_unused(int32_t dtype, bool fp64);

// Entry points of kernels/<source>.cl that the OpenCL plugin launches but the Level Zero plugin
// has no launcher for yet (reductions, softmax, rms_norm, matmul): compiled, validated and
// embedded, not registered. Listed by name so that a kernel added to a source without a decision
// still fails the entry-point test; docs/backends/levelzero.md says which ops this leaves out.
std::vector<std::string> launcher_pending(const std::string& source, int32_t dtype);

}  // namespace xd::xpu
