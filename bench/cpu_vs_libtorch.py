#!/usr/bin/env python3
"""xdispatch's CPU backend beside PyTorch's ATen CPU kernels (Debian's libtorch 1.13 through its
python3-torch) on the same inputs, in one process, rep by rep.

    PYTHONPATH=build/default/python /usr/bin/python3 bench/cpu_vs_libtorch.py \\
        [--dtype f32|bf16|f16] [--size 4096x4096] [--threads 2] [--reps 20] [--warmup 3] \\
        [--op softmax ...] [--json FILE]

Each op gets identical inputs in both libraries (made once by torch, cloned into xdispatch
through DLPack), is called `--warmup` times in each, then `--reps` times alternating the two
libraries (xdispatch first on even reps, torch first on odd ones). Every call is timed on the
host clock (time.perf_counter_ns) from the call to its result, the xdispatch one after
xdispatch.synchronize(device) (CPU ops return finished; the synchronisation makes that a fact of
the measurement, not an assumption); results are released outside the clock. Reported: medians.

GB/s use xd-bench's traffic model (tools/xd-bench/workload.cpp): every input read once and every
output written once, in its own dtype, the same count for both libraries:
  softmax, log_softmax (last dim)   2·n·s
  rms_norm (last dim, weight)       2·n·s + N·s + rows·4 (x, weight in; y, rstd f32 out)
  rms_norm_backward                 3·n·s + 2·N·s + rows·4 (g, x, rstd, weight in; dx, dw out)
  layer_norm (last dim, weight, bias)   2·n·s + 2·N·s + rows·8 (x, weight, bias in; y, mean, rstd out)
  sum, mean, amax (over the last dim, as xd-bench's reductions)   n·s + rows·s
  add                               3·n·s
  add_broadcast ([M, N] + [N])      2·n·s + N·s
  exp, sigmoid, silu, tanh, gelu_tanh, log, sqrt, rsqrt, relu, neg, abs, gelu, pow (elementwise)   2·n·s
  div                               3·n·s
  eq, lt (bool out)                 2·n·s + n
  where (bool condition)            3·n·s + n
  argmax (over the last dim)        n·s + rows·8
  attention (causal; --attention BHxSxD, default 8x1024x64)   4·BH·S·D·s (q, k, v in; out)
  weight_int4_mm (--int4 MxKxN, default 1x4096x4096, groups of 128)   K·N/2 + 2·(K/128)·N·s + M·K·s + M·N·s
(n = M·N elements, s = the dtype's size, N = the last dim, rows = M.) torch's rms_norm does not
write an rstd; it is counted anyway, as for xdispatch.

The yardstick: numpy.copyto of `--copy-mib` MiB (default 64, f32 4096x4096's size) between two
arrays allocated and written once, timed in the same loop (once per rep of every op), read +
write counted; "%memcpy" is each op's GB/s over its median.

torch 1.13 has no scaled_dot_product_attention and no int4 matmul. attention is what a libtorch
user writes, softmax((q @ kᵀ)·scale with the keys j > i at -inf) @ v; weight_int4_mm is timed
against torch's matmul with the dequantized weight in the dtype, x @ wᵀ: what such a user runs
(the bytes are counted as for xdispatch's packed weight).

torch 1.13 has no rms_norm: the forward is what a libtorch user writes,
    x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
and its backward is, by default, autograd's backward of that composition (torch.autograd.grad
with retain_graph=True on one recorded forward: the backward alone is timed), or with
`--torch-backward formula` the hand-written formula on a precomputed f32 rstd:
    gw_ = g·w;  dx = rstd·(gw_ − x·rstd²·mean(gw_·x, -1));  dw = Σ_rows g·x·rstd
Before timing, each op's results are compared between the libraries (max |difference| relative
to the largest |value|) and the figure is reported beside the times.
"""

import argparse
import datetime
import json
import statistics
import sys
import time


