// Diagnostics on stderr, filtered by XD_LOG=error|warn|info|debug (default warn).
#pragma once

#include <string>

namespace xd::detail {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

LogLevel log_level();  // parsed once; an invalid XD_LOG value reads as warn (check_log_setting rejects it)
// ValueError unless XD_LOG is unset or one of the levels (checked when the registry starts).
void check_log_setting();
bool log_enabled(LogLevel level);
void log(LogLevel level, const std::string& message);
// Logs `message` once per distinct `key` for the life of the process.
void log_once(LogLevel level, const std::string& key, const std::string& message);

}  // namespace xd::detail
