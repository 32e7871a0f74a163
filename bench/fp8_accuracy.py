#!/usr/bin/env python3
"""How far PyTorch's fp8 scaled_mm (torch._scaled_mm: cuBLASLt on an H100) lands from an exact
result, in units of xd-conform's tolerance for scaled_mm: an output passes when
|got - exact| <= sqrt(k) * (atol + rtol * |exact|), with (atol, rtol) = (1e-5, 1.3e-6) for f32
outputs and (1e-5, 1.6e-2) for bf16 (tools/xd-conform/comparison.cpp: sum_tolerance).

Inputs as xd-conform's scaled_mm cases draw them: a (m x k) and b (stored n x k, used as b.t())
uniform in [-2, 2) rounded to e4m3fn, scales uniform in [0.25, 2) (tensor-wise or row-wise). The
exact result is the fp8 values' product in float64 times the scales. Each shape runs four ways:
a CUDA-core f32 matmul of the same fp8 values (the control: TF32 off), and torch._scaled_mm with
use_fast_accum False and True.

Usage (on the GPU machine): python3 bench/fp8_accuracy.py [MxNxK ...]
"""
import math
import sys

import torch

TOL = {torch.float32: (1e-5, 1.3e-6), torch.bfloat16: (1e-5, 1.6e-2)}


def run(m, n, k, out, how, rowwise, seed=1):
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = (torch.rand(m, k, generator=g) * 4 - 2).to(torch.float8_e4m3fn)
    b = (torch.rand(n, k, generator=g) * 4 - 2).to(torch.float8_e4m3fn)
    shape_a, shape_b = ((m, 1), (1, n)) if rowwise else ((), ())
    sa = torch.rand(shape_a, generator=g) * 1.75 + 0.25
    sb = torch.rand(shape_b, generator=g) * 1.75 + 0.25
    exact = (a.double() @ b.double().t()) * sa.double() * sb.double()
    dev = "cuda"
    if how == "f32 control":
        torch.backends.cuda.matmul.allow_tf32 = False
        got = (a.float().to(dev) @ b.float().to(dev).t()) * sa.to(dev) * sb.to(dev)
    else:
        got = torch._scaled_mm(a.to(dev), b.to(dev).t(), scale_a=sa.to(dev), scale_b=sb.to(dev), out_dtype=out,
                               use_fast_accum=(how == "fast_accum"))
    got = got.to(out).double().cpu()
    atol, rtol = TOL[out]
    allowed = math.sqrt(k) * (atol + rtol * exact.abs())
    excess = (got - exact).abs() / allowed
    return int((excess > 1).sum()), float(excess.max())


def main(argv):
    shapes = [tuple(int(v) for v in s.split("x")) for s in argv[1:]] or [(1040, 80, 1104), (1024, 1024, 1024),
                                                                          (4096, 4096, 4096)]
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print(f"{'m x n x k':>16} {'out':>8} {'scales':>10} {'path':>14} {'outside':>10} {'of':>10} {'worst':>9}")
    for m, n, k in shapes:
        for out in (torch.float32, torch.bfloat16):
            for rowwise in (False, True):
                for how in ("f32 control", "precise", "fast_accum"):
                    bad, worst = run(m, n, k, out, how, rowwise)
                    print(f"{m:>6}x{n}x{k:<6} {str(out)[6:]:>8} {'row-wise' if rowwise else 'tensor':>10} {how:>14} "
                          f"{bad:>10} {m * n:>10} {worst:>8.2f}x")


if __name__ == "__main__":
    main(sys.argv)
