// Opening one plugin file: the steps before init, each failure mapped to a load-report status.
// Loading uses Boost.DLL's error-code overloads (never throws, never aborts) with RTLD_LOCAL |
// RTLD_NOW; a library that opened is never closed, even when a later step fails, because a
// half-initialised plugin may have started threads or registered callbacks.
#pragma once

#include <xd/backend.hpp>
#include <xd/plugin_abi.h>

#include <string>
#include <vector>

namespace xd::detail {

struct OpenedPlugin {
  LoadReportRow row;  // status is `loaded` when every step passed
  xd_plugin_info info{};
  xd_plugin_init_fn init = nullptr;
};

OpenedPlugin open_plugin(const std::string& path);

struct Candidate {
  std::string path;
  bool explicit_file = false;  // named directly in XD_PLUGIN_PATH
  std::string skipped;         // non-empty: not opened, reported as `skipped` with this reason
};

// Every plugin file to try, in search order: XD_PLUGIN_PATH (folders or files), then the folder
// <dir of libxdispatch>/xdispatch/plugins — in the build tree that is the build's plugin folder,
// in an install the installed one, wherever the install was moved: no path is compiled in, so
// an installed library never reaches into the tree it was built in. Folders yield their
// libxd_plugin_*.so files sorted by name; other shared libraries there (*.so, *.so.N) are listed
// with `skipped` set, so the report says why a misnamed plugin was not loaded. The same file
// reached twice is listed once.
// `searched` receives each folder or file looked at, for messages.
std::vector<Candidate> plugin_candidates(std::vector<std::string>& searched);

}  // namespace xd::detail
