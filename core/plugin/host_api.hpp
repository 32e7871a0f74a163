// The host side of the ABI handed to each plugin: logging, error messages, kernel registration.
#pragma once

#include <xd/plugin_abi.h>

#include "dispatch/dispatch_table.hpp"

#include <string>
#include <vector>

namespace xd::detail {

struct Backend;

// Lives for the process (the plugin keeps the host table).
struct HostContext {
  Backend* backend = nullptr;
  std::string plugin_name;
  bool registration_open = false;
  std::vector<const KernelEntry*> pending;  // registered during init
  std::string registration_error;
};

xd_host_api make_host_api(HostContext* ctx);

// The message the calling thread's last plugin call reported via set_error (empty if none), and
// clears it.
std::string take_plugin_error();

}  // namespace xd::detail
