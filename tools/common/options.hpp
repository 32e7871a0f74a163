// Strict reading of command-line values for the tools. Boost.ProgramOptions' lexical_cast reads
// "-1" into an unsigned as 2^64 - 1, "nan" and "inf" into a double, and leaves an empty string
// or a stray positional argument unnoticed; these helpers take the text and accept only what the
// option means, each error a UsageError (exit status 2) naming the option, the value and why.
#pragma once

#include "common/cli.hpp"

#include <boost/program_options.hpp>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace xd::cli {

// "--seed '-1': ..." (the value quoted so an empty one shows as '').
inline std::string option_value_text(const std::string& option, const std::string& text) {
  return option + " '" + text + "'";
}

// A whole number in [min, max], decimal digits only (no sign, no spaces, nothing after it).
inline uint64_t parse_count(const std::string& option, const std::string& text, uint64_t min, uint64_t max) {
  const std::string range = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  if (text.empty()) throw UsageError(option + " needs a value: " + range);
  uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') throw UsageError(option_value_text(option, text) + " is not " + range);
    const auto d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10)
      throw UsageError(option_value_text(option, text) + " is out of range: expected " + range);
    v = v * 10 + d;
  }
  if (v < min || v > max) throw UsageError(option_value_text(option, text) + " is out of range: expected " + range);
  return v;
}

// A finite decimal number in (min_exclusive, max] (no nan, inf, hex, spaces or trailing text);
// `range` says so in the option's terms, e.g. "a number of MiB greater than 0 and at most 1048576".
inline double parse_number(const std::string& option, const std::string& text, double min_exclusive, double max,
                           const std::string& range) {
  if (text.empty()) throw UsageError(option + " needs a value: " + range);
  bool plain = true;
  for (const char c : text)
    plain = plain && ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+');
  char* end = nullptr;
  errno = 0;
  const double v = plain ? std::strtod(text.c_str(), &end) : 0.0;
  if (!plain || end != text.c_str() + text.size() || !std::isfinite(v))
    throw UsageError(option_value_text(option, text) + " is not " + range);
  if (errno == ERANGE || !(v > min_exclusive) || v > max)
    throw UsageError(option_value_text(option, text) + " is out of range: expected " + range);
  return v;
}

// An option that names a file or folder must not be given as '' (it would otherwise read as "not
// given" and the tool would quietly do something else).
inline void require_nonempty(const boost::program_options::variables_map& vm, const std::string& option,
                             const std::string& what) {
  const std::string name = option.substr(2);
  if (vm.count(name) && vm[name].as<std::string>().empty())
    throw UsageError(option + " '': no " + what + " given (the value is empty); give one, or leave the option out");
}

// An output file must be writable before the run that fills it: finding out only after a long run
// would lose its results. Opening for append tests it for real (permissions, a missing folder,
// a directory in the way) without touching an existing file; a file made only to test is removed.
inline void require_writable(const std::string& option, const std::string& path) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  bool ok = !std::filesystem::is_directory(path, ec);
  if (ok) {
    std::ofstream f(path, std::ios::binary | std::ios::app);
    ok = static_cast<bool>(f);
  }
  if (!ok)
    throw UsageError(option + " " + path + ": cannot be written (does its folder exist, and may it be written?)");
  if (!existed) std::filesystem::remove(path, ec);
}

// No tool takes positional arguments: one on the command line is a mistake (a value separated from
// its option, a misspelt option), never something to ignore.
inline void reject_positional(const boost::program_options::parsed_options& parsed) {
  const std::vector<std::string> extra =
      boost::program_options::collect_unrecognized(parsed.options, boost::program_options::include_positional);
  if (!extra.empty())
    throw UsageError("unexpected argument '" + extra.front() +
                     "': this tool takes only options (--name value); see --help");
}

}  // namespace xd::cli