DTYPES = {"f32": ("float32", 4), "bf16": ("bfloat16", 2), "f16": ("float16", 2)}
OPS = [
    "softmax", "log_softmax", "rms_norm", "rms_norm_backward", "layer_norm",
    "sum", "mean", "amax", "add", "add_broadcast",
    "exp", "sigmoid", "silu", "tanh", "gelu_tanh",
    "log", "sqrt", "rsqrt", "relu", "neg", "abs", "gelu", "pow", "div", "eq", "lt", "where", "argmax",
    "attention", "weight_int4_mm",
]


def parse_dims(text):
    try:
        dims = [int(d) for d in text.split("x")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not NxNxN") from None
    if len(dims) != 3 or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' needs three positive dims")
    return dims


def parse_size(text):
    try:
        dims = [int(d) for d in text.split("x")]
    except ValueError:
        dims = []
    if len(dims) != 2 or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"--size '{text}': expected MxN, e.g. 4096x4096")
    return dims


def kernel_calls(xd):
    calls = {}  # a kernel name is registered once per dtype: sum its rows
    for k in xd.kernels():
        calls[(k["backend"], k["name"])] = calls.get((k["backend"], k["name"]), 0) + k["calls"]
    return calls


def kernels_that_ran(xd, before, after):
    return sorted(name for (backend, name), calls in after.items() if calls > before.get((backend, name), 0))


def max_rel_diff(torch, x_xd, x_torch):
    import xdispatch as xd

    if x_xd.dtype == xd.bool:  # torch 1.13 takes no bool DLPack
        x_xd = x_xd.to(xd.uint8)
    a = torch.from_dlpack(x_xd.contiguous()).double()
    b = x_torch.detach().contiguous().double()
    scale = max(b.abs().max().item(), 1e-30)
    return (a - b).abs().max().item() / scale


