// The host API table the plugin was initialised with, for logging from anywhere in the plugin.
#pragma once

#include <xd/plugin_abi.h>

#include <string>

namespace xd::l0 {

void set_host(const xd_host_api* host);
const xd_host_api* host();
// Logs through the host, which prefixes "levelzero: "; a no-op before init.
void log(xd_log_level level, const std::string& message);

}  // namespace xd::l0
