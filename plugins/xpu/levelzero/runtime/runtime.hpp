// The runtime half of the plugin API table, one fill function per file.
#pragma once

#include <xd/plugin_abi.h>

namespace xd::l0 {

void fill_device_api(xd_plugin_api& api);  // device_api.cpp
void fill_memory_api(xd_plugin_api& api);  // memory.cpp: USM allocations and copies
void fill_stream_api(xd_plugin_api& api);  // stream.cpp: immediate command lists and events

}  // namespace xd::l0
