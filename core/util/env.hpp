// Reading XD_* environment variables. secure_getenv: ignored for setuid/setgid programs, so an
// unprivileged user cannot steer a privileged program to load their plugin.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace xd::detail {

std::optional<std::string> env(const char* name);
// Splits on any character of `separators`, trims spaces, drops empty pieces.
std::vector<std::string> split(const std::string& text, const char* separators);

}  // namespace xd::detail
