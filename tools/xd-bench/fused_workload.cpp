// The fused workloads of xd::compile (issue 16): one C++ function per workload, run eagerly op by
// op, or captured once by xd::compile and run as its fused kernels (plus the ops it leaves to the
// dispatch table, such as llama_mlp's matmuls). Inputs are made once, outside the timed calls.
#include "workload.hpp"

#include <array>
#include <memory>
#include <numeric>
#include <tuple>

namespace xd::bench {

namespace {

int64_t count(const std::vector<int64_t>& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

// Uniform in [lo, lo + span), made on the device in f32 and cast (all fused workloads are float).
Tensor uniform(const std::vector<int64_t>& size, Dtype dtype, Device device, double lo, double span) {
  Tensor u = rand(size, Dtype::f32, device);
  u = add(mul(u, full({1}, span, Dtype::f32, device)), full({1}, lo, Dtype::f32, device));
  return u.to(dtype);
}

// Calls `f` (compiled or not) with the tensors of `in` as separate arguments.
template <class F, size_t N>
void apply_to(F& f, const std::array<Tensor, N>& in) {
  std::apply([&f](const auto&... t) { (void)f(t...); }, in);
}

template <class F, size_t N>
FusedCase make_case(F f, std::array<Tensor, N> in, double bytes, double flops) {
  FusedCase c;
  c.bytes = bytes;
  c.flops = flops;
  c.run_eager = [f, in]() mutable { apply_to(f, in); };
  c.fresh_compiled = [f, in] {
    // Shared: the Prepared's run() and stats() both hold the one compiled object.
    auto g = std::make_shared<Compiled<F>>(xd::compile(f));
    Prepared p;
    p.run = [g, in] { apply_to(*g, in); };
    p.stats = [g] { return g->stats(); };
    return p;
  };
  return c;
}

// exp(tanh(gelu(x * 0.5 + y) * y - x)): seven pointwise ops on x and y, the 0.5 a 0-d tensor made
// inside the function as `x * 0.5` would make it.
Tensor chain6(Tensor x, Tensor y) {
  const Tensor half = full({}, 0.5, x.dtype(), x.device());
  return exp(tanh(sub(mul(gelu(add(mul(x, half), y)), y), x)));
}

Tensor silu_mul_add(Tensor x, Tensor y, Tensor z) { return add(mul(silu(x), y), z); }

Tensor silu_rms_norm(Tensor x, Tensor w) { return silu(std::get<0>(rms_norm(x, {x.size(-1)}, w))); }

// LLaMA's gated MLP: down(silu(gate(x)) * up(x)).
Tensor llama_mlp(Tensor x, Tensor w_gate, Tensor w_up, Tensor w_down) {
  return mm(mul(silu(mm(x, w_gate)), mm(x, w_up)), w_down);
}

}  // namespace

FusedCase make_fused_case(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device) {
  if (!is_floating(dtype)) throw ValueError(w.name + " runs on floating dtypes only, not " + dtype_name(dtype));
  const double s = static_cast<double>(itemsize(dtype));
  if (w.kind == Kind::fused_mlp) {
    if (size.size() != 3) throw ValueError("llama_mlp takes TxHxI (tokens x hidden x intermediate)");
    const int64_t t = size[0], h = size[1], i = size[2];
    // Weights scaled as an initialisation would (about 1/sqrt(fan-in)), so values stay finite.
    std::array<Tensor, 4> in = {uniform({t, h}, dtype, device, -1.0, 2.0), uniform({h, i}, dtype, device, -0.02, 0.04),
                                uniform({h, i}, dtype, device, -0.02, 0.04),
                                uniform({i, h}, dtype, device, -0.02, 0.04)};
    const double th = static_cast<double>(t * h), hi = static_cast<double>(h * i);
    const double flops = 3.0 * 2.0 * static_cast<double>(t) * hi;
    return make_case([](Tensor x, Tensor g, Tensor u, Tensor d) { return llama_mlp(x, g, u, d); }, std::move(in),
                     (2.0 * th + 3.0 * hi) * s, flops);
  }
  if (size.empty()) throw ValueError(w.name + " needs a size of rank >= 1");
  const double n = static_cast<double>(count(size));
  if (w.name == "chain6") {
    std::array<Tensor, 2> in = {uniform(size, dtype, device, -1.0, 2.0), uniform(size, dtype, device, -1.0, 2.0)};
    return make_case([](Tensor x, Tensor y) { return chain6(x, y); }, std::move(in), 3.0 * n * s, 0);
  }
  if (w.name == "silu_mul_add") {
    std::array<Tensor, 3> in = {uniform(size, dtype, device, -1.0, 2.0), uniform(size, dtype, device, -1.0, 2.0),
                                uniform(size, dtype, device, -1.0, 2.0)};
    return make_case([](Tensor x, Tensor y, Tensor z) { return silu_mul_add(x, y, z); }, std::move(in), 4.0 * n * s, 0);
  }
  if (w.name == "silu_rms_norm") {
    const double cols = static_cast<double>(size.back());
    std::array<Tensor, 2> in = {uniform(size, dtype, device, -1.0, 2.0),
                                uniform({size.back()}, dtype, device, 0.5, 1.0)};
    // x and the weight in, y out; rms_norm's rstd is not an output of the function.
    return make_case([](Tensor x, Tensor wt) { return silu_rms_norm(x, wt); }, std::move(in), (2.0 * n + cols) * s, 0);
  }
  throw ValueError("unknown fused workload " + w.name);
}

Prepared prepare_fused(const WorkloadInfo& w, Dtype dtype, const std::vector<int64_t>& size, Device device,
                       bool compiled) {
  FusedCase c = make_fused_case(w, dtype, size, device);
  Prepared p;
  if (compiled) {
    p = c.fresh_compiled();
    p.run();  // the traced call: capture, generate and build, outside any timing
    synchronize(device);
  } else {
    p.run = c.run_eager;
  }
  p.bytes = c.bytes;
  p.flops = c.flops;
  return p;
}

}  // namespace xd::bench
