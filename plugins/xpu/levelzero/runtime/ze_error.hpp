// Turning ze_result_t into errors. Every Level Zero call is wrapped in check(), which throws a
// plugin::error naming the call and the result code (XD_ERR_OUT_OF_MEMORY for the two
// out-of-memory codes, XD_ERR_UNAVAILABLE when the loader has no driver, XD_ERR_DEVICE otherwise).
#pragma once

#include <level_zero/ze_api.h>
#include <xd/plugin.hpp>

#include <string>

namespace xd::l0 {

// The plugin toolbox's host glue (include/xd/plugin.hpp) under the short names the runtime uses.
using plugin::host;
using plugin::log;

// "ZE_RESULT_ERROR_DEVICE_LOST", ...; nullptr for a value this header does not know.
const char* ze_result_name(ze_result_t r);
// The name, or the value in hex for an unknown code.
std::string ze_result_string(ze_result_t r);

[[noreturn]] void fail(ze_result_t r, const std::string& call);

inline void check(ze_result_t r, const char* call) {
  if (r != ZE_RESULT_SUCCESS) fail(r, call);
}

}  // namespace xd::l0
