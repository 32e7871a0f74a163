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
// the entry-point test can demand exact equality everywhere else. Each has a reason beside it
// (kernel_table.cpp); every other compiled entry point is launched by a registered op.
std::vector<std::string> compiled_but_unused(int32_t dtype, bool fp64);

// Modules keyed on a second dtype: rms_norm.cl is built per (x dtype, weight dtype) with
// -DXD_WT=<weight tag> (xpu_variants.cmake: XD_XPU_WTAGS_rms_norm), because the weight is read in
// its own format in the inner loop. The weight dtypes a module of `source` exists for beside x
// dtype `dtype`; empty for sources keyed on one dtype.
std::vector<int32_t> weight_dtypes(const std::string& source, int32_t dtype);

// The module tag of (dtype, weight dtype): "f32" when there is no second dtype (wtype < 0) or it
// equals the first, "f32_bf16" otherwise (x f32, weight bf16); empty for an unknown dtype.
std::string module_tag(int32_t dtype, int32_t wtype = -1);
// The inverse: dtype and weight dtype (equal for a one-dtype tag); false for a malformed tag.
bool parse_module_tag(const std::string& tag, int32_t& dtype, int32_t& wtype);
// Whether the module of (dtype, wtype) exists only in the fp64 flavour (one of them is f64).
bool module_needs_fp64(int32_t dtype, int32_t wtype);

}  // namespace xd::xpu
