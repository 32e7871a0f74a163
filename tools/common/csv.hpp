// CSV as RFC 4180 writes it, for every CSV file a tool writes: a field holding a comma, a double
// quote, CR or LF is enclosed in double quotes, with each quote inside doubled; other fields are
// written as they are. Error messages and kernel lists end up in fields, and they may hold any of these.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xd::cli {

inline std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// One record: the fields quoted as needed, joined by commas, ended by LF. RFC 4180 names CRLF, but
// the tools' CSV has always ended lines with LF, which CSV readers (Python's csv, pandas,
// spreadsheets) accept, and scripts reading it line by line would keep a stray CR otherwise.
inline std::string csv_row(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
  return out + '\n';
}

}  // namespace xd::cli
