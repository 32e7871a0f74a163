#!/usr/bin/env python3
"""PyTorch beside xd-bench: the same workloads, sizes and traffic model, timed the same way
(CUDA events around each of N calls after warm-up, the median reported; on the CPU the host clock
around each call), so that the figures in docs/performance.md compare like with like on one
machine in one run.

    python3 bench/torch_reference.py --csv torch.csv [--reps 20] [--warmup 3]
    python3 bench/torch_reference.py --suite fused --csv fused.csv            # CUDA, full sizes
    python3 bench/torch_reference.py --device cpu --suite fused --quick       # this machine

Suites: "ops" (the single-op workloads, CUDA only), "fused" (xd-bench's chain6, silu_mul_add,
silu_rms_norm and llama_mlp, each eager and through torch.compile in the same run: the compiled
row's speedup is the eager median over its own; torch.compile's first call, compilation included,
is in its kernels column), "all" (both). Where torch.compile is missing or fails (PyTorch before
2.0, no working inductor compiler) its rows say "unavailable: <why>" and carry no numbers.
Matmul runs with TF32 off (torch.backends.cuda.matmul.allow_tf32 = False): fp32 is fp32, as in
xdispatch's kernels. Rows: backend=torch, same columns as xd-bench --csv (mode: eager or compiled
on the fused rows).
"""
import argparse
import csv
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def timed(fn, reps, warmup):
    if not torch.cuda.is_available() or _DEVICE[0] == "cpu":
        for _ in range(warmup):
            fn()
        out = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t0) * 1e3)
        return out
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, end in pairs:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in pairs]


def rms_norm_fn():
    # F.rms_norm exists from PyTorch 2.4; before that, the composite every model used.
    if hasattr(F, "rms_norm"):
        return lambda x, w, eps: F.rms_norm(x, (x.shape[-1],), w, eps)
    return lambda x, w, eps: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


_DEVICE = ["cuda"]  # set by main(): where timed() runs


def sync():
    if _DEVICE[0] == "cuda":
        torch.cuda.synchronize()


def fused_sizes(device, quick):
    """(workload, size) pairs: the sizes of docs/performance.md's compiler section."""
    if quick:
        return [("chain6", [4096, 4096]), ("silu_mul_add", [4096, 4096]), ("silu_rms_norm", [4096, 4096]),
                ("llama_mlp", [64, 1024, 2816])]
    big = [[4096, 4096], [16384, 8192]]
    out = [(w, s) for w in ("chain6", "silu_mul_add", "silu_rms_norm") for s in big]
    return out + [("llama_mlp", [512, 4096, 11008]), ("llama_mlp", [2048, 4096, 11008])]


def fused_case(name, size, dev, dt, norm, eps):
    """The function, its inputs (as xd-bench's fused_workload.cpp makes them) and bytes, flops."""
    def uniform(shape, lo, span):
        return (torch.rand(*shape, device=dev) * span + lo).to(dt)

    s = torch.tensor([], dtype=dt).element_size()
    if name == "llama_mlp":
        t, h, i = size
        ins = [uniform([t, h], -1.0, 2.0), uniform([h, i], -0.02, 0.04), uniform([h, i], -0.02, 0.04),
               uniform([i, h], -0.02, 0.04)]
        return (lambda x, g, u, d: (F.silu(x @ g) * (x @ u)) @ d), ins, (2.0 * t * h + 3.0 * h * i) * s, 6.0 * t * h * i
    n = 1
    for d in size:
        n *= d
    if name == "chain6":
        return (lambda x, y: torch.exp(torch.tanh(F.gelu(x * 0.5 + y) * y - x))), \
            [uniform(size, -1.0, 2.0), uniform(size, -1.0, 2.0)], 3.0 * n * s, 0.0
    if name == "silu_mul_add":
        return (lambda x, y, z: F.silu(x) * y + z), [uniform(size, -1.0, 2.0) for _ in range(3)], 4.0 * n * s, 0.0
    if name == "silu_rms_norm":
        return (lambda x, w: F.silu(norm(x, w, eps))), [uniform(size, -1.0, 2.0), uniform([size[-1]], 0.5, 1.0)], \
            (2.0 * n + size[-1]) * s, 0.0
    raise ValueError(name)


