// The CPU backend's one registration list (kernel_list.cpp).
#pragma once

#include <xd/plugin.hpp>

namespace xd::cpu {

// Registers every kernel of the list, in its order (xd_plugin_init, plugin.cpp).
void register_kernels(plugin::registrar& r);

// XD_CPU_KERNELS (fast|reference): whether the fast kernels are registered in front of the
// reference loops (kernels/fast/options.cpp). Declared in the plugin's query.
const xd_option_desc& kernels_option();

// XD_CPU_MAX_ISA (best|avx512|avx2|sse4|scalar): the best instruction set the fast kernels'
// vector code may use (kernels/fast/options.cpp). Declared in the plugin's query.
const xd_option_desc& isa_option();

}  // namespace xd::cpu
