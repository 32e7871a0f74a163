// The one registration list of the XPU backends: both variants (OpenCL, Level Zero) register
// every kernel from it, in its order, and launch it from the same launcher. Each entry says which
// op and dtypes it serves, which program (kernels/<source>.cl) holds its entry points and which
// entry points it may launch; so the list, the build's variant list (xpu_variants.cmake) and the
// .cl guards are checked against each other by tests/plugins/levelzero (the SPIR-V modules'
// OpEntryPoints) without a driver.
//
// Every entry registers xpu::check_device, which declines an f64 call on a device without f64, or
// a check of its own that does more (attention; the DPAS kernels: check_matmul_dpas).
#pragma once

#include <xd/plugin.hpp>

#include <array>
#include <string>
#include <vector>

namespace xd::xpu {

struct kernel_entry_point {
  xd_op op;
  const char* source;  // kernels/<source>.cl
  std::string entry;   // the __kernel function name
};

// What a plugin registers beyond the kernels every device runs: the specialised kernels some of
// its devices build (a plugin without such a device registers none, so xd-conform's coverage does
// not count them as missing).
struct registration {
  // "<op>.dpas" for mm, addmm, bmm, baddbmm (f16, bf16): a device's matmul_dpas_sg is non-zero.
  bool matmul_dpas = false;
};
// Registers the list's kernels, as "<plugin name>.<op>" ("<plugin name>.<op>.dpas"), in list
// order: an op's specialised kernels before its general one.
void register_kernels(plugin::registrar& r, const registration& what = {});

// Every entry point the list registers or launches for `dtype` in the given flavour (`fp64`: the
// program was built with -DXD_HAS_FP64). An op may need several (copy: one per target dtype).
std::vector<kernel_entry_point> kernels_for(int32_t dtype, bool fp64);

// The ops registered for `dtype`, each once (an op with a specialised kernel too is listed once).
std::vector<xd_op> registered_ops(int32_t dtype);

// Entry points the .cl sources compile for `dtype` that no registered op launches; listed so the
// entry-point test can demand exact equality everywhere else. Each has a reason beside it
// (kernel_list.cpp).
std::vector<std::string> compiled_but_unused(int32_t dtype, bool fp64);

// ---------------------------------------------------------------- program variants
// Programs keyed on a second dtype: rms_norm.cl is built per (x dtype, weight dtype) with
// -DXD_WT=<weight tag> (xpu_variants.cmake: XD_XPU_WTAGS_rms_norm), because the weight is read in
// its own format in the inner loop. The weight dtypes a program of `source` exists for beside x
// dtype `dtype`; empty for sources keyed on one dtype.
std::vector<int32_t> weight_dtypes(const std::string& source, int32_t dtype);

// The variant tag of (dtype, weight dtype): "f32" when there is no second dtype (wtype < 0) or it
// equals the first, "f32_bf16" otherwise (x f32, weight bf16); empty for an unknown dtype.
std::string module_tag(int32_t dtype, int32_t wtype = -1);
// The inverse: dtype and weight dtype (equal for a one-dtype tag); false for a malformed tag.
bool parse_module_tag(const std::string& tag, int32_t& dtype, int32_t& wtype);
// Whether the variant of (dtype, wtype) exists only where the device has f64 (one of them is f64).
bool module_needs_fp64(int32_t dtype, int32_t wtype);

// The kernel sources a program of `source` is built from, in order: the common.cl prelude, the
// source, and what it needs after it (int4.cl: the tensor-core kernels of int4_mma.cl). A program
// may also be named for a variant of a source: matmul_dpas8 and matmul_dpas16 are matmul_dpas.cl
// after matmul.cl, for sub-group size 8 or 16.
std::vector<std::string> program_sources(const std::string& source);
// The definitions (-D<name>[=<value>]) a program of `source` is built with beyond the dtype's and
// the device's: those that make a variant of a source (matmul_dpas8: XD_DPAS_SG=8, and
// XD_GEMM_EPILOGUE_ONLY to leave matmul.cl's kernels out); empty for most.
std::vector<std::string> program_defines(const std::string& source);

}  // namespace xd::xpu
