// A small ResNet on whichever device XD_BACKEND selects, checked against PyTorch:
//   stem:   x -> conv3x3 -> bn -> relu -> max_pool2d(3, stride 2, padding 1)
//   block1: h -> relu(bn(conv3x3(relu(bn(conv3x3(h))))) + h)                (basic block)
//   block2: the same with stride 2 and twice the channels, the shortcut a 1x1 conv with stride 2
//           and its bn (ResNet's downsampling block)
//   head:   avg_pool2d over the whole map -> flatten -> linear
// Batch normalisation is in inference form, folded per channel into y = x * scale + shift
// (scale = gamma / sqrt(var + eps), shift = beta - mean * scale, computed in double and rounded
// to f32 as make_golden.py does) and applied by broadcasting mul and add.
//
// The weights, the input and PyTorch's output (float64) come from make_golden.py beside this
// file, as raw little-endian f32 files in golden/ (config.txt gives the sizes). --dtype bf16
// runs every op in bf16 (the weights and input rounded to bf16 first) against the same f64
// output, with a tolerance for bf16's 8-bit significand.
//
// Usage: cnn [--dtype f32|bf16] [--iterations N] [GOLDEN_DIR]
// Exit status: 0 when the result matches PyTorch's, 1 when it does not or on an error, 2 on a
// usage error.
#include <xd/xd.hpp>

#include "../common/golden_files.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef XD_CNN_GOLDEN_DIR
#define XD_CNN_GOLDEN_DIR "golden"
#endif

namespace {

using xd::Tensor;
using xd_examples::read_f32;

struct Config {
  int64_t batch = 0, in_channels = 0, size = 0, c1 = 0, c2 = 0, classes = 0;
  double eps = 0;
};

Config read_config(const std::string& dir) {
  const xd_examples::GoldenConfig kv(dir);
  Config c;
  c.batch = static_cast<int64_t>(kv.get("batch"));
  c.in_channels = static_cast<int64_t>(kv.get("in_channels"));
  c.size = static_cast<int64_t>(kv.get("size"));
  c.c1 = static_cast<int64_t>(kv.get("c1"));
  c.c2 = static_cast<int64_t>(kv.get("c2"));
  c.classes = static_cast<int64_t>(kv.get("classes"));
  c.eps = kv.get("eps");
  if (c.batch <= 0 || c.in_channels <= 0 || c.size <= 0 || c.size % 4 != 0 || c.c1 <= 0 || c.c2 <= 0 || c.classes <= 0)
    throw std::runtime_error(kv.path() + ": sizes must be positive and size a multiple of 4");
  return c;
}

// A convolution and the batch norm after it, folded into a per-channel scale and shift.
struct ConvBn {
  Tensor weight, scale, shift;  // scale, shift: [C, 1, 1], broadcast over the map
  int64_t stride = 1, padding = 1;

