// The Level Zero side of the XPU launcher interface (common/launcher.hpp): what a launch needs of
// a Level Zero device, and appending a kernel of an embedded SPIR-V module to a stream's command
// list, its group size and grid checked against the kernel's and the device's limits first.
#pragma once

#include "common/launcher.hpp"

namespace xd::l0 {

struct device;

// The work-group size the SPIR-V was compiled for (-DXD_WG; xpu_variants.cmake): the
// reqd_work_group_size of every work-group kernel, so a fixed group size, not a device choice.
#ifndef XD_L0_WORK_GROUP
#define XD_L0_WORK_GROUP 256
#endif
inline constexpr uint32_t kWorkGroup = XD_L0_WORK_GROUP;

// The launch parameters of a device, from its properties.
xpu::device_info launch_info(const device& d);

// The plugin's one instance; xd_plugin_api.ctx points to it.
xpu::api& launch_api();

}  // namespace xd::l0
