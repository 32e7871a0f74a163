// The CPU backend's one registration list (kernel_list.cpp).
#pragma once

#include <xd/plugin.hpp>

namespace xd::cpu {

// Registers every kernel of the list, in its order (xd_plugin_init, plugin.cpp).
void register_kernels(plugin::registrar& r);

}  // namespace xd::cpu
