// Whether this machine has a working Level Zero driver, asked of the Level Zero loader directly
// (dlopen of libze_loader.so.1, then zeInit and zeDriverGet), never of xdispatch or its plugin:
// the absent-driver tests skip themselves only on this independent answer, so a plugin that
// wrongly fails to load or wrongly loads makes them fail instead of skip.
//
// "Present" means what makes the plugin load: zeInit(ZE_INIT_FLAG_GPU_ONLY) succeeds and
// zeDriverGet finds at least one driver. The loader stays loaded (it is the library the plugin
// links, so unloading it under the plugin would be wrong, and calling zeInit first changes nothing
// for the plugin's own zeInit).
#pragma once

#include <level_zero/ze_api.h>

#include <cstdio>
#include <dlfcn.h>
#include <string>

namespace xd::test {

struct level_zero_probe {
  bool present = false;
  std::string detail;  // what the loader said, for messages
};

inline level_zero_probe probe_level_zero_driver() {
  level_zero_probe p;
  void* lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    p.detail = std::string("libze_loader.so.1 cannot be loaded: ") + (why != nullptr ? why : "unknown reason");
    return p;
  }
  using init_fn = ze_result_t (*)(ze_init_flags_t);
  using driver_get_fn = ze_result_t (*)(uint32_t*, ze_driver_handle_t*);
  auto init = reinterpret_cast<init_fn>(dlsym(lib, "zeInit"));
  auto driver_get = reinterpret_cast<driver_get_fn>(dlsym(lib, "zeDriverGet"));
  if (init == nullptr || driver_get == nullptr) {
    p.detail = "libze_loader.so.1 lacks zeInit or zeDriverGet";
    return p;
  }
  const ze_result_t r = init(ZE_INIT_FLAG_GPU_ONLY);
  if (r != ZE_RESULT_SUCCESS) {
    char code[16];
    std::snprintf(code, sizeof code, "0x%08x", static_cast<unsigned>(r));
    p.detail = std::string("zeInit(ZE_INIT_FLAG_GPU_ONLY) returned ") + code;
    return p;
  }
  uint32_t n = 0;
  const ze_result_t g = driver_get(&n, nullptr);
  if (g != ZE_RESULT_SUCCESS || n == 0) {
    p.detail = "zeInit succeeded, zeDriverGet found no driver";
    return p;
  }
  p.present = true;
  p.detail = std::to_string(n) + " Level Zero driver(s)";
  return p;
}

}  // namespace xd::test
