// One LLaMA decoder layer on whichever device XD_BACKEND selects, checked against PyTorch:
//   h   = x + Wo · attention(rope(Wq · n), rope(Wk · n), Wv · n), n = rms_norm(x)   (causal)
//   out = h + W2 · (silu(W1 · m) * (W3 · m)),                       m = rms_norm(h)
// rope is the rotate-half rotary embedding; attention is scaled_dot_product_attention over the
// heads. The weights are f32, or quantised in the library first: int8 weight-only (TorchAO's
// recipe, xd::quantize_int8 + weight_int8_mm) or int4 (xd::quantize_int4 + weight_int4_mm).
//
// The weights, the input and PyTorch's outputs (float64, for each weight format) come from
// make_golden.py beside this file, as raw little-endian f32 files in golden/ (config.txt gives
// the sizes), so the check is against another library, not against this one's CPU backend.
//
// Usage: llama_decoder [--weights f32|int8|int4] [--iterations N] [GOLDEN_DIR]
// Exit status: 0 when the result matches PyTorch's, 1 when it does not or on an error, 2 on a
// usage error.
#include <xd/xd.hpp>

#include "../common/golden_files.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef XD_LLAMA_GOLDEN_DIR
#define XD_LLAMA_GOLDEN_DIR "golden"
#endif

namespace {

using xd::Tensor;

struct Config {
  int64_t dim = 0, heads = 0, seq = 0, hidden = 0, group = 0;
  double theta = 0, eps = 0;
  int64_t head_dim() const { return dim / heads; }
};

// config.txt: every key must be there.
Config read_config(const std::string& dir) {
  const xd_examples::GoldenConfig kv(dir);
  Config c;
  c.dim = static_cast<int64_t>(kv.get("dim"));
  c.heads = static_cast<int64_t>(kv.get("heads"));
  c.seq = static_cast<int64_t>(kv.get("seq"));
  c.hidden = static_cast<int64_t>(kv.get("hidden"));
  c.group = static_cast<int64_t>(kv.get("group"));
  c.theta = kv.get("theta");
  c.eps = kv.get("eps");
  if (c.dim <= 0 || c.heads <= 0 || c.dim % c.heads != 0 || c.head_dim() % 2 != 0 || c.seq <= 0 || c.hidden <= 0)
    throw std::runtime_error(kv.path() + ": sizes must be positive, dim a multiple of heads, head_dim even");
  return c;
}

using xd_examples::read_f32;

enum class Format { f32, int8, int4 };

// One linear layer y = x · W^T (W [out, in], nn.Linear's layout) in the chosen weight format.
struct Linear {
  Format format = Format::f32;
  Tensor w;              // f32 weight, or int8 codes, or packed int4
  Tensor scales, zeros;  // int8: scales [out]; int4: scales and zeros [in/g, out]
  int64_t group = 0;

  Tensor operator()(const Tensor& x) const {
    switch (format) {
      case Format::f32:
        return xd::mm(x, w.t());
      case Format::int8:
        return xd::weight_int8_mm(x, w, scales);
      case Format::int4:
        return xd::weight_int4_mm(x, w, scales, zeros, group);
    }
    return {};
  }
};

Linear make_linear(const Tensor& w, Format f, int64_t group) {
  Linear l;
  l.format = f;
  l.group = group;
  if (f == Format::f32) {
    l.w = w;
  } else if (f == Format::int8) {
    std::tie(l.w, l.scales) = xd::quantize_int8(w);
  } else {
    std::tie(l.w, l.scales, l.zeros) = xd::quantize_int4(w, group);
  }
  return l;
}

struct Layer {
  Config c;
  Tensor attention_norm, ffn_norm;
  Linear wq, wk, wv, wo, w1, w2, w3;
  Tensor cos, sin;  // [seq, 1, head_dim]: broadcast over the heads
};

// The rotate-half tables: angle(p, i) = p * theta^(-2i/d) for i < d/2, repeated over both
// halves; computed in double and rounded to f32 (as make_golden.py does).
std::pair<Tensor, Tensor> rotary_tables(const Config& c, xd::Device dev) {
  const int64_t d = c.head_dim();
  std::vector<float> cs(static_cast<size_t>(c.seq * d)), sn(cs.size());
  for (int64_t p = 0; p < c.seq; ++p)
    for (int64_t i = 0; i < d; ++i) {
      const double freq = std::pow(c.theta, -2.0 * static_cast<double>(i % (d / 2)) / static_cast<double>(d));
      const double a = static_cast<double>(p) * freq;
      cs[static_cast<size_t>(p * d + i)] = static_cast<float>(std::cos(a));
      sn[static_cast<size_t>(p * d + i)] = static_cast<float>(std::sin(a));
    }
  return {xd::from_host(cs.data(), xd::Dtype::f32, {c.seq, 1, d}, xd::cpu()).to(dev),
          xd::from_host(sn.data(), xd::Dtype::f32, {c.seq, 1, d}, xd::cpu()).to(dev)};
}

// x [seq, heads, head_dim]: x * cos + rotate_half(x) * sin, rotate_half(x) = [-x2, x1].
Tensor rope(const Tensor& x, const Layer& l) {
  const int64_t d = x.size(-1), half = d / 2;
  const Tensor rotated = xd::cat({xd::neg(x.slice(-1, half, d)), x.slice(-1, 0, half)}, -1);
  return xd::add(xd::mul(x, l.cos), xd::mul(rotated, l.sin));
}

Tensor decoder_layer(const Tensor& x, const Layer& l) {
  const Config& c = l.c;
  const Tensor n = std::get<0>(xd::rms_norm(x, {c.dim}, l.attention_norm, c.eps));
  const std::vector<int64_t> heads = {c.seq, c.heads, c.head_dim()};
  const Tensor q = rope(l.wq(n).view(heads), l), k = rope(l.wk(n).view(heads), l);
  const Tensor v = l.wv(n).view(heads);
  // [heads, seq, head_dim] views; the attention reads them strided.
  const Tensor a = xd::scaled_dot_product_attention(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1),
                                                    std::nullopt, /*is_causal=*/true);
  const Tensor h = xd::add(x, l.wo(a.transpose(0, 1).reshape({c.seq, c.dim})));
  const Tensor m = std::get<0>(xd::rms_norm(h, {c.dim}, l.ffn_norm, c.eps));
  return xd::add(h, l.w2(xd::mul(xd::silu(l.w1(m)), l.w3(m))));
}

