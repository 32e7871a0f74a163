// The host's API table, kept from xd_plugin_init: runtime functions receive no host pointer of
// their own but report errors and log through it.
#pragma once

#include <xd/plugin_abi.h>

#include <string>

namespace xd::ocl {

void set_host(const xd_host_api* host);
const xd_host_api* host();

// Logs "<message>" through the host (which prefixes the backend name); a no-op before init.
void log(xd_log_level level, const std::string& message);

}  // namespace xd::ocl
