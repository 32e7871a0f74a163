// The examples' reference data, as their make_golden.py scripts write it: config.txt ("key value"
// lines, '#' starting a comment line) and one raw little-endian f32 file per tensor, row-major.
#pragma once

#include <xd/xd.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace xd_examples {

// dir/config.txt as key -> value; `get` throws for a missing key, naming the file.
class GoldenConfig {
 public:
  explicit GoldenConfig(const std::string& dir) : path_(dir + "/config.txt") {
    std::ifstream in(path_);
    if (!in) throw std::runtime_error("cannot open " + path_ + " (run make_golden.py, or pass the golden directory)");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string key;
      double v = 0;
      if (!(ls >> key >> v)) throw std::runtime_error(path_ + ": malformed line '" + line + "'");
      kv_[key] = v;
    }
  }
  double get(const std::string& key) const {
    const auto it = kv_.find(key);
    if (it == kv_.end()) throw std::runtime_error(path_ + ": no '" + key + "'");
    return it->second;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::map<std::string, double> kv_;
};

// dir/name.f32, which must hold exactly the shape's elements, as a CPU tensor.
inline xd::Tensor read_f32(const std::string& dir, const std::string& name, xd::IntList shape) {
  const std::string path = dir + "/" + name + ".f32";
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open " + path);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  const auto bytes = static_cast<int64_t>(in.tellg());
  if (bytes != n * 4)
    throw std::runtime_error(path + " has " + std::to_string(bytes) + " bytes, expected " + std::to_string(n * 4));
  std::vector<float> v(static_cast<size_t>(n));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(v.data()), bytes);
  return xd::from_host(v.data(), xd::Dtype::f32, shape, xd::cpu());
}

}  // namespace xd_examples
