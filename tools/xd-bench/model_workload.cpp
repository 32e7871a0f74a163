// The model ops' workloads (workload.hpp: Kind::attention, Kind::conv): causal fused attention
// and conv2d at the shapes the issues name, with the flop counts PyTorch's benchmarks use.
#include "workload.hpp"

namespace xd::bench {

namespace {

Tensor normal(const std::vector<int64_t>& size, Dtype dtype, Device device) {
  return randn(size, Dtype::f32, device).to(dtype);
}

}  // namespace

Prepared prepare_model_op(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device) {
  Prepared p;
  const double s = static_cast<double>(xd::itemsize(dtype));
  if (w.kind == Kind::attention) {
    // BxHxSxD: q, k, v [B, H, S, D], causal. Flops: the two S x S x D products, halved by the
    // causal mask (FlashAttention's count); bytes: q, k, v read and out written once.
    const int64_t b = size[0], h = size[1], n = size[2], d = size[3];
    const Tensor q = normal({b, h, n, d}, dtype, device), k = normal({b, h, n, d}, dtype, device),
                 v = normal({b, h, n, d}, dtype, device);
    p.run = [q, k, v] { (void)scaled_dot_product_attention(q, k, v, std::nullopt, true); };
    const double bhs = static_cast<double>(b * h) * static_cast<double>(n);
    p.flops = 4.0 * bhs * static_cast<double>(n) * static_cast<double>(d) / 2.0;
    p.bytes = 4.0 * bhs * static_cast<double>(d) * s;
    return p;
  }
  // Kind::conv, NxCxHxWxOxKxS: input [N, C, H, W], weight [O, C, K, K], stride S, padding K/2,
  // no bias. Flops: 2 per multiply-add of the output's taps; bytes: input, weight and out once.
  const int64_t n = size[0], c = size[1], h = size[2], wd = size[3], o = size[4], k = size[5], st = size[6];
  const Tensor x = normal({n, c, h, wd}, dtype, device), wt = normal({o, c, k, k}, dtype, device);
  p.run = [x, wt, k, st] { (void)conv2d(x, wt, std::nullopt, {st}, {k / 2}); };
  const int64_t oh = (h + 2 * (k / 2) - k) / st + 1, ow = (wd + 2 * (k / 2) - k) / st + 1;
  const double outputs = static_cast<double>(n * o) * static_cast<double>(oh * ow);
  p.flops = 2.0 * outputs * static_cast<double>(c * k * k);
  p.bytes = (static_cast<double>(n * c * h * wd) + static_cast<double>(o * c * k * k) + outputs) * s;
  return p;
}

}  // namespace xd::bench