int usage(const char* why) {
  std::fprintf(
      stderr, "llama_decoder: %s\nusage: llama_decoder [--weights f32|int8|int4] [--iterations N] [GOLDEN_DIR]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  xd_examples::GoldenArgs args{XD_LLAMA_GOLDEN_DIR, "f32"};
  if (const auto bad =
          xd_examples::parse_golden_args(argc, argv, "--weights", "weight format", {"f32", "int8", "int4"}, args))
    return usage(bad->c_str());
  const Format format = args.choice == "int8" ? Format::int8 : args.choice == "int4" ? Format::int4 : Format::f32;
  const std::string& format_name = args.choice;
  const std::string& dir = args.dir;
  const int64_t iterations = args.iterations;
  try {
    const Config c = read_config(dir);
    const xd::Device dev = xd::default_device();
    std::printf("llama_decoder: dim=%lld heads=%lld seq=%lld hidden=%lld, %s weights, on %s (%s)\n",
                static_cast<long long>(c.dim), static_cast<long long>(c.heads), static_cast<long long>(c.seq),
                static_cast<long long>(c.hidden), format_name.c_str(), dev.str().c_str(),
                dev.properties().name.c_str());
    auto weight = [&](const char* name, int64_t out, int64_t in) { return read_f32(dir, name, {out, in}).to(dev); };
    Layer l;
    l.c = c;
    l.attention_norm = read_f32(dir, "attention_norm", {c.dim}).to(dev);
    l.ffn_norm = read_f32(dir, "ffn_norm", {c.dim}).to(dev);
    l.wq = make_linear(weight("wq", c.dim, c.dim), format, c.group);
    l.wk = make_linear(weight("wk", c.dim, c.dim), format, c.group);
    l.wv = make_linear(weight("wv", c.dim, c.dim), format, c.group);
    l.wo = make_linear(weight("wo", c.dim, c.dim), format, c.group);
    l.w1 = make_linear(weight("w1", c.hidden, c.dim), format, c.group);
    l.w3 = make_linear(weight("w3", c.hidden, c.dim), format, c.group);
    l.w2 = make_linear(weight("w2", c.dim, c.hidden), format, c.group);
    std::tie(l.cos, l.sin) = rotary_tables(c, dev);
    const Tensor x = read_f32(dir, "x", {c.seq, c.dim}).to(dev);
    const Tensor expected = read_f32(dir, "expected_" + format_name, {c.seq, c.dim});

    const auto [y, median_ms] = xd_examples::timed_runs([&] { return decoder_layer(x, l); }, dev, iterations);
    // f32 and int8 compute with the same weights (int8: the same codes) as PyTorch, so only the
    // order of f32 sums differs; int4 codes can differ from the reference's where a quotient
    // lands within an f32 rounding of a tie.
    const double tolerance = format == Format::int4 ? 1e-3 : 1e-4;
    return xd_examples::report_against_pytorch("llama_decoder", "output", y, expected, median_ms, iterations,
                                               tolerance);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llama_decoder: error: %s\n", e.what());
    return 1;
  }
}
