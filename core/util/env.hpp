// Reading XD_* environment variables. secure_getenv: ignored for setuid/setgid programs, so an
// unprivileged user cannot steer a privileged program to load their plugin.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace xd::detail {

std::optional<std::string> env(const char* name);
// Throws ValueError unless `name` is unset, empty or one of `allowed`; the message names the
// variable, its value and the accepted values, each followed by what it means (`meanings`, the
// same order), and the default.
void check_choice(const char* name, std::initializer_list<const char*> allowed,
                  std::initializer_list<const char*> meanings, const char* default_value);
// Splits on any character of `separators`, trims spaces, drops empty pieces.
std::vector<std::string> split(const std::string& text, const char* separators);

}  // namespace xd::detail
