// The host's API table, kept from xd_plugin_init for the runtime functions, which receive no
// host pointer of their own but must report errors through it.
#pragma once

#include <xd/plugin_abi.h>

#include <string>

namespace xd::cpu {

void set_host(const xd_host_api* host);
const xd_host_api* host();

// Logs through the host; a no-op before init.
void log(xd_log_level level, const std::string& message);

}  // namespace xd::cpu
