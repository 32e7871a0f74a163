// Data-parallel training of a LLaMA-style MLP block on the processes of an MPI job
// (libxdispatch_dist, include/xd/distributed.hpp):
//   h = rms_norm(x, w_norm);  y = (silu(h @ W_gate) * (h @ W_up)) @ W_down
//   loss = 0.5 * sum((y - target)^2) / global_tokens
// Every rank holds the same weights, trains on its own rows of one global batch, and the gradients
// (backward written by hand) are summed over the ranks before an SGD step. After the last step the
// weights are checked to be identical on every rank and, on rank 0, against the same training run
// in one process on the whole batch, in f64 on the CPU.
// Usage: mpirun -np N data_parallel [steps tokens_per_rank hidden intermediate]   (defaults 5 8 64 160)
// Exit status: 0 when the weights match, 1 when they do not or on an error, 2 on a usage error.
#include <xd/distributed.hpp>
#include <xd/xd.hpp>

#include "../common/parse_arg.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace {

constexpr double kEps = 1e-6;  // rms_norm's epsilon
constexpr double kLr = 0.1;
constexpr uint64_t kWeightSeed = 2024;
constexpr uint64_t kTeacherSeed = 4048;  // the targets are a fixed "teacher" block's outputs
constexpr uint64_t kDataSeed = 7;        // batch of step s comes from Generator(kDataSeed + s)
// The run in f32 on the device may differ from the f64 reference by f32 rounding only.
constexpr double kTolerance = 1e-4;

using xd_examples::parse_arg;

// The parameters, and (same layout) their gradients.
struct Params {
  xd::Tensor norm, gate, up, down;
  std::array<xd::Tensor*, 4> all() { return {&norm, &gate, &up, &down}; }
};
constexpr const char* kParamNames[] = {"w_norm", "W_gate", "W_up", "W_down"};

Params to(const Params& p, xd::Device d, xd::Dtype t) {
  return {p.norm.to(d).to(t), p.gate.to(d).to(t), p.up.to(d).to(t), p.down.to(d).to(t)};
}

xd::Tensor scalar(double v, const xd::Tensor& like) { return xd::full({1}, v, like.dtype(), like.device()); }

// Identical on every rank: drawn on the CPU from one seed (Philox gives the same numbers anywhere).
// Scaled like a trained layer (std ~ 1/sqrt(fan_in)) so activations stay O(1).
Params init_params(int64_t hidden, int64_t inter, uint64_t seed) {
  xd::Generator gen(seed);
  const xd::Device cpu = xd::cpu();
  auto scaled = [&](std::initializer_list<int64_t> s, double scale) {
    return xd::mul(xd::randn(s, xd::Dtype::f32, cpu, &gen), xd::full({1}, scale, xd::Dtype::f32, cpu));
  };
  return {xd::add(xd::ones({hidden}, xd::Dtype::f32, cpu), scaled({hidden}, 0.1)),
          scaled({hidden, inter}, 1.0 / std::sqrt(static_cast<double>(hidden))),
          scaled({hidden, inter}, 1.0 / std::sqrt(static_cast<double>(hidden))),
          scaled({inter, hidden}, 1.0 / std::sqrt(static_cast<double>(inter)))};
}

xd::Tensor mlp(const xd::Tensor& x, const Params& w) {
  auto [h, rstd] = xd::rms_norm(x, {x.size(1)}, w.norm, kEps);
  return xd::mm(xd::mul(xd::silu(xd::mm(h, w.gate)), xd::mm(h, w.up)), w.down);
}

// The whole global batch of one step, on the CPU: every rank draws all of it and keeps its rows,
// so no rank needs another's data and the reference can replay it. The targets come from a teacher
// block of the same shape, so that there is something to learn and the loss goes down.
std::pair<xd::Tensor, xd::Tensor> global_batch(int step, int64_t tokens, const Params& teacher) {
  xd::Generator gen(kDataSeed + static_cast<uint64_t>(step));
  xd::Tensor x = xd::randn({tokens, teacher.norm.size(0)}, xd::Dtype::f32, xd::cpu(), &gen);
  return {x, mlp(x, teacher)};
}