def make_cases(torch, xd, args):
    """Per op: (xdispatch's call, a factory returning torch's call, bytes)."""
    m, n = args.size
    tdt = getattr(torch, DTYPES[args.dtype][0])
    s = DTYPES[args.dtype][1]
    elems = m * n
    gen = torch.Generator().manual_seed(0)
    dev = xd.cpu()

    def uniform(shape, lo, span):  # as xd-bench's values(): [lo, lo + span)
        return (torch.rand(shape, generator=gen) * span + lo).to(tdt).contiguous()

    def to_xd(t):  # its own allocation, not a view of torch's memory
        return xd.from_dlpack(t).clone()

    x = uniform((m, n), 0.0, 1.0)  # reductions, softmax, rms_norm's x (xd-bench's values())
    a = uniform((m, n), 0.5, 1.0)  # binary operands
    b = uniform((m, n), 0.5, 1.0)
    row = uniform((n,), 0.5, 1.0)
    w = uniform((n,), 0.5, 1.0)
    g = uniform((m, n), 0.0, 1.0)
    cond = torch.rand((m, n), generator=gen) < 0.5  # where's condition, a random half true
    xx, xa, xb, xrow, xw, xg = (to_xd(t) for t in (x, a, b, row, w, g))
    xcond = to_xd(cond.to(torch.uint8)).to(xd.bool)  # torch 1.13 has no bool DLPack
    eps = args.eps
    _, xrstd = xd.rms_norm_with_rstd(xx, [n], weight=xw, eps=eps)

    def torch_rms_norm(x_, w_):
        return x_ * torch.rsqrt(x_.pow(2).mean(-1, keepdim=True) + eps) * w_

    def torch_backward():
        # Made when the op is reached, so that a dtype torch cannot run fails that op only.
        if args.torch_backward == "autograd":  # one recorded forward; its backward timed alone
            xr = x.clone().requires_grad_()
            wr = w.clone().requires_grad_()
            yr = torch_rms_norm(xr, wr)
            return lambda: torch.autograd.grad(yr, (xr, wr), g, retain_graph=True)
        r = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps).to(tdt)  # f32 rstd, as xdispatch's

        def formula():
            gw_ = g * w
            dx = r * (gw_ - x * (r * r) * (gw_ * x).mean(-1, keepdim=True))
            dw = (g * x * r).sum(0)
            return dx, dw

        return formula

    bh, sq, hd = args.attention
    aq, ak, av = (torch.randn((bh, sq, hd), generator=gen).to(tdt) for _ in range(3))
    xaq, xak, xav = (to_xd(t) for t in (aq, ak, av))
    causal_mask = torch.ones((sq, sq), dtype=torch.bool).triu(1)

    def torch_attention():
        sc = (aq @ ak.transpose(1, 2)) * (1.0 / hd**0.5)
        return torch.softmax(sc.masked_fill(causal_mask, float("-inf")), -1) @ av

    im, ik, inn = args.int4
    group = 128
    ix = uniform((im, ik), -1.0, 2.0)
    iw = uniform((inn, ik), -1.0, 2.0)
    # quantize_int4 takes f32 or bf16 weights; the scales then go to the input's dtype.
    xd_dtype = {"f32": xd.float32, "bf16": xd.bfloat16, "f16": xd.float16}[args.dtype]
    packed, scales, zeros = xd.quantize_int4(to_xd(iw if args.dtype == "bf16" else iw.float()), group)
    scales = scales.to(xd_dtype)
    w_deq = torch.from_dlpack(xd.dequantize_int4(packed, scales, zeros, group)).clone()
    xix = to_xd(ix)
    int4_bytes = ik * inn // 2 + 2 * (ik // group) * inn * s + im * ik * s + im * inn * s

    rstd_bytes = m * 4
    red_bytes = elems * s + m * s
    # op: (xdispatch call, a factory of torch's call, bytes)
    plain = lambda fn: lambda: fn  # noqa: E731
    return {
        "softmax": (lambda: xd.softmax(xx, 1), plain(lambda: torch.softmax(x, -1)), 2 * elems * s),
        "log_softmax": (lambda: xd.log_softmax(xx, 1), plain(lambda: torch.log_softmax(x, -1)), 2 * elems * s),
        "rms_norm": (
            lambda: xd.rms_norm(xx, [n], weight=xw, eps=eps),
            plain(lambda: torch_rms_norm(x, w)),
            2 * elems * s + n * s + rstd_bytes,
        ),
        "rms_norm_backward": (
            lambda: xd.rms_norm_backward(xg, xx, [n], xrstd, weight=xw),
            torch_backward,
            3 * elems * s + 2 * n * s + rstd_bytes,
        ),
        "layer_norm": (
            lambda: xd.layer_norm(xx, [n], weight=xw, bias=xrow, eps=1e-5),
            plain(lambda: torch.nn.functional.layer_norm(x, (n,), w, row, 1e-5)),
            2 * elems * s + 2 * n * s + m * 8,
        ),
        "sum": (lambda: xd.sum(xx, 1), plain(lambda: torch.sum(x, -1)), red_bytes),
        "mean": (lambda: xd.mean(xx, 1), plain(lambda: torch.mean(x, -1)), red_bytes),
        "amax": (lambda: xd.amax(xx, 1), plain(lambda: torch.amax(x, -1)), red_bytes),
        "add": (lambda: xd.add(xa, xb), plain(lambda: torch.add(a, b)), 3 * elems * s),
        "add_broadcast": (lambda: xd.add(xa, xrow), plain(lambda: torch.add(a, row)), 2 * elems * s + n * s),
        "exp": (lambda: xd.exp(xx), plain(lambda: torch.exp(x)), 2 * elems * s),
        "sigmoid": (lambda: xd.sigmoid(xx), plain(lambda: torch.sigmoid(x)), 2 * elems * s),
        "silu": (lambda: xd.silu(xx), plain(lambda: torch.nn.functional.silu(x)), 2 * elems * s),
        "tanh": (lambda: xd.tanh(xx), plain(lambda: torch.tanh(x)), 2 * elems * s),
        "gelu_tanh": (
            lambda: xd.gelu(xx, approximate="tanh"),
            plain(lambda: torch.nn.functional.gelu(x, approximate="tanh")),
            2 * elems * s,
        ),
        "log": (lambda: xd.log(xx), plain(lambda: torch.log(x)), 2 * elems * s),
        "sqrt": (lambda: xd.sqrt(xx), plain(lambda: torch.sqrt(x)), 2 * elems * s),
        "rsqrt": (lambda: xd.rsqrt(xx), plain(lambda: torch.rsqrt(x)), 2 * elems * s),
        "relu": (lambda: xd.relu(xx), plain(lambda: torch.relu(x)), 2 * elems * s),
        "neg": (lambda: xd.neg(xx), plain(lambda: torch.neg(x)), 2 * elems * s),
        "abs": (lambda: xd.abs(xx), plain(lambda: torch.abs(x)), 2 * elems * s),
        "gelu": (lambda: xd.gelu(xx), plain(lambda: torch.nn.functional.gelu(x)), 2 * elems * s),
        "pow": (lambda: xd.pow(xx, 2.5), plain(lambda: torch.pow(x, 2.5)), 2 * elems * s),
        "div": (lambda: xd.div(xa, xb), plain(lambda: torch.div(a, b)), 3 * elems * s),
        "eq": (lambda: xd.eq(xa, xb), plain(lambda: torch.eq(a, b)), 2 * elems * s + elems),
        "lt": (lambda: xd.lt(xa, xb), plain(lambda: torch.lt(a, b)), 2 * elems * s + elems),
        "where": (lambda: xd.where(xcond, xa, xb), plain(lambda: torch.where(cond, a, b)), 3 * elems * s + elems),
        "argmax": (lambda: xd.argmax(xx, 1), plain(lambda: torch.argmax(x, -1)), elems * s + m * 8),
        "attention": (
            lambda: xd.scaled_dot_product_attention(xaq, xak, xav, is_causal=True),
            plain(torch_attention),
            4 * bh * sq * hd * s,
        ),
        "weight_int4_mm": (
            lambda: xd.weight_int4_mm(xix, packed, scales, zeros, group),
            plain(lambda: ix @ w_deq.t()),
            int4_bytes,
        ),
    }, dev


