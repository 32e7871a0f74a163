// The progress line of long runs (xd-conform's cases, xd-bench's measurements): on stderr, only
// when stderr is a terminal, redrawn in place with \r and cleared at the end, so that pipes, files
// and CI logs never see it. Output on stdout between updates must go through clear() first, or the
// line would be left in the middle of it on the terminal.
#pragma once

#include <cstdio>
#include <string>
#include <unistd.h>

namespace xd::cli {

class Progress {
 public:
  Progress() : tty_(isatty(fileno(stderr)) != 0) {}
  // An error that ends the run is printed after this is gone: it must not land on the line.
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // "[i/n] text", cut to 100 characters so that it stays on one line of a normal terminal (a
  // wrapped line could not be overwritten with \r).
  void update(size_t i, size_t n, const std::string& text) {
    if (!tty_) return;
    std::string line = "[" + std::to_string(i) + "/" + std::to_string(n) + "] " + text;
    if (line.size() > 100) line = line.substr(0, 97) + "...";
    std::fflush(stdout);  // what was printed before the line stays above it
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  }

  // Erases the line, if one is shown.
  void clear() {
    if (!tty_ || !shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  bool tty_;
  bool shown_ = false;
};

}  // namespace xd::cli