// Forward and hand-written backward of the block on the rows `x`, `target`. The loss is normalised
// by the GLOBAL token count, not the local one: this rank's loss and gradients are then exactly its
// share of the full-batch sums, so an all_reduce(sum) gives the full-batch gradient whatever the
// split (unequal shards included), with no division by the world size (ReduceOp::avg would need
// equal shards to be exact). `on_grad` is called with each gradient as soon as it is computed, so
// its all_reduce can overlap the rest of the backward pass.
template <class OnGrad>
xd::Tensor loss_and_grads(const xd::Tensor& x, const xd::Tensor& target, const Params& w, int64_t global_tokens,
                          Params& grad, OnGrad&& on_grad) {
  const int64_t hidden = x.size(1);
  auto [h, rstd] = xd::rms_norm(x, {hidden}, w.norm, kEps);
  const xd::Tensor g = xd::mm(h, w.gate);
  const xd::Tensor u = xd::mm(h, w.up);
  const xd::Tensor s = xd::sigmoid(g);
  const xd::Tensor silu_g = xd::mul(g, s);  // = silu(g), reusing the sigmoid the backward needs
  const xd::Tensor a = xd::mul(silu_g, u);
  const xd::Tensor y = xd::mm(a, w.down);

  const xd::Tensor diff = xd::sub(y, target);
  const xd::Tensor inv_n = scalar(1.0 / static_cast<double>(global_tokens), x);
  const xd::Tensor loss = xd::mul(xd::sum(xd::mul(diff, diff)), scalar(0.5 / static_cast<double>(global_tokens), x));

  const xd::Tensor dy = xd::mul(diff, inv_n);
  grad.down = xd::mm(a.t(), dy);  // [inter, hidden]; the last layer's gradient is ready first
  on_grad(grad.down);
  const xd::Tensor da = xd::mm(dy, w.down.t());
  // silu'(g) = s * (1 + g * (1 - s))
  const xd::Tensor one = scalar(1.0, x);
  const xd::Tensor dsilu = xd::mul(s, xd::add(one, xd::mul(g, xd::sub(one, s))));
  const xd::Tensor dg = xd::mul(xd::mul(da, u), dsilu);
  const xd::Tensor du = xd::mul(da, silu_g);
  grad.gate = xd::mm(h.t(), dg);
  on_grad(grad.gate);
  grad.up = xd::mm(h.t(), du);
  on_grad(grad.up);
  const xd::Tensor dh = xd::add(xd::mm(dg, w.gate.t()), xd::mm(du, w.up.t()));
  // x is data, not a parameter: only the weight's gradient is wanted.
  grad.norm = std::get<1>(xd::rms_norm_backward(dh, x, {hidden}, rstd, w.norm, {false, true}));
  on_grad(grad.norm);
  return loss;
}

void sgd_step(Params& w, Params& grad) {
  auto ws = w.all();
  auto gs = grad.all();
  for (size_t i = 0; i < ws.size(); ++i) *ws[i] = xd::sub(*ws[i], *gs[i], kLr);  // w - lr * grad
}

// max |a - b| / max |b|
double rel_diff(const xd::Tensor& a, const xd::Tensor& b) {
  const auto va = a.to_vector<double>();
  const auto vb = b.to_vector<double>();
  double num = 0, den = 0;
  for (size_t i = 0; i < va.size(); ++i) {
    num = std::max(num, std::fabs(va[i] - vb[i]));
    den = std::max(den, std::fabs(vb[i]));
  }
  return num / std::max(den, 1e-30);
}

}  // namespace

