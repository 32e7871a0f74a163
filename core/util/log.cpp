#include "util/log.hpp"

#include <xd/log.hpp>

#include "util/env.hpp"

#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

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

namespace {
using Sink = std::function<void(xd::LogLevel, std::string_view)>;
// The sink, swapped under a mutex and called through a copied shared_ptr outside it, so that a
// slow sink neither serialises logging threads nor blocks set_log_sink. Never destroyed: plugins
// and static destructors may log during exit, after this file's statics would be gone.
struct SinkSlot {
  std::mutex mutex;
  std::shared_ptr<const Sink> sink;
};
SinkSlot& sink_slot() {
  static SinkSlot* slot = new SinkSlot;  // NOLINT(cppcoreguidelines-owning-memory): see above
  return *slot;
}
}  // namespace

void log(LogLevel level, const std::string& message) {
  if (!log_enabled(level)) return;
  SinkSlot& slot = sink_slot();
  std::shared_ptr<const Sink> sink;
  {
    std::lock_guard lock(slot.mutex);
    sink = slot.sink;
  }
  if (sink) {
    try {
      (*sink)(static_cast<xd::LogLevel>(level), message);
    } catch (...) {  // logging must never fail the operation that logs
    }
    return;
  }
  static std::mutex mutex;  // one line at a time on stderr
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

namespace xd {

const char* log_level_name(LogLevel level) noexcept {
  return detail::level_name(static_cast<detail::LogLevel>(level));
}

void set_log_sink(std::function<void(LogLevel, std::string_view)> sink) {
  auto next = sink ? std::make_shared<const detail::Sink>(std::move(sink)) : nullptr;
  detail::SinkSlot& slot = detail::sink_slot();
  std::shared_ptr<const detail::Sink> previous;
  {
    std::lock_guard lock(slot.mutex);
    previous = std::exchange(slot.sink, std::move(next));
  }
  // `previous` is destroyed here, outside the lock: the sink's captures may log or lock.
}

}  // namespace xd

static_assert(static_cast<int>(xd::LogLevel::error) == static_cast<int>(xd::detail::LogLevel::error) &&
                  static_cast<int>(xd::LogLevel::debug) == static_cast<int>(xd::detail::LogLevel::debug),
              "the public and internal log levels are converted by value");