def compile_unavailable():
    """Why torch.compile cannot run here, or None."""
    if not hasattr(torch, "compile"):
        return f"torch {torch.__version__} has no torch.compile (it came with PyTorch 2.0)"
    return None


def fused_suite(args, dev, add, rows):
    norm = rms_norm_fn()
    eps = torch.finfo(torch.float32).eps
    why_not = compile_unavailable()
    for name, size in fused_sizes(dev.type, args.quick):
        fn, ins, nbytes, flops = fused_case(name, size, dev, torch.float32, norm, eps)
        eager = add(name, "f32", size, lambda: fn(*ins), nbytes, flops, kernel="eager", mode="eager")
        sync()
        if why_not is None:
            try:
                torch._dynamo.reset()  # a fresh compilation for each case: its first call is the cold one
                cfn = torch.compile(fn)
                t0 = time.perf_counter()
                cfn(*ins)
                sync()
                first = (time.perf_counter() - t0) * 1e3
                r = add(name, "f32", size, lambda: cfn(*ins), nbytes, flops,
                        kernel=f"torch.compile (inductor); first call {first:.0f} ms", mode="compiled")
                r["speedup"] = eager["median_ms"] / r["median_ms"]
                continue
            except Exception as e:  # the reason goes into the row: never a number that was not measured
                why = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                rows.append(unavailable_row(args, name, size, "torch.compile failed: " + why))
                continue
        rows.append(unavailable_row(args, name, size, why_not))


def unavailable_row(args, name, size, why):
    return {"backend": "torch", "op": name, "dtype": "f32", "size": "x".join(map(str, size)),
            "status": "unavailable: " + why, "reps": args.reps, "median_ms": 0.0, "min_ms": 0.0, "gbps": 0.0,
            "gflops": 0.0, "kernels": "torch.compile", "mode": "compiled", "speedup": 0.0}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--copy-mib", type=float, default=256)
    ap.add_argument("--csv", default="-")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--suite", choices=["all", "ops", "matmul", "fused", "models"], default="all")
    ap.add_argument("--quick", action="store_true", help="fused suite at the CPU sizes (llama_mlp 64x1024x2816)")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="intra-op threads on the CPU")
    args = ap.parse_args()
    if args.device == "cpu" and args.suite != "fused":
        ap.error("the single-op suite is CUDA-only: use --suite fused with --device cpu")
    _DEVICE[0] = args.device

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if args.device == "cpu":
        torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    rows = []

    def add(op, dtype, size, fn, nbytes=0.0, flops=0.0, kernel="", mode=""):
        ms = timed(fn, args.reps, args.warmup)
        med = statistics.median(ms)
        rows.append({"backend": "torch", "op": op, "dtype": dtype, "size": "x".join(map(str, size)), "status": "ok",
                     "reps": args.reps, "median_ms": med, "min_ms": min(ms), "gbps": nbytes / (med * 1e6),
                     "gflops": flops / (med * 1e6), "kernels": kernel, "mode": mode, "speedup": 0.0})
        return rows[-1]

    n = int(args.copy_mib * 1024 * 1024 / 4)
    src = torch.rand(n, device=dev)
    dst = torch.empty_like(src)
    copy = add("copy", "f32", [n], lambda: dst.copy_(src), 8.0 * n, kernel="copy_")
    copy_gbps = copy["gbps"]
    del src, dst

    if args.suite in ("all", "ops"):
        ops_suite(args, dev, add)
    if args.suite in ("all", "matmul"):
        matmul_suite(args, dev, add)
    if args.suite in ("all", "fused"):
        fused_suite(args, dev, add, rows)
    if args.suite in ("all", "models"):
        models_suite(args, dev, add)

    for r in rows:
        r["copy_gbps"] = copy_gbps
        r["copy_fraction"] = r["gbps"] / copy_gbps
    out = sys.stdout if args.csv == "-" else open(args.csv, "w", newline="")
    cols = ["backend", "op", "dtype", "size", "status", "reps", "median_ms", "min_ms", "gbps", "gflops", "copy_gbps",
            "copy_fraction", "kernels", "mode", "speedup"]
    wr = csv.DictWriter(out, fieldnames=cols)
    wr.writeheader()
    for r in rows:
        wr.writerow({c: r[c] for c in cols})
    where = torch.cuda.get_device_name() if args.device == "cuda" else f"the CPU, {torch.get_num_threads()} threads"
    print(f"torch {torch.__version__} on {where}: copy {copy_gbps:.1f} GB/s", file=sys.stderr)
    print_fused(rows)


