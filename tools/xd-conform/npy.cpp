#include "npy.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace xd::conform {

size_t NpyArray::itemsize() const {
  return descr.size() >= 3 ? static_cast<size_t>(std::stoul(descr.substr(2))) : 0;
}

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw std::runtime_error(path + ": not a usable .npy file: " + why);
}

// The value text of `key` in the header dict, e.g. "'<f4'" or "(3, 64)".
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) bad(path, "header has no '" + key + "'");
  size_t p = header.find(':', k);
  if (p == std::string::npos) bad(path, "malformed header");
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  size_t e = p;
  if (header[p] == '(') {
    e = header.find(')', p);
    if (e == std::string::npos) bad(path, "malformed shape");
    return header.substr(p, e - p + 1);
  }
  if (header[p] == '\'') {
    e = header.find('\'', p + 1);
    return header.substr(p + 1, e - p - 1);
  }
  while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
  return header.substr(p, e - p);
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) bad(path, "bad magic");
  const int major = bytes[6];
  size_t header_len, start;
  if (major == 1) {
    header_len = bytes[8] | (static_cast<size_t>(bytes[9]) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad(path, "truncated header");
    header_len = bytes[8] | (static_cast<size_t>(bytes[9]) << 8) | (static_cast<size_t>(bytes[10]) << 16) |
                 (static_cast<size_t>(bytes[11]) << 24);
    start = 12;
  } else {
    bad(path, "unknown format version " + std::to_string(major));
  }
  if (start + header_len > bytes.size()) bad(path, "truncated header");
  const std::string header(reinterpret_cast<const char*>(bytes.data() + start), header_len);
  NpyArray a;
  a.descr = dict_value(header, "descr", path);
  if (dict_value(header, "fortran_order", path).find("False") == std::string::npos) bad(path, "Fortran order");
  if (a.descr.size() < 3 || (a.descr[0] != '<' && a.descr[0] != '|')) bad(path, "not little-endian: " + a.descr);
  const std::string shape = dict_value(header, "shape", path);
  size_t n = 1;
  for (size_t p = 1; p < shape.size();) {
    while (p < shape.size() && (shape[p] == ' ' || shape[p] == ',')) ++p;
    if (p >= shape.size() || shape[p] == ')') break;
    size_t used = 0;
    const long long v = std::stoll(shape.substr(p), &used);
    if (v < 0) bad(path, "negative size");
    a.shape.push_back(v);
    n *= static_cast<size_t>(v);
    p += used;
  }
  const size_t want = n * a.itemsize();
  const size_t data_at = start + header_len;
  if (bytes.size() - data_at != want)
    bad(path, "payload has " + std::to_string(bytes.size() - data_at) + " bytes, shape and dtype need " +
                  std::to_string(want));
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_at), bytes.end());
  return a;
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
