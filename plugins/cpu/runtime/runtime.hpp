// The runtime half of the plugin API table (devices, memory, copies, streams, events). The CPU
// is one device whose allocation handles are host pointers and whose work runs synchronously
// on the calling thread, so streams and events are bookkeeping only.
#pragma once

#include <xd/plugin_abi.h>

namespace xd::cpu {

// Each fills its part of the table.
void fill_device_api(xd_plugin_api& api);  // device.cpp
void fill_memory_api(xd_plugin_api& api);  // memory.cpp
void fill_stream_api(xd_plugin_api& api);  // stream.cpp

// Every device index is checked against the one device; returns the error status or XD_OK.
xd_status check_device(int32_t device);

}  // namespace xd::cpu