def print_fused(rows):
    """The fused rows as xd-bench prints them: eager vs compiled side by side (to stderr)."""
    fused = [r for r in rows if r["mode"] == "compiled"]
    if not fused:
        return
    print(f"{'op':<14} {'size':<16} {'eager ms':>10} {'compiled ms':>11} {'GB/s':>8} {'GFLOP/s':>8} {'%copy':>6} "
          f"{'speedup':>8}  note", file=sys.stderr)
    for c in fused:
        e = next((r for r in rows if r["mode"] == "eager" and r["op"] == c["op"] and r["size"] == c["size"]), None)
        em = f"{e['median_ms']:.4f}" if e else "-"
        if c["status"] != "ok":
            print(f"{c['op']:<14} {c['size']:<16} {em:>10} {c['status']}", file=sys.stderr)
            continue
        gf = f"{c['gflops']:.0f}" if c["gflops"] > 0 else "-"
        cp = f"{100 * c['copy_fraction']:.0f}%" if c["gflops"] == 0 else "-"
        print(f"{c['op']:<14} {c['size']:<16} {em:>10} {c['median_ms']:>11.4f} {c['gbps']:>8.1f} {gf:>8} {cp:>6} "
              f"{c['speedup']:>7.2f}x  {c['kernels']}", file=sys.stderr)


# xd-bench's model-op workloads (tools/xd-bench/model_workload.cpp), the same sizes and counts.
ATTENTION_SIZES = [[4, 32, 2048, 128], [4, 32, 2048, 64], [4, 32, 4096, 128]]  # BxHxSxD, causal
RESNET50_CONVS = [  # NxCxHxWxOxKxS, padding K/2: the stem, the 3x3 of each stage, a 1x1 reduce
    [32, 3, 224, 224, 64, 7, 2], [32, 64, 56, 56, 64, 3, 1], [32, 128, 28, 28, 128, 3, 1],
    [32, 256, 14, 14, 256, 3, 1], [32, 512, 7, 7, 512, 3, 1], [32, 256, 56, 56, 64, 1, 1],
]


