// Which xdispatch a tool runs on: the library version, the plugin ABI and the git commit of the
// libxdispatch loaded at run time (include/xd/version.hpp), for --version and for every JSON file
// a tool writes (so a result file says what produced it).
#pragma once

#include <xd/version.hpp>

#include <string>

namespace xd::cli {

inline std::string library_version() { return xd::version(); }
inline std::string plugin_abi_version() { return xd::plugin_abi_version(); }
inline std::string build_commit() { return xd::build_commit(); }

// What `<tool> --version` prints: one field a line, the first in the usual "name (package) version" form.
inline std::string version_text(const std::string& tool) {
  return tool + " (xdispatch) " + library_version() + "\nplugin ABI " + plugin_abi_version() + "\ncommit " +
         build_commit() + "\n";
}

}  // namespace xd::cli
