// What the command-line tools share: the usage error (exit status 2) and the list of backends an
// error message names.
#pragma once

#include <xd/backend.hpp>

#include <stdexcept>
#include <string>

namespace xd::cli {

// A bad option, name or value on the command line; the tools exit 2 with its message.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "cpu, opencl" (or "(none)"), for messages that must say what is available.
inline std::string available_backends() {
  std::string s;
  for (const auto& b : xd::backends()) s += (s.empty() ? "" : ", ") + b.name;
  return s.empty() ? "(none)" : s;
}

}  // namespace xd::cli