  Tensor operator()(const Tensor& x) const {
    const Tensor y = xd::conv2d(x, weight, std::nullopt, {stride}, {padding});
    return xd::add(xd::mul(y, scale), shift);
  }
};

struct Net {
  ConvBn stem, b1a, b1b, b2a, b2b, b2s;
  Tensor fc_w, fc_b;
};

xd::Dtype g_dtype = xd::Dtype::f32;

Tensor on_device(const Tensor& t, xd::Device dev) { return t.to(dev).to(g_dtype); }

// gamma, beta, mean, var of the bn named `name` folded in double, rounded to f32.
ConvBn load_conv_bn(const std::string& dir, const std::string& name, xd::IntList weight_shape, int64_t stride,
                    int64_t padding, double eps, xd::Device dev) {
  const int64_t c = weight_shape[0];
  const auto get = [&](const char* what) { return read_f32(dir, name + "_bn_" + what, {c}).to_vector<double>(); };
  const auto gamma = get("weight"), beta = get("bias"), mean = get("mean"), var = get("var");
  std::vector<float> scale(static_cast<size_t>(c)), shift(static_cast<size_t>(c));
  for (size_t i = 0; i < scale.size(); ++i) {
    const double s = gamma[i] / std::sqrt(var[i] + eps);
    scale[i] = static_cast<float>(s);
    shift[i] = static_cast<float>(beta[i] - mean[i] * s);
  }
  ConvBn l;
  l.weight = on_device(read_f32(dir, name + "_conv", weight_shape), dev);
  l.scale = on_device(xd::from_host(scale.data(), xd::Dtype::f32, {c, 1, 1}, xd::cpu()), dev);
  l.shift = on_device(xd::from_host(shift.data(), xd::Dtype::f32, {c, 1, 1}, xd::cpu()), dev);
  l.stride = stride;
  l.padding = padding;
  return l;
}

Tensor forward(const Tensor& x, const Net& n) {
  const Tensor s = xd::max_pool2d(xd::relu(n.stem(x)), {3}, {2}, {1});
  const Tensor h1 = xd::relu(xd::add(n.b1b(xd::relu(n.b1a(s))), s));
  const Tensor h2 = xd::relu(xd::add(n.b2b(xd::relu(n.b2a(h1))), n.b2s(h1)));
  const Tensor pooled = xd::avg_pool2d(h2, {h2.size(2), h2.size(3)});  // [N, C, 1, 1]
  const Tensor flat = pooled.reshape({pooled.size(0), pooled.size(1)});
  return xd::add(xd::mm(flat, n.fc_w.t()), n.fc_b);
}

int usage(const char* why) {
  std::fprintf(stderr, "cnn: %s\nusage: cnn [--dtype f32|bf16] [--iterations N] [GOLDEN_DIR]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  xd_examples::GoldenArgs args{XD_CNN_GOLDEN_DIR, "f32"};
  if (const auto bad = xd_examples::parse_golden_args(argc, argv, "--dtype", "dtype", {"f32", "bf16"}, args))
    return usage(bad->c_str());
  g_dtype = args.choice == "bf16" ? xd::Dtype::bf16 : xd::Dtype::f32;
  const std::string& dir = args.dir;
  const int64_t iterations = args.iterations;
  try {
    const Config c = read_config(dir);
    const xd::Device dev = xd::default_device();
    std::printf("cnn: batch=%lld %lldx%lldx%lld, channels %lld/%lld, %lld classes, %s, on %s (%s)\n",
                static_cast<long long>(c.batch), static_cast<long long>(c.in_channels), static_cast<long long>(c.size),
                static_cast<long long>(c.size), static_cast<long long>(c.c1), static_cast<long long>(c.c2),
                static_cast<long long>(c.classes), args.choice.c_str(), dev.str().c_str(),
                dev.properties().name.c_str());
    Net n;
    n.stem = load_conv_bn(dir, "stem", {c.c1, c.in_channels, 3, 3}, 1, 1, c.eps, dev);
    n.b1a = load_conv_bn(dir, "b1a", {c.c1, c.c1, 3, 3}, 1, 1, c.eps, dev);
    n.b1b = load_conv_bn(dir, "b1b", {c.c1, c.c1, 3, 3}, 1, 1, c.eps, dev);
    n.b2a = load_conv_bn(dir, "b2a", {c.c2, c.c1, 3, 3}, 2, 1, c.eps, dev);
    n.b2b = load_conv_bn(dir, "b2b", {c.c2, c.c2, 3, 3}, 1, 1, c.eps, dev);
    n.b2s = load_conv_bn(dir, "b2s", {c.c2, c.c1, 1, 1}, 2, 0, c.eps, dev);
    n.fc_w = on_device(read_f32(dir, "fc_weight", {c.classes, c.c2}), dev);
    n.fc_b = on_device(read_f32(dir, "fc_bias", {c.classes}), dev);
    const Tensor x = on_device(read_f32(dir, "x", {c.batch, c.in_channels, c.size, c.size}), dev);
    const Tensor expected = read_f32(dir, "expected", {c.batch, c.classes});

    const auto [y, median_ms] = xd_examples::timed_runs([&] { return forward(x, n); }, dev, iterations);
    // f32 differs from PyTorch's f64 by the order and rounding of f32 sums; bf16 rounds every
    // op's result to 8 significant bits through seven layers.
    const double tolerance = g_dtype == xd::Dtype::f32 ? 1e-4 : 8e-2;
    return xd_examples::report_against_pytorch("cnn", "logits", y, expected, median_ms, iterations, tolerance);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cnn: error: %s\n", e.what());
    return 1;
  }
}
