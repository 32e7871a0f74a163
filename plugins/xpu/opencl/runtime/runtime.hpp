// The runtime half of the plugin API table: devices, memory, copies, streams and events.
#pragma once

#include <xd/plugin_abi.h>

namespace xd::ocl {

void fill_device_api(xd_plugin_api& api);  // device_api.cpp
void fill_memory_api(xd_plugin_api& api);  // memory.cpp
void fill_stream_api(xd_plugin_api& api);  // stream.cpp

}  // namespace xd::ocl
