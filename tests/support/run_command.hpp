// Runs a shell command for the tests of command-line tools and helper processes: its stdout and
// stderr together, and its exit status (-1 when it could not start or did not exit normally).
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace xd::test {

struct CommandResult {
  int status = -1;
  std::string output;
};

// `command` runs under /bin/sh with " 2>&1" appended.
inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// How many times `what` occurs in `text` (overlapping occurrences count): for checking log lines.
inline size_t count_occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

}  // namespace xd::test
