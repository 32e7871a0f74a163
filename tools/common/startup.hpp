// What every tool does first: resolve XD_BACKEND (and with it every XD_* setting the core checks
// when it starts) through the core's own selection, xd::default_device(), so that a bad setting
// fails the same way in every tool, before any work, with the core's message (which names the
// available backends and embeds the load report). Header-only: each tool includes it once.
#pragma once

#include <xd/backend.hpp>
#include <xd/device.hpp>
#include <xd/error.hpp>

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace xd::cli {

struct Startup {
  xd::Device device;                   // xd::default_device(): cpu:0 when XD_BACKEND is unset
  std::optional<xd::Device> from_env;  // set when XD_BACKEND is set (non-empty): what it selects
};

// Resolves the environment's settings. On an invalid one (an unknown or unavailable backend in
// XD_BACKEND, a malformed XD_DEVICES, XD_LOG or XD_FALLBACK) prints "<tool>: error: <message>" on
// stderr and exits the process with `exit_status`, which each tool documents (xd-info 1,
// xd-conform and xd-bench 2: a usage error). Call from the main thread before other work.
inline Startup startup_or_exit(const char* tool, int exit_status) {
  try {
    Startup s;
    s.device = xd::default_device();
    const char* spec = secure_getenv("XD_BACKEND");  // as the core reads it
    if (spec != nullptr && *spec != '\0') s.from_env = s.device;
    return s;
  } catch (const xd::Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool, e.what());
    std::exit(exit_status);
  }
}

}  // namespace xd::cli