def models_suite(args, dev, add):
    """Causal scaled_dot_product_attention in bf16 (PyTorch picks FlashAttention) and conv2d at
    ResNet-50's shapes in f32 (cuDNN, TF32 off) and bf16, as xd-bench's attention and conv2d."""
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    for size in ATTENTION_SIZES:
        b, h, s, d = size
        for name in ("bf16", "f16"):
            q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=dtypes[name]) for _ in range(3))
            add("attention", name, size, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                4.0 * b * h * s * d * q.element_size(), 4.0 * b * h * s * s * d / 2, kernel="sdpa")
            del q, k, v
    torch.backends.cudnn.benchmark = True
    for size in RESNET50_CONVS:
        n, c, hh, ww, o, k, st = size
        for name in ("f32", "bf16"):
            x = torch.randn(n, c, hh, ww, device=dev, dtype=dtypes[name])
            w = torch.randn(o, c, k, k, device=dev, dtype=dtypes[name])
            oh, ow = (hh + 2 * (k // 2) - k) // st + 1, (ww + 2 * (k // 2) - k) // st + 1
            outs = n * o * oh * ow
            add("conv2d", name, size, lambda: F.conv2d(x, w, None, st, k // 2),
                (x.numel() + w.numel() + outs) * x.element_size(), 2.0 * outs * c * k * k, kernel="cuDNN")
            del x, w


def matmul_suite(args, dev, add):
    """xd-bench's matmul rows: mm 4096^3 (f32 f16 bf16), decode-shaped mm (M = 1 and 16, K = N =
    16384; size MxNxK as xd-bench writes it), and llama_mlp eagerly at 16 and 512 tokens."""
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    for name, dt in dtypes.items():
        s = 4096
        a = torch.rand(s, s, device=dev, dtype=dt)
        b = torch.rand(s, s, device=dev, dtype=dt)
        add("mm", name, [s, s, s], lambda: a @ b, 3.0 * s * s * a.element_size(), 2.0 * s ** 3, kernel="cuBLAS")
        del a, b
    for name in ("f32", "bf16"):
        dt = dtypes[name]
        for m in (1, 16):
            k = n = 16384
            a = torch.rand(m, k, device=dev, dtype=dt)
            b = torch.rand(k, n, device=dev, dtype=dt)
            add("mm", name, [m, n, k], lambda: a @ b, (m * k + k * n + m * n) * a.element_size(), 2.0 * m * n * k,
                kernel="cuBLAS")
            del a, b
    for name in ("f32", "bf16"):
        dt = dtypes[name]
        for t in (16, 512):
            h, i = 4096, 11008
            x = (torch.rand(t, h, device=dev) * 2 - 1).to(dt)
            wg, wu = [((torch.rand(h, i, device=dev) - 0.5) * 0.04).to(dt) for _ in range(2)]
            wd = ((torch.rand(i, h, device=dev) - 0.5) * 0.04).to(dt)
            add("llama_mlp", name, [t, h, i], lambda: (F.silu(x @ wg) * (x @ wu)) @ wd,
                (2.0 * t * h + 3.0 * h * i) * x.element_size(), 6.0 * t * h * i, kernel="eager", mode="eager")
            del x, wg, wu, wd


def ops_suite(args, dev, add):
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    norm = rms_norm_fn()
    eps = torch.finfo(torch.float32).eps
    for size in ([4096, 4096], [16384, 8192], [65536, 4096]):
        m, k = size
        x = torch.rand(m, k, device=dev)
        w = torch.rand(k, device=dev) + 0.5
        add("rms_norm", "f32", size, lambda: norm(x, w, eps), 4.0 * (2 * m * k + k + m), kernel="F.rms_norm")
        xg = x.clone().requires_grad_(True)
        wg = w.clone().requires_grad_(True)
        y = norm(xg, wg, eps)
        g = torch.rand_like(x)
        add("rms_norm_backward", "f32", size,
            lambda: torch.autograd.grad(y, (xg, wg), g, retain_graph=True),
            4.0 * (3 * m * k + 2 * k + m), kernel="autograd(F.rms_norm)")
        del x, w, xg, wg, y, g
    for size in ([4096, 4096], [8192, 8192], [16384, 8192]):
        m, k = size
        a = torch.rand(m, k, device=dev)
        b = torch.rand(k, device=dev)
        add("add_broadcast", "f32", size, lambda: a + b, 4.0 * (2 * m * k + k), kernel="add")
        add("softmax", "f32", size, lambda: torch.softmax(a, -1), 8.0 * m * k, kernel="softmax")
        del a, b
    # Quantised matmuls (xd-bench --op int_mm --dtype i8, --op scaled_mm --dtype f8e4m3fn|f8e5m2):
    # same traffic model, operands read once, out written once (i32 / bf16).
    for s in (4096,):
        a = torch.randint(-128, 128, (s, s), device=dev, dtype=torch.int8)
        b = torch.randint(-128, 128, (s, s), device=dev, dtype=torch.int8).t().contiguous().t()  # cuBLASLt wants b column-major
        add("int_mm", "i8", [s, s, s], lambda: torch._int_mm(a, b), 2.0 * s * s + 4.0 * s * s, 2.0 * s ** 3,
            kernel="cuBLASLt")
        del a, b
        for name, dt in (("f8e4m3fn", torch.float8_e4m3fn), ("f8e5m2", torch.float8_e5m2)):
            a = torch.rand(s, s, device=dev).to(dt)
            # PyTorch refuses e5m2 x e5m2: mat2 stays e4m3fn for the e5m2 row, as its tests do.
            b = torch.rand(s, s, device=dev).to(torch.float8_e4m3fn).t().contiguous().t()
            sa = torch.tensor(0.5, device=dev)
            sb = torch.tensor(2.0, device=dev)
            add("scaled_mm", name, [s, s, s], lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
                2.0 * s * s + 2.0 * s * s, 2.0 * s ** 3, kernel="cuBLASLt")
            add("scaled_mm_fast_accum", name, [s, s, s],
                lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True),
                2.0 * s * s + 2.0 * s * s, 2.0 * s ** 3, kernel="cuBLASLt")
            del a, b

    # weight_int4_mm (xd-bench: MxKxN, group 128). PyTorch's int4 kernel (torch._weight_int4pack_mm,
    # tinygemm) wants its own tile-packed layout with float-domain zero points, so the comparison
    # is F.linear on the weight dequantized to bf16 beforehand: a cuBLAS GEMV that reads 4x the
    # weight bytes of int4. GB/s counts the bytes it really moves; the row's time is the number to
    # compare with xd-bench's.
    for m in (1, 16):
        k = n = 16384
        x = torch.rand(m, k, device=dev, dtype=torch.bfloat16)
        w = (torch.rand(n, k, device=dev, dtype=torch.bfloat16) - 0.5)
        add("weight_int4_mm", "bf16", [m, k, n], lambda: torch.nn.functional.linear(x, w),
            2.0 * (n * k + m * k + m * n), 2.0 * m * k * n, kernel="F.linear(dequantized bf16 weight), not int4")
        del x, w
    # Sparse CSR [M, K] at 1% and 5% times dense [K, N] (xd-bench sparse_mm_1pct / _5pct, size MxNxK):
    # torch.sparse.mm (cuSPARSE SpMM) on the same pattern (nnz_row columns per row, one per stripe,
    # i32 indices), and the dense mm of the same shapes for the sparse/dense ratio. Flops count the
    # nonzeros for the sparse rows (2*nnz*N) and the full product for the dense one.
    m, n, k = 8192, 256, 8192
    gen = torch.Generator(device="cpu").manual_seed(0x5BA45E)
    bd = torch.rand(k, n, device=dev)
    for pct in (1, 5):
        per_row = round(k * pct / 100)
        stripes = torch.arange(per_row) * k // per_row
        widths = (torch.arange(1, per_row + 1) * k // per_row) - stripes
        cols = stripes + (torch.rand(m, per_row, generator=gen) * widths).long()
        crow = torch.arange(m + 1, dtype=torch.int32) * per_row
        vals = torch.rand(m * per_row, generator=gen)
        a = torch.sparse_csr_tensor(crow, cols.reshape(-1).to(torch.int32), vals, (m, k)).to(dev)
        nnz = m * per_row
        nbytes = 4.0 * (m + 1 + nnz) + 4.0 * nnz + 4.0 * (k * n + m * n)
        add(f"sparse_mm_{pct}pct", "f32", [m, n, k], lambda: torch.sparse.mm(a, bd), nbytes, 2.0 * nnz * n,
            kernel="torch.sparse.mm (cuSPARSE)")
        ad = a.to_dense()
        add(f"sparse_mm_{pct}pct_dense", "f32", [m, n, k], lambda: ad @ bd, 4.0 * (m * k + k * n + m * n),
            2.0 * m * n * k, kernel="cuBLAS (dense mm of the same operands)")
        del a, ad
    del bd


if __name__ == "__main__":
    main()
