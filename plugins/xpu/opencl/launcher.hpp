// The OpenCL side of the XPU launcher interface (common/launcher.hpp): what a launch needs of an
// OpenCL device, and enqueueing a kernel of a program (program/program_cache.hpp) on a stream.
#pragma once

#include "common/launcher.hpp"

namespace xd::ocl {

struct device;

// The launch parameters of a device, from its properties and the plugin's tuning options.
xpu::device_info launch_info(const device& d);

// The plugin's one instance; xd_plugin_api.ctx points to it.
xpu::api& launch_api();

}  // namespace xd::ocl
