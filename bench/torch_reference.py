#!/usr/bin/env python3
"""PyTorch on CUDA beside xd-bench: the same workloads, sizes and traffic model, timed the same way
(CUDA events around each of N calls after warm-up, the median reported), so that the figures in
docs/performance.md compare like with like on one machine in one run.

    python3 bench/torch_reference.py --csv torch.csv [--reps 20] [--warmup 3]

Matmul runs with TF32 off (torch.backends.cuda.matmul.allow_tf32 = False): fp32 is fp32, as in
xdispatch's kernels. Rows: backend=torch, same columns as xd-bench --csv.
"""
import argparse
import csv
import statistics
import sys

import torch
import torch.nn.functional as F


def timed(fn, reps, warmup):
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--copy-mib", type=float, default=256)
    ap.add_argument("--csv", default="-")
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    rows = []

    def add(op, dtype, size, fn, nbytes=0.0, flops=0.0, kernel=""):
        ms = timed(fn, args.reps, args.warmup)
        med = statistics.median(ms)
        rows.append({"backend": "torch", "op": op, "dtype": dtype, "size": "x".join(map(str, size)), "status": "ok",
                     "reps": args.reps, "median_ms": med, "min_ms": min(ms), "gbps": nbytes / (med * 1e6),
                     "gflops": flops / (med * 1e6), "kernels": kernel})
        return rows[-1]

    n = int(args.copy_mib * 1024 * 1024 / 4)
    src = torch.rand(n, device=dev)
    dst = torch.empty_like(src)
    copy = add("copy", "f32", [n], lambda: dst.copy_(src), 8.0 * n, kernel="copy_")
    copy_gbps = copy["gbps"]
    del src, dst

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
    for name, dt in dtypes.items():
        for s in (4096,):
            a = torch.rand(s, s, device=dev, dtype=dt)
            b = torch.rand(s, s, device=dev, dtype=dt)
            add("mm", name, [s, s, s], lambda: a @ b, 3.0 * s * s * a.element_size(), 2.0 * s ** 3, kernel="cuBLAS")
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

    for r in rows:
        r["copy_gbps"] = copy_gbps
        r["copy_fraction"] = r["gbps"] / copy_gbps
    out = sys.stdout if args.csv == "-" else open(args.csv, "w", newline="")
    cols = ["backend", "op", "dtype", "size", "status", "reps", "median_ms", "min_ms", "gbps", "gflops", "copy_gbps",
            "copy_fraction", "kernels"]
    wr = csv.DictWriter(out, fieldnames=cols)
    wr.writeheader()
    for r in rows:
        wr.writerow({c: r[c] for c in cols})
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}: copy {copy_gbps:.1f} GB/s", file=sys.stderr)


if __name__ == "__main__":
    main()