def check(torch, xd_out, torch_out):
    """Max relative difference over the op's outputs (a tuple for rms_norm_backward)."""
    if not isinstance(xd_out, tuple):
        xd_out, torch_out = (xd_out,), (torch_out,)
    return max(max_rel_diff(torch, p, q) for p, q in zip(xd_out, torch_out))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="f32")
    ap.add_argument("--size", type=parse_size, default=[4096, 4096], help="MxN (default 4096x4096)")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads (default 2)")
    ap.add_argument("--attention", type=parse_dims, default=[8, 1024, 64],
                    help="attention's BHxSxD (default 8x1024x64)")
    ap.add_argument("--int4", type=parse_dims, default=[1, 4096, 4096],
                    help="weight_int4_mm's MxKxN (default 1x4096x4096)")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--copy-mib", type=float, default=64.0, help="MiB the numpy.copyto yardstick copies")
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--op", action="append", choices=OPS, help="op to run (repeatable; default: all)")
    ap.add_argument("--torch-backward", choices=["autograd", "formula"], default="autograd",
                    help="torch's rms_norm_backward: autograd of the composition, or the hand-written formula")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0 or args.threads < 1 or args.copy_mib <= 0:
        ap.error("--reps and --threads must be >= 1, --warmup >= 0, --copy-mib > 0")

    import numpy as np
    import torch
    import xdispatch as xd

    torch.set_num_threads(args.threads)
    cases, dev = make_cases(torch, xd, args)
    ops = args.op or OPS

    copy_n = int(args.copy_mib * (1 << 20)) // 4
    src = np.full(copy_n, 1.5, np.float32)  # written once: no first touch inside the clock
    dst = np.zeros(copy_n, np.float32)
    copy_bytes = 2 * copy_n * 4
    memcpy_ms = []

    def timed_memcpy():
        t0 = time.perf_counter_ns()
        np.copyto(dst, src)
        memcpy_ms.append((time.perf_counter_ns() - t0) / 1e6)

    def timed(fn, sync):
        t0 = time.perf_counter_ns()
        out = fn()
        if sync:
            xd.synchronize(dev)
        ms = (time.perf_counter_ns() - t0) / 1e6
        del out  # freed outside the clock
        return ms

    for _ in range(max(args.warmup, 1)):
        np.copyto(dst, src)

    results = []
    for op in ops:
        fx, make_ft, nbytes = cases[op]
        r = {"op": op, "bytes": nbytes, "torch_status": "ok"}
        xd_out = fx()
        try:  # torch 1.13's CPU kernels lack some dtypes (f16: rsqrt, softmax, ...)
            ft = make_ft()
            r["max_rel_diff"] = check(torch, xd_out, ft())
        except RuntimeError as e:
            ft = None
            r["torch_status"] = f"error: {e}".splitlines()[0]
            r["max_rel_diff"] = None
        del xd_out
        for _ in range(args.warmup):
            fx()
            xd.synchronize(dev)
            if ft:
                ft()
        before = kernel_calls(xd)
        xs, ts = [], []
        for rep in range(args.reps):
            timed_memcpy()
            if rep % 2 == 0:
                xs.append(timed(fx, True))
            if ft:
                ts.append(timed(ft, False))
            if rep % 2 == 1:
                xs.append(timed(fx, True))
        r["xd_kernels"] = kernels_that_ran(xd, before, kernel_calls(xd))
        r["xd_median_ms"], r["xd_min_ms"] = statistics.median(xs), min(xs)
        r["xd_gbps"] = nbytes / (r["xd_median_ms"] * 1e6)
        if ts:
            r["torch_median_ms"], r["torch_min_ms"] = statistics.median(ts), min(ts)
            r["torch_gbps"] = nbytes / (r["torch_median_ms"] * 1e6)
            r["torch_over_xd"] = r["torch_median_ms"] / r["xd_median_ms"]
        results.append(r)

    memcpy_gbps = copy_bytes / (statistics.median(memcpy_ms) * 1e6)
    for r in results:
        r["xd_vs_memcpy"] = r["xd_gbps"] / memcpy_gbps
        if "torch_gbps" in r:
            r["torch_vs_memcpy"] = r["torch_gbps"] / memcpy_gbps

    m, n = args.size
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"xdispatch {xd.__version__} ({xd.build_commit}) vs torch {torch.__version__} "
          f"({torch.get_num_threads()} threads), CPU, {args.dtype} {m}x{n}, {args.reps} reps alternating, "
          f"medians; {when}")
    print(f"memcpy yardstick (numpy.copyto, {copy_bytes / 2 / (1 << 20):.0f} MiB, read + write): "
          f"{memcpy_gbps:.1f} GB/s; torch rms_norm_backward: {args.torch_backward}")
    head = (f"{'op':18} {'xd ms':>9} {'torch ms':>9} {'xd GB/s':>8} {'torch GB/s':>10} {'xd %mcp':>8} "
            f"{'torch %mcp':>10} {'torch/xd':>8} {'rel diff':>9}  xd kernels")
    print(head)
    for r in results:
        kernels = "+".join(r["xd_kernels"])
        if "torch_gbps" not in r:
            print(f"{r['op']:18} {r['xd_median_ms']:9.3f} {'-':>9} {r['xd_gbps']:8.1f} {'-':>10} "
                  f"{100 * r['xd_vs_memcpy']:7.0f}% {'-':>10} {'-':>8} {'-':>9}  {kernels}  (torch: {r['torch_status']})")
            continue
        print(f"{r['op']:18} {r['xd_median_ms']:9.3f} {r['torch_median_ms']:9.3f} {r['xd_gbps']:8.1f} "
              f"{r['torch_gbps']:10.1f} {100 * r['xd_vs_memcpy']:7.0f}% {100 * r['torch_vs_memcpy']:9.0f}% "
              f"{r['torch_over_xd']:7.2f}x {r['max_rel_diff']:9.1e}  {kernels}")

    if args.json:
        doc = {
            "xdispatch": {"version": xd.__version__, "commit": xd.build_commit},
            "torch": torch.__version__, "torch_threads": torch.get_num_threads(), "date": when,
            "dtype": args.dtype, "size": f"{m}x{n}", "reps": args.reps, "warmup": args.warmup,
            "torch_rms_norm_backward": args.torch_backward,
            "memcpy_gbps": memcpy_gbps, "memcpy_bytes": copy_bytes, "results": results,
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
