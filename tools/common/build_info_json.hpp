// The build's fields (common/build_info.hpp) as the JSON object every tool's JSON output carries
// under the key "xdispatch".
#pragma once

#include "common/build_info.hpp"

#include <nlohmann/json.hpp>

namespace xd::cli {

inline nlohmann::json build_info_json() {
  return {{"version", library_version()}, {"plugin_abi", plugin_abi_version()}, {"commit", build_commit()}};
}

}  // namespace xd::cli
