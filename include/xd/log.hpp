// Where the library's diagnostics go. By default each line is written to stderr as
// "[xdispatch <level>] <message>"; XD_LOG=error|warn|info|debug (default warn) filters them
// before any sink sees them. Lines of plugins (through the host API) arrive here too, prefixed
// with the plugin's name.
#pragma once

#include <functional>
#include <string_view>

namespace xd {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

const char* log_level_name(LogLevel level) noexcept;  // "error", "warn", "info", "debug"

// The function that receives every line that passes XD_LOG's filter (without the "[xdispatch
// level]" prefix or a newline); nullptr restores the default, stderr.
// Thread safety: set_log_sink may be called from any thread at any time. The sink is called from
// whichever thread logs, possibly from several threads at once (it must be thread-safe itself),
// and a replaced sink may still be finishing a call that had started before. The logging code
// holds no lock while calling it, but a line may come from inside the library while it holds
// other locks of its own (e.g. while loading plugins at start-up), so a sink must not call into
// xdispatch. Exceptions thrown by the sink are swallowed: logging never fails the caller.
// Lifetime: the sink is copied; it must stay callable until replaced, also at process exit, when
// the library may still log from static destructors (set nullptr before what it refers to goes).
void set_log_sink(std::function<void(LogLevel, std::string_view)> sink);

}  // namespace xd
