#!/usr/bin/env python3
"""Per-call cost of a tiny op from Python: xdispatch.add on 1-element CPU tensors beside torch.add
(the PyTorch of the same interpreter) in one run. What it measures is the Python -> C++ -> dispatch
-> kernel -> new tensor -> Python path, not arithmetic.

    PYTHONPATH=build/default/python python3 bench/python_small_op.py [--reps N] [--calls N]

Each repetition times `calls` back-to-back calls with time.perf_counter_ns; the report is the
median (and the 10th/90th percentiles) over repetitions, in microseconds per call.
"""

import argparse
import statistics
import time


def per_call_us(fn, a, b, calls, reps):
    for _ in range(calls):  # warm-up: first-call costs (dispatch tables, allocator caches)
        fn(a, b)
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn(a, b)
        samples.append((time.perf_counter_ns() - t0) / calls / 1000.0)
    samples.sort()
    q = lambda p: samples[min(len(samples) - 1, int(p * len(samples)))]  # noqa: E731
    return statistics.median(samples), q(0.1), q(0.9)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()

    import torch
    import xdispatch as xd

    torch.set_num_threads(1)
    xa, xb = xd.ones(1), xd.ones(1)
    ta, tb = torch.ones(1), torch.ones(1)
    rows = [
        ("xdispatch.add", per_call_us(xd.add, xa, xb, args.calls, args.reps)),
        ("torch.add", per_call_us(torch.add, ta, tb, args.calls, args.reps)),
        ("xdispatch a + b", per_call_us(lambda a, b: a + b, xa, xb, args.calls, args.reps)),
        ("torch a + b", per_call_us(lambda a, b: a + b, ta, tb, args.calls, args.reps)),
    ]
    print(f"1-element f32 add on the CPU, {args.reps} repetitions x {args.calls} calls; torch {torch.__version__}")
    print(f"{'':18} {'median us':>10} {'p10':>8} {'p90':>8}")
    for name, (med, p10, p90) in rows:
        print(f"{name:18} {med:10.3f} {p10:8.3f} {p90:8.3f}")


if __name__ == "__main__":
    main()
