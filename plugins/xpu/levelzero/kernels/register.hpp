// Kernel registration from the shared table (plugins/xpu/common/kernel_table.hpp): every
// (op, dtype) the table lists gets its Level Zero launcher.
#pragma once

#include <xd/plugin.hpp>

namespace xd::l0 {

void register_kernels(plugin::registrar& r);

}  // namespace xd::l0