int main(int argc, char** argv) {
  // abort_on_terminate (the default) turns an uncaught exception on one rank into the end of the
  // job, instead of the other ranks waiting in their next collective until the timeout.
  xd::dist::ProcessGroup world;
  try {
    world = xd::dist::init();
  } catch (const xd::Error& e) {
    std::fprintf(stderr, "data_parallel: cannot start: %s\n", e.what());
    return 1;
  }
  const int rank = world.rank(), size = world.size();

  const char* usage = "usage: mpirun -np N data_parallel [steps tokens_per_rank hidden intermediate]\n";
  const char* names[] = {"steps", "tokens_per_rank", "hidden", "intermediate"};
  int64_t values[] = {5, 8, 64, 160};
  constexpr int64_t kMax = int64_t{1} << 20;  // beyond it a dimension is a typing mistake, not an example
  for (int i = 1; i < argc; ++i) {
    const std::optional<int64_t> v = i <= 4 ? parse_arg(argv[i], kMax) : std::nullopt;
    if (!v) {
      // Every rank sees the same arguments and stops here; rank 0 alone says why.
      if (rank == 0 && i > 4) std::fprintf(stderr, "data_parallel: unexpected argument '%s'\n%s", argv[i], usage);
      if (rank == 0 && i <= 4)
        std::fprintf(stderr, "data_parallel: %s '%s' is not a whole number from 1 to %lld\n%s", names[i - 1], argv[i],
                     static_cast<long long>(kMax), usage);
      xd::dist::finalize();
      return 2;
    }
    values[i - 1] = *v;
  }
  const int steps = static_cast<int>(values[0]);
  const int64_t local = values[1], hidden = values[2], inter = values[3];
  const int64_t global = local * size;

  try {
    const xd::Device dev = xd::dist::local_device();
    if (rank == 0)
      std::printf("data_parallel: %d ranks, %d steps, %lld tokens/rank (%lld global), hidden=%lld intermediate=%lld "
                  "on %s (%s)\n",
                  size, steps, static_cast<long long>(local), static_cast<long long>(global),
                  static_cast<long long>(hidden), static_cast<long long>(inter), dev.str().c_str(),
                  dev.properties().name.c_str());

    const Params w_init = init_params(hidden, inter, kWeightSeed);
    const Params teacher = init_params(hidden, inter, kTeacherSeed);
    Params w = to(w_init, dev, xd::Dtype::f32);
    std::vector<double> losses;
    const auto t0 = std::chrono::steady_clock::now();
    for (int step = 0; step < steps; ++step) {
      auto [gx, gt] = global_batch(step, global, teacher);
      const xd::Tensor x = gx.slice(0, rank * local, (rank + 1) * local).to(dev);
      const xd::Tensor target = gt.slice(0, rank * local, (rank + 1) * local).to(dev);

      // Each gradient's all_reduce starts while the backward pass computes the next one; none may
      // be read (nor the SGD step run) until every wait() has returned.
      std::vector<xd::dist::Work> pending;
      Params grad;
      const xd::Tensor loss = loss_and_grads(x, target, w, global, grad, [&](const xd::Tensor& gr) {
        pending.push_back(world.all_reduce(gr, xd::dist::ReduceOp::sum, /*async_op=*/true));
      });
      // The local losses are shares of the global one too: their sum is the full-batch loss.
      pending.push_back(world.all_reduce(loss, xd::dist::ReduceOp::sum, /*async_op=*/true));
      for (const xd::dist::Work& work : pending) work.wait();
      sgd_step(w, grad);
      losses.push_back(loss.item<double>());
      if (rank == 0) {
        std::printf("  step %d: loss %.6f\n", step + 1, losses.back());
        std::fflush(stdout);  // under mpirun stdout is a pipe: show progress as it happens
      }
    }
    xd::synchronize(dev);
    const double train_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    // 1. The replicas must not have drifted apart: compare every rank's weights with rank 0's,
    // bit for bit (every rank applied the same summed gradients to the same weights).
    double spread = 0;
    for (xd::Tensor* p : w.all()) {
      xd::Tensor from_rank0 = p->clone();
      world.broadcast(from_rank0, 0);
      spread = std::max(spread, xd::amax(xd::abs(xd::sub(*p, from_rank0))).item<double>());
    }
    xd::Tensor verdict = xd::tensor(std::vector<double>{spread, 0.0, 0.0}, {3}, xd::cpu());
    world.all_reduce(verdict, xd::dist::ReduceOp::max);  // a CPU tensor: goes to MPI without staging
    spread = verdict.to_vector<double>()[0];

    // 2. Rank 0 replays the training in one process on the whole batch, in f64 on the CPU, and
    // compares the weight updates (w_final - w_init: next to the weights themselves, an error in
    // the few small steps taken would hardly show) and the losses.
    if (rank == 0) {
      const xd::Device cpu = xd::cpu();
      const Params w0 = to(w_init, cpu, xd::Dtype::f64);
      Params ref = w0;
      double loss_rel = 0;
      for (int step = 0; step < steps; ++step) {
        auto [gx, gt] = global_batch(step, global, teacher);
        Params grad;
        const xd::Tensor loss =
            loss_and_grads(gx.to(xd::Dtype::f64), gt.to(xd::Dtype::f64), ref, global, grad, [](const xd::Tensor&) {});
        sgd_step(ref, grad);
        const double want = loss.item<double>();
        const double got_loss = losses[static_cast<size_t>(step)];
        loss_rel = std::max(loss_rel, std::fabs(got_loss - want) / std::max(std::fabs(want), 1e-30));
      }
      Params got = to(w, cpu, xd::Dtype::f64), start = w0;
      double update_rel = 0;
      const auto gp = got.all(), rp = ref.all(), ip = start.all();
      for (size_t i = 0; i < gp.size(); ++i) {
        const double r = rel_diff(xd::sub(*gp[i], *ip[i]), xd::sub(*rp[i], *ip[i]));
        std::printf("  %-6s update: max rel diff %.3g vs the single-process f64 reference\n", kParamNames[i], r);
        update_rel = std::max(update_rel, r);
      }
      verdict = xd::tensor(std::vector<double>{spread, update_rel, loss_rel}, {3}, cpu);
    }
    // Every rank exits with the same status, so mpirun's does not depend on which rank it reports.
    world.broadcast(verdict, 0);
    const auto v = verdict.to_vector<double>();
    const bool ok = v[0] == 0.0 && v[1] <= kTolerance && v[2] <= kTolerance;
    if (rank == 0)
      std::printf("data_parallel: %s: %d ranks, %d steps in %.1f ms; weights across ranks differ by %.3g; max rel "
                  "diff vs single-process f64: updates %.3g, loss %.3g (tolerance %.0e)\n",
                  ok ? "OK" : "FAILED", size, steps, train_ms, v[0], v[1], v[2], kTolerance);
    xd::dist::finalize();
    return ok ? 0 : 1;
  } catch (const xd::Error& e) {
    // Alone, a rank can report and exit; in a job the others would wait for it in a collective, so
    // the exception goes on to the library's terminate handler, which prints it and aborts the job.
    if (size > 1) throw;
    std::fprintf(stderr, "data_parallel: error: %s\n", e.what());
    return 1;
  }
}
