// Shared helpers of the CPU codegen tests: the plugin's xd_codegen_api as the core loaded it
// (white-box, through the core's registry), and the last message it reported.
#pragma once

#include <xd/xd.hpp>

#include "plugin/host_api.hpp"
#include "registry/registry.hpp"

#include <cstdlib>
#include <string>

namespace xdcg {

struct codegen {
  const xd_codegen_api* api = nullptr;
  void* ctx = nullptr;
  int32_t device = 0;
};

// The CPU plugin's table. XD_CACHE_DIR is set first (the plugin reads it at its first build) to a
// folder of the build tree, so the tests never write to the user's cache.
inline codegen cpu_codegen() {
  ::setenv("XD_CACHE_DIR", XD_TEST_CACHE_DIR, 0);
  auto& rec = xd::detail::Registry::get().device(xd::cpu());
  return {rec.backend->api.codegen, rec.backend->api.ctx, rec.plugin_device};
}

// The message of the calling thread's last failed plugin call (and clears it).
inline std::string last_error() { return xd::detail::take_plugin_error(); }

}  // namespace xdcg
