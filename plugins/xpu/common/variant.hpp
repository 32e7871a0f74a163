// What makes a plugin an XPU variant. Both variants export the same two entry points
// (entry_points.cpp, compiled into each plugin) over the description each gives of itself here:
// its name and options, its side of the launcher interface, and how it opens its API. Both declare
// the family "xpu" (Level Zero preferred: it exists only for Intel GPUs, where it is the native
// API); XD_BACKEND=xpu takes a variant's GPUs, then its accelerators, never its CPU devices.
#pragma once

#include <xd/plugin.hpp>

#include "launcher.hpp"

#include <array>
#include <span>

namespace xd::xpu {

struct variant {
  const char* name;
  const char* version;
  const char* description;
  uint32_t device_kinds;
  int32_t preference;  // among the family's backends, higher is tried first
  std::span<const xd_option_desc> options;
  api& (*launcher)();  // the plugin's side of the launcher interface
  // Opens the API, throwing plugin::error(XD_ERR_UNAVAILABLE, why) where its runtime or driver is
  // absent.
  void (*open)();
  // Fill the runtime half of the table: devices, memory, streams and events.
  std::array<void (*)(xd_plugin_api&), 3> fill_runtime;
  // Sets codegen_languages and codegen (ABI 1.3: generated kernels, docs/compiler.md).
  void (*fill_codegen)(xd_plugin_api&);
};

// Defined once by each variant (its plugin.cpp).
const variant& this_variant();

}  // namespace xd::xpu
