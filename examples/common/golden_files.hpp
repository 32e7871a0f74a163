// The examples' reference data, as their make_golden.py scripts write it: config.txt ("key value"
// lines, '#' starting a comment line) and one raw little-endian f32 file per tensor, row-major;
// and what both model examples do around their model: the command line, the timed runs, the
// comparison with PyTorch's output and the verdict.
#pragma once

#include <xd/xd.hpp>

#include "parse_arg.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
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

// Runs `step` (which returns the output) iterations + 1 times, synchronising `dev` after each:
// the last output and the median time in ms of the runs after the first (a warm-up).
template <class F>
std::pair<xd::Tensor, double> timed_runs(F&& step, xd::Device dev, int64_t iterations) {
  std::vector<double> ms;
  xd::Tensor y;
  for (int64_t i = 0; i < iterations + 1; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    y = step();
    xd::synchronize(dev);
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= 1) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {y, ms[ms.size() / 2]};
}

// `got` against the reference `want`, elementwise: the largest |got - want|, the largest |want|
// and their ratio; infinite when the sizes differ or `got` holds a NaN or an infinity.
struct Mismatch {
  double max_abs = 0, max_ref = 0, rel = 0;
};
inline Mismatch compare_to_reference(const xd::Tensor& got_t, const xd::Tensor& want_t) {
  const std::vector<double> got = got_t.to_vector<double>(), want = want_t.to_vector<double>();
  Mismatch m;
  if (got.size() != want.size()) {
    m.max_abs = m.rel = INFINITY;
    return m;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    m.max_abs = std::max(m.max_abs, std::fabs(got[i] - want[i]));
    m.max_ref = std::max(m.max_ref, std::fabs(want[i]));
  }
  if (std::any_of(got.begin(), got.end(), [](double v) { return !std::isfinite(v); })) m.max_abs = INFINITY;
  m.rel = m.max_abs / std::max(m.max_ref, 1e-30);
  return m;
}

// The model examples' command line: `--<option> CHOICE` (one of `choices`; `noun` names it in
// the error), `--iterations N` (1 to 100000) and an optional golden directory. `args` holds the
// defaults on entry; the result is why the command line is bad, or nothing.
struct GoldenArgs {
  std::string dir;
  std::string choice;
  int64_t iterations = 5;
};
inline std::optional<std::string> parse_golden_args(int argc, char** argv, const std::string& option, const char* noun,
                                                    std::initializer_list<const char*> choices, GoldenArgs& args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == option && i + 1 < argc) {
      args.choice = argv[++i];
      if (std::none_of(choices.begin(), choices.end(), [&](const char* c) { return args.choice == c; }))
        return "unknown " + std::string(noun) + " '" + args.choice + "'";
    } else if (a == "--iterations" && i + 1 < argc) {
      const std::optional<int64_t> v = parse_arg(argv[++i], 100000);
      if (!v) return std::string("--iterations takes a whole number from 1 to 100000");
      args.iterations = *v;
    } else if (!a.empty() && a[0] == '-') {
      return "unexpected argument '" + a + "'";
    } else {
      args.dir = a;
    }
  }
  return std::nullopt;
}

// Prints how the [rows, cols] output `y` (`what`) compares with PyTorch's `expected` and the
// median time, then `name`'s verdict against `tolerance` (relative to the largest |expected|);
// returns the exit code, 0 when within it.
inline int report_against_pytorch(const char* name, const char* what, const xd::Tensor& y, const xd::Tensor& expected,
                                  double median_ms, int64_t iterations, double tolerance) {
  const Mismatch e = compare_to_reference(y, expected);
  std::printf(
      "  %s [%lld, %lld]; max |y - y_torch| = %.3g (%.3g of max |y_torch| = %.3g), y_torch from PyTorch in f64\n", what,
      static_cast<long long>(y.size(0)), static_cast<long long>(y.size(1)), e.max_abs, e.rel, e.max_ref);
  std::printf("  median %.3f ms over %lld runs\n", median_ms, static_cast<long long>(iterations));
  if (!(e.rel <= tolerance)) {
    std::printf("%s: FAILED: relative error %.3g exceeds %.0e\n", name, e.rel, tolerance);
    return 1;
  }
  std::printf("%s: OK\n", name);
  return 0;
}

}  // namespace xd_examples
