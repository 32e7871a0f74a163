#include "npy.hpp"

#include "common/regular_file.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>

namespace xd::conform {

size_t NpyArray::itemsize() const {
  // read_npy accepts only descr of the form <kind><digits>, so this never sees anything else; a
  // hand-made NpyArray with an odd descr gets 0 rather than an exception.
  size_t n = 0;
  if (descr.size() < 3 || descr.size() > 4) return 0;
  for (size_t i = 2; i < descr.size(); ++i) {
    if (descr[i] < '0' || descr[i] > '9') return 0;
    n = n * 10 + static_cast<size_t>(descr[i] - '0');
  }
  return n;
}

namespace {

// A header is a short Python dict; numpy itself reads at most 10000 bytes of one by default.
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw std::runtime_error(path + ": not a usable .npy file: " + why);
}

// The header dict, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (3, 64), }: exactly
// these three keys, each once; values are quoted strings, identifiers or tuples.
struct HeaderDict {
  std::string descr, fortran_order, shape;
};

HeaderDict parse_dict(const std::string& path, const std::string& h) {
  size_t p = 0;
  auto ws = [&] {
    while (p < h.size() && (h[p] == ' ' || h[p] == '\t' || h[p] == '\n' || h[p] == '\r')) ++p;
  };
  auto malformed = [&](const std::string& what) -> std::string {
    bad(path, "malformed header: " + what + " at byte " + std::to_string(p) + " of the header dict");
  };
  auto quoted = [&]() -> std::string {
    ws();
    if (p >= h.size() || (h[p] != '\'' && h[p] != '"')) malformed("expected a quoted string");
    const char q = h[p];
    const size_t e = h.find(q, p + 1);
    if (e == std::string::npos) malformed("unterminated string");
    std::string v = h.substr(p + 1, e - p - 1);
    p = e + 1;
    return v;
  };
  HeaderDict d;
  bool seen[3] = {false, false, false};
  ws();
  if (p >= h.size() || h[p] != '{') malformed("expected '{'");
  ++p;
  for (;;) {
    ws();
    if (p < h.size() && h[p] == '}') break;
    const std::string key = quoted();
    ws();
    if (p >= h.size() || h[p] != ':') malformed("expected ':' after '" + key + "'");
    ++p;
    ws();
    std::string value;
    if (p < h.size() && (h[p] == '\'' || h[p] == '"')) {
      value = "'" + quoted() + "'";
    } else if (p < h.size() && h[p] == '(') {
      const size_t e = h.find(')', p);
      if (e == std::string::npos) malformed("unterminated tuple");
      value = h.substr(p, e - p + 1);
      p = e + 1;
    } else {
      const size_t b = p;
      while (p < h.size() && (std::isalnum(static_cast<unsigned char>(h[p])) || h[p] == '_' || h[p] == '.' ||
                              h[p] == '-' || h[p] == '+'))
        ++p;
      if (p == b) malformed("expected a value for '" + key + "'");
      value = h.substr(b, p - b);
    }
    const int k = key == "descr" ? 0 : key == "fortran_order" ? 1 : key == "shape" ? 2 : -1;
    if (k < 0) bad(path, "header has the unknown key '" + key + "' (expected descr, fortran_order and shape)");
    if (seen[k]) bad(path, "header has '" + key + "' twice");
    seen[k] = true;
    (k == 0 ? d.descr : k == 1 ? d.fortran_order : d.shape) = value;
    ws();
    if (p < h.size() && h[p] == ',') {
      ++p;
      continue;
    }
    ws();
    if (p >= h.size() || h[p] != '}') malformed("expected ',' or '}'");
    break;
  }
  ++p;
  ws();
  if (p != h.size()) malformed("text after the dict");
  for (int k = 0; k < 3; ++k)
    if (!seen[k])
      bad(path, std::string("header has no '") + (k == 0 ? "descr" : k == 1 ? "fortran_order" : "shape") + "'");
  return d;
}

// '<f4', '|u1', ...: quoted, little-endian or byte-sized, a kind letter and an itemsize this
// reader can hold.
std::string check_descr(const std::string& path, const std::string& value) {
  const std::string expected = ", expected a little-endian NumPy type string such as '<f4' or '|u1'";
  if (value.size() < 2 || value.front() != '\'') bad(path, "'descr' " + value + " is not a quoted string" + expected);
  const std::string d = value.substr(1, value.size() - 2);
  if (d.size() >= 1 && d[0] == '>') bad(path, "'descr' '" + d + "' is big-endian (not little-endian)");
  const bool form = (d.size() == 3 || d.size() == 4) && (d[0] == '<' || d[0] == '|') &&
                    std::string_view("biufc").find(d[1]) != std::string_view::npos &&
                    std::all_of(d.begin() + 2, d.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!form) bad(path, "'descr' '" + d + "' is not a NumPy type string" + expected);
  NpyArray probe;
  probe.descr = d;
  const size_t n = probe.itemsize();
  if (n != 1 && n != 2 && n != 4 && n != 8 && n != 16)
    bad(path, "'descr' '" + d + "' has the itemsize " + std::to_string(n) + " (1, 2, 4, 8 or 16 expected)");
  return d;
}

// "(3, 64)", "(7,)", "()": non-negative decimal integers, each within int64.
std::vector<int64_t> check_shape(const std::string& path, const std::string& value) {
  auto fail = [&](const std::string& why) -> std::vector<int64_t> {
    bad(path, "'shape' " + value + " " + why);
  };
  if (value.size() < 2 || value.front() != '(' || value.back() != ')') return fail("is not a tuple");
  std::vector<int64_t> shape;
  size_t p = 1;
  const size_t end = value.size() - 1;
  auto ws = [&] {
    while (p < end && value[p] == ' ') ++p;
  };
  ws();
  while (p < end) {
    if (value[p] < '0' || value[p] > '9') return fail("is not a tuple of non-negative integers");
    uint64_t v = 0;
    while (p < end && value[p] >= '0' && value[p] <= '9') {
      if (v > (static_cast<uint64_t>(INT64_MAX) - static_cast<uint64_t>(value[p] - '0')) / 10)
        return fail("has a size larger than 2^63 - 1");
      v = v * 10 + static_cast<uint64_t>(value[p] - '0');
      ++p;
    }
    shape.push_back(static_cast<int64_t>(v));
    ws();
    if (p < end && value[p] == ',') {
      ++p;
      ws();
    } else if (p < end) {
      return fail("is not a tuple of non-negative integers");
    }
  }
  return shape;
}

// Reads the file through `read(offset, n)` (bounded by `size`), checking the header completely
// and the payload's size against it before the payload is read.
template <class Read>
NpyArray parse(const std::string& path, uint64_t size, Read read) {
  if (size < 10) bad(path, size < 6 ? "bad magic" : "truncated header");
  const std::string pre = read(0, std::min<uint64_t>(size, 12));
  if (std::memcmp(pre.data(), "\x93NUMPY", 6) != 0) bad(path, "bad magic");
  const auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(pre[i])); };
  const int major = static_cast<unsigned char>(pre[6]);
  uint64_t header_len, start;
  if (major == 1) {
    header_len = byte(8) | (byte(9) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) bad(path, "truncated header");
    header_len = byte(8) | (byte(9) << 8) | (byte(10) << 16) | (byte(11) << 24);
    start = 12;
  } else {
    bad(path, "unknown format version " + std::to_string(major));
  }
  if (header_len > kMaxHeaderBytes)
    bad(path, "header of " + std::to_string(header_len) + " bytes is longer than the limit of " +
                  std::to_string(kMaxHeaderBytes));
  if (header_len > size - start)
    bad(path, "truncated header (" + std::to_string(header_len) + " bytes declared, " + std::to_string(size - start) +
                  " present)");
  const HeaderDict d = parse_dict(path, read(start, header_len));
  NpyArray a;
  a.descr = check_descr(path, d.descr);
  if (d.fortran_order == "True") bad(path, "Fortran order");
  if (d.fortran_order != "False") bad(path, "'fortran_order' is " + d.fortran_order + ", expected True or False");
  a.shape = check_shape(path, d.shape);
  uint64_t want = a.itemsize();
  for (const int64_t v : a.shape)
    if (__builtin_mul_overflow(want, static_cast<uint64_t>(v), &want))
      bad(path, "'shape' " + d.shape + " with itemsize " + std::to_string(a.itemsize()) +
                    " needs more than 2^64 bytes");
  const uint64_t data_at = start + header_len;
  if (size - data_at != want)
    bad(path, "payload has " + std::to_string(size - data_at) + " bytes, shape and dtype need " +
                  std::to_string(want));
  const std::string payload = read(data_at, want);
  a.data.assign(payload.begin(), payload.end());
  return a;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  const cli::RegularFile f(path, kMaxNpyBytes);
  return parse(path, f.size(), [&](uint64_t off, uint64_t n) { return f.read(off, n); });
}

NpyArray parse_npy(const std::string& name, const std::string& bytes) {
  return parse(name, bytes.size(), [&](uint64_t off, uint64_t n) { return bytes.substr(off, n); });
}

void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const std::vector<uint8_t>& data) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += std::to_string(shape[i]) + ", ";
  if (shape.size() > 1) s.erase(s.size() - 2);
  else if (shape.size() == 1) s.erase(s.size() - 1);
  s += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + s + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write " + path);
  f.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  f.write(len, 2);
  f << header;
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace xd::conform
