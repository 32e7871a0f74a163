// A LLaMA-style MLP block on whichever device XD_BACKEND selects:
//   h = rms_norm(x, w_norm);  y = (silu(h @ W_gate) * (h @ W_up)) @ W_down
// checked against the same block computed in f64 on the CPU reference, and timed.
// Usage: llama_mlp [tokens hidden intermediate iterations]   (defaults 64 512 1408 10)
// Exit status: 0 when the result matches the reference, 1 when it does not or on an error, 2 on a
// usage error (an argument that is not a whole number in range, or a fifth argument).
#include <xd/xd.hpp>

#include "../common/parse_arg.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

using xd_examples::parse_arg;

struct Weights {
  xd::Tensor norm, gate, up, down;
};

xd::Tensor mlp(const xd::Tensor& x, const Weights& w) {
  auto [h, rstd] = xd::rms_norm(x, {x.size(-1)}, w.norm, 1e-6);
  auto act = xd::mul(xd::silu(xd::mm(h, w.gate)), xd::mm(h, w.up));
  return xd::mm(act, w.down);
}

Weights to(const Weights& w, xd::Device d, xd::Dtype t) {
  return {w.norm.to(d).to(t), w.gate.to(d).to(t), w.up.to(d).to(t), w.down.to(d).to(t)};
}

}  // namespace

int main(int argc, char** argv) {
  const char* names[] = {"tokens", "hidden", "intermediate", "iterations"};
  int64_t values[] = {64, 512, 1408, 10};
  constexpr int64_t kMax = int64_t{1} << 20;  // beyond it a dimension is a typing mistake, not an example
  if (argc > 5) {
    std::fprintf(stderr,
                 "llama_mlp: unexpected argument '%s'\nusage: llama_mlp [tokens hidden intermediate iterations]\n",
                 argv[5]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    const std::optional<int64_t> v = parse_arg(argv[i], kMax);
    if (!v) {
      std::fprintf(stderr,
                   "llama_mlp: %s '%s' is not a whole number from 1 to %lld\nusage: llama_mlp [tokens hidden "
                   "intermediate iterations]\n",
                   names[i - 1], argv[i], static_cast<long long>(kMax));
      return 2;
    }
    values[i - 1] = *v;
  }
  const int64_t tokens = values[0], hidden = values[1], inter = values[2];
  const int iters = static_cast<int>(values[3]);
  try {
    const xd::Device dev = xd::default_device();
    std::printf("llama_mlp: tokens=%lld hidden=%lld intermediate=%lld on %s (%s)\n", static_cast<long long>(tokens),
                static_cast<long long>(hidden), static_cast<long long>(inter), dev.str().c_str(),
                dev.properties().name.c_str());
    xd::Generator gen(2024);
    const xd::Device cpu = xd::cpu();
    // Weights scaled like a trained layer (std ~ 1/sqrt(fan_in)) so activations stay O(1).
    auto scaled = [&](std::initializer_list<int64_t> s, double scale) {
      return xd::mul(xd::randn(s, xd::Dtype::f32, cpu, &gen), xd::full({1}, scale, xd::Dtype::f32, cpu));
    };
    const Weights w{xd::add(xd::ones({hidden}, xd::Dtype::f32, cpu), scaled({hidden}, 0.1)),
                    scaled({hidden, inter}, 1.0 / std::sqrt(static_cast<double>(hidden))),
                    scaled({hidden, inter}, 1.0 / std::sqrt(static_cast<double>(hidden))),
                    scaled({inter, hidden}, 1.0 / std::sqrt(static_cast<double>(inter)))};
    const xd::Tensor x = xd::randn({tokens, hidden}, xd::Dtype::f32, cpu, &gen);

    const Weights wd = to(w, dev, xd::Dtype::f32);
    const xd::Tensor xdv = x.to(dev);
    std::vector<double> ms;
    xd::Tensor y;
    for (int i = 0; i < iters + 2; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      y = mlp(xdv, wd);
      xd::synchronize(dev);
      const auto t1 = std::chrono::steady_clock::now();
      if (i >= 2) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());  // 2 warm-up runs
    }
    const xd::Tensor ref = mlp(x.to(xd::Dtype::f64), to(w, cpu, xd::Dtype::f64));

    const auto got = y.to_vector<double>();
    const auto want = ref.to_vector<double>();
    double max_abs = 0, max_ref = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      max_abs = std::max(max_abs, std::fabs(got[i] - want[i]));
      max_ref = std::max(max_ref, std::fabs(want[i]));
    }
    const double rel = max_abs / std::max(max_ref, 1e-30);
    std::sort(ms.begin(), ms.end());
    const double median = ms.empty() ? 0 : ms[ms.size() / 2];
    const double flops = 2.0 * static_cast<double>(tokens * hidden * inter) * 3.0;
    std::printf("  output [%lld, %lld] %s; max |y - y_ref| = %.3g (%.3g of max |y_ref| = %.3g), y_ref in f64 on the CPU\n",
                static_cast<long long>(y.size(0)), static_cast<long long>(y.size(1)), xd::dtype_name(y.dtype()), max_abs,
                rel, max_ref);
    std::printf("  median %.3f ms over %d runs (%.2f GFLOP/s)\n", median, iters, flops / (median * 1e6));
    if (!(rel < 1e-4)) {
      std::printf("llama_mlp: FAILED: relative error %.3g exceeds 1e-4\n", rel);
      return 1;
    }
    std::printf("llama_mlp: OK\n");
    return 0;
  } catch (const xd::Error& e) {
    std::fprintf(stderr, "llama_mlp: error: %s\n", e.what());
    return 1;
  }
}
