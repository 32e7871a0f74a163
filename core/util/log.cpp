#include "util/log.hpp"

#include "util/env.hpp"

#include <cstdio>
#include <mutex>
#include <set>

namespace xd::detail {

namespace {
const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::error: return "error";
    case LogLevel::warn: return "warn";
    case LogLevel::info: return "info";
    case LogLevel::debug: return "debug";
  }
  return "?";
}

LogLevel parse_level() {
  const auto v = env("XD_LOG");
  if (!v || v->empty()) return LogLevel::warn;
  for (auto l : {LogLevel::error, LogLevel::warn, LogLevel::info, LogLevel::debug})
    if (*v == level_name(l)) return l;
  return LogLevel::warn;  // an invalid value is an error when the registry starts (registry.cpp)
}
}  // namespace

void check_log_setting() {
  check_choice("XD_LOG",
               {level_name(LogLevel::error), level_name(LogLevel::warn), level_name(LogLevel::info),
                level_name(LogLevel::debug)},
               {"errors only", "also warnings", "also each plugin loaded", "also every failed candidate"}, "warn");
}

LogLevel log_level() {
  static const LogLevel level = parse_level();
  return level;
}

bool log_enabled(LogLevel level) { return static_cast<int>(level) <= static_cast<int>(log_level()); }

void log(LogLevel level, const std::string& message) {
  if (!log_enabled(level)) return;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::fprintf(stderr, "[xdispatch %s] %s\n", level_name(level), message.c_str());
}

void log_once(LogLevel level, const std::string& key, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  {
    std::lock_guard lock(mutex);
    if (!seen.insert(key).second) return;
  }
  log(level, message);
}

}  // namespace xd::detail
