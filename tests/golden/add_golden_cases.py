#!/usr/bin/env python3
"""Adds golden cases computed by PyTorch to this folder (format xd-golden/1, docs/conformance.md).

Each case calls an op through torch on the CPU with seeded inputs, writes its inputs and expected
outputs as .npy files beside manifest.json, and adds the case to the manifest (replacing a case
of the same id), with the torch version in its note. The 88 cases of the shared sample are left
as they are.

    /usr/bin/python3 tests/golden/add_golden_cases.py            # every op below
    /usr/bin/python3 tests/golden/add_golden_cases.py maximum     # one op
    /usr/bin/python3 tests/golden/add_golden_cases.py graph       # the fixed graphs of xd-conform --compiled

Needs torch and numpy (Debian: python3-torch python3-numpy). A new op gets one entry in CASES:
its name (xdispatch's and torch's), how to draw its inputs and call it, and its tolerance.
"""
import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.json")
SEED = 1234

TORCH_DTYPES = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
                "i8": torch.int8, "u8": torch.uint8, "i32": torch.int32, "i64": torch.int64, "bool": torch.bool}


def to_numpy(t):
    """A tensor as the .npy files hold it: bf16 as its raw bits in uint16."""
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def special_floats(shape, dtype, gen):
    """Uniform values with NaN, +-Inf and +-0 mixed in, as xd-conform's special cases draw them."""
    x = torch.rand(shape, generator=gen, dtype=torch.float64) * 8 - 4
    flat = x.view(-1)
    specials = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0]
    for i in range(0, flat.numel(), 3):
        flat[i] = specials[(i // 3) % len(specials)]
    return x.to(dtype)


def distinct_values(shape, dtype, gen, specials=False):
    """A shuffled range: no two elements equal, each exact in the dtype (floats: odd multiples of
    1/8, never zero). With specials, each row (last dim) gets one NaN, +Inf, -Inf and -0 in random
    places, still with no two equal."""
    n = math.prod(shape)
    p = torch.randperm(n, generator=gen).to(torch.float64)
    if dtype == torch.uint8:
        x = p
    elif dtype.is_floating_point:
        x = (2 * (p - n // 2) + 1) / 8
    else:
        x = p - n // 2
    x = x.reshape(shape)
    if specials and shape and shape[-1] >= 4:
        for row in x.view(-1, shape[-1]):
            at = torch.randperm(shape[-1], generator=gen)[:4]
            row[at] = torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0], dtype=torch.float64)
    return x.to(dtype)


def operand(shape, dtype_name, gen, special, lo=-4.0, hi=4.0):
    dtype = TORCH_DTYPES[dtype_name]
    if special == "index":  # indices into a dim of size hi: [lo, hi)
        return torch.randint(int(lo), int(hi), shape, generator=gen, dtype=torch.int64).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen, dtype=torch.int64).to(dtype)
    if special in ("distinct", "distinct_special"):  # no two equal (topk: the indices of ties are unspecified)
        return distinct_values(shape, dtype, gen, special == "distinct_special")
    if dtype.is_floating_point:
        if special == "halves":  # multiples of 0.5 in [lo, hi): the ties of round, floor's -0.5
            return (torch.floor(torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) * 2) / 2 + lo).to(dtype)
        if special:
            return special_floats(shape, dtype, gen)
        return (torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
    lo, hi = (0, 200) if dtype == torch.uint8 else (-100, 100)
    return torch.randint(lo, hi, shape, generator=gen, dtype=torch.int64).to(dtype)


def binary_cases(op, fn):
    """Broadcasting two-operand cases of every dtype xdispatch's `op` takes: equal shapes, both
    broadcasting ways, a 0-d operand, and special values (floating dtypes)."""
    shapes = [([7], [7]), ([5, 1, 3], [4, 1]), ([], [2, 3]), ([6, 5], [6, 5])]
    cases = []
    for dtype in ["f32", "f64", "f16", "bf16", "i32", "i8", "u8", "i64"]:
        floating = TORCH_DTYPES[dtype].is_floating_point
        for i, (sa, sb) in enumerate(shapes):
            special = floating and i == len(shapes) - 1
            if not floating and i == len(shapes) - 1:
                continue
            cases.append({"op": op, "dtype": dtype, "index": i, "attrs": {},
                          "inputs": {"self": (sa, dtype, special), "other": (sb, dtype, special)},
                          "call": lambda t, fn=fn: {"out": fn(t["self"], t["other"])},
                          "rtol": 0.0, "atol": 0.0, "note": "special values" if special else ""})
    return cases


def in_float(fn, dtype):
    """fn computed in float32 and rounded once to `dtype` (f16, bf16): how xdispatch and PyTorch 2's CPU
    kernels compute clamp/floor/round of those dtypes. torch 1.13's CPU has no f16 clamp, floor or
    round, and rounds each step of round(decimals) to bf16, so those cases are computed this way
    (for clamp, floor and decimals 0 it is exact: the result is an element, a bound or a whole number)."""
    if dtype in (torch.float16, torch.bfloat16):
        return lambda x: fn(x.float()).to(dtype)
    return fn


def unary_cases(op, settings, int_settings, halves=False):
    """Cases of a unary op with attributes: for every dtype xdispatch's `op` takes, each setting
    (shape, attrs, fn(x, dtype) -> torch result, input range) of the floating or integer list. The
    floating list ends with special values; `halves` adds multiples of 0.5 (ties)."""
    cases = []
    for dtype in ["f32", "f64", "f16", "bf16", "i32", "i8", "u8", "i64"]:
        dt = TORCH_DTYPES[dtype]
        floating = dt.is_floating_point
        rows = list(settings if floating else int_settings)
        if floating and halves:
            rows.append(([24], rows[0][1], rows[0][2], "halves"))
        for i, row in enumerate(rows):
            shape, attrs, fn = row[0], row[1], row[2]
            mode = row[3] if len(row) > 3 else False
            rng = row[4] if len(row) > 4 else ()
            note = {"halves": "multiples of 0.5", True: "special values"}.get(mode, "")
            if dtype in ("f16", "bf16"):
                note += ("; " if note else "") + "f16/bf16 as in_float() describes"
            cases.append({"op": op, "dtype": dtype, "index": i, "attrs": attrs,
                          "inputs": {"self": (shape, dtype, mode, *rng)},
                          "call": lambda t, fn=fn, dt=dt: {"out": fn(t["self"], dt)},
                          "rtol": 0.0, "atol": 0.0, "note": note})
    return cases


def clamp_cases():
    def clamp(lo, hi):
        def fn(x, dt):
            if dt == torch.float16:  # the bounds in f16 first, as PyTorch converts them to the dtype
                lo16 = None if lo is None else float(torch.tensor(lo, dtype=dt))
                hi16 = None if hi is None else float(torch.tensor(hi, dtype=dt))
                return torch.clamp(x.float(), min=lo16, max=hi16).to(dt)
            return torch.clamp(x, min=lo, max=hi)
        return fn

    def row(shape, lo, hi, mode=False):
        return (shape, {"min": lo, "max": hi}, clamp(lo, hi), mode)
    floating = [row([7], -1.0, 2.0), row([5, 3], 0.5, None), row([], None, -0.25), row([4, 4], 2.0, -1.0),
                row([3, 5], -1.001, 1.3), row([6, 5], -1.5, 1.25, True)]
    integer = [row([7], -20, 30), row([5, 3], 40, None), row([], None, 25), row([4, 4], 30, -20)]
    return unary_cases("clamp", floating, integer)


def floor_cases():
    fn = lambda x, dt: in_float(torch.floor, dt)(x)
    return unary_cases("floor", [([7], {}, fn), ([5, 3], {}, fn), ([], {}, fn), ([6, 5], {}, fn, True)],
                       [([7], {}, fn), ([], {}, fn)], halves=True)


def round_cases():
    def rnd(d):
        # torch.round(x, decimals=0) takes floating dtypes only; torch.round(x) copies integers.
        return lambda x, dt: in_float(lambda v: torch.round(v, decimals=d) if d else torch.round(v), dt)(x)

    def row(shape, d, mode=False, rng=()):
        return (shape, {"decimals": d}, rnd(d), mode, rng)
    floating = [row([7], 0), row([5, 3], 1), row([9], 2), row([4, 4], -1, False, (-60.0, 60.0)), row([], 0),
                row([6, 5], 0, True)]
    return unary_cases("round", floating, [row([7], 0), row([], 0)], halves=True)


def graph_cases():
    """The fixed graphs of `xd-conform --compiled` (tools/xd-conform/compiled/fixed_graphs.cpp),
    run there through xd::compile. Each op is computed in float32 (float64 for f64) and rounded to
    the case's dtype, as xdispatch's kernels and PyTorch's CPU kernels for f16/bf16 do, so the
    expected outputs have every intermediate rounding the compiled graph must keep.
    rms_norm (not in torch 1.13) is x * rsqrt(mean(x^2) + eps) * weight over the last dim,
    computed in float32 and rounded once. Tolerances: f16 and bf16 the dtype's (one unit in the
    last place: the roundings are the same ones), f32 assert_close's widened for chains of a few
    ops; all of them by sqrt(K) where a matmul sums K terms."""
    def graph_ops(dt):
        compute = torch.float64 if dt == torch.float64 else torch.float32

        def op(fn):
            return lambda *a: fn(*[t.to(compute) for t in a]).to(dt)
        return op

    def chain6(t, dt):
        op = graph_ops(dt)
        x, y = t["x"], t["y"]
        half = torch.tensor(0.5, dtype=dt)
        a = op(torch.add)(op(torch.mul)(x, half), y)
        b = op(torch.sub)(op(torch.mul)(op(torch.nn.functional.gelu)(a), y), x)
        return {"out0": op(torch.exp)(op(torch.tanh)(b))}

    def silu_mul_add(t, dt):
        op = graph_ops(dt)
        return {"out0": op(torch.add)(op(torch.mul)(op(torch.nn.functional.silu)(t["x"]), t["y"]), t["z"])}

    def silu_rms_norm(t, dt):
        op = graph_ops(dt)

        def rms_norm(x, w):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
        return {"out0": op(torch.nn.functional.silu)(op(rms_norm)(t["x"], t["weight"]))}

    def llama_mlp(t, dt):
        op = graph_ops(dt)
        mm, x = op(torch.mm), t["x"]
        h = op(torch.mul)(op(torch.nn.functional.silu)(mm(x, t["w_gate"])), mm(x, t["w_up"]))
        return {"out0": mm(h, t["w_down"])}

    def softmax_chain(t, dt):
        op = graph_ops(dt)
        half, four = torch.tensor(0.5, dtype=dt), torch.tensor(4.0, dtype=dt)
        s = op(torch.mul)(op(torch.tanh)(op(torch.add)(op(torch.mul)(t["x"], half), t["y"])), four)
        return {"out0": op(lambda v: torch.softmax(v, -1))(s), "out1": s}

    graphs = [
        ("chain6", chain6, {"x": ([8, 33], -3, 3), "y": ([8, 33], -3, 3)}, 1),
        ("silu_mul_add", silu_mul_add, {"x": ([6, 17], -3, 3), "y": ([17], -3, 3), "z": ([6, 1], -3, 3)}, 1),
        ("silu_rms_norm", silu_rms_norm, {"x": ([5, 64], -3, 3), "weight": ([64], 0.5, 1.5)}, 1),
        ("llama_mlp", llama_mlp, {"x": ([4, 32], -2, 2), "w_gate": ([32, 48], -0.25, 0.25),
                                  "w_up": ([32, 48], -0.25, 0.25), "w_down": ([48, 32], -0.25, 0.25)}, 48),
        ("softmax_chain", softmax_chain, {"x": ([6, 40], -3, 3), "y": ([40], -3, 3)}, 1),
    ]
    base = {"f32": (1e-5, 1e-5), "f16": (1e-3, 1e-5), "bf16": (1.6e-2, 1e-5)}
    cases = []
    for name, fn, inputs, k in graphs:
        for dtype in ["f32", "f16", "bf16"]:
            rtol, atol = (v * k ** 0.5 for v in base[dtype])
            dt = TORCH_DTYPES[dtype]
            cases.append({"op": "graph", "graph": name, "dtype": dtype, "index": 0, "attrs": {},
                          "inputs": {n: (shape, dtype, False, lo, hi) for n, (shape, lo, hi) in inputs.items()},
                          "call": lambda t, fn=fn, dt=dt: fn(t, dt),
                          "rtol": rtol, "atol": atol, "note": "graph " + name + " through xd::compile"})
    return cases


def index_select_cases():
    """index_select on every dtype: each dim, a negative dim, repeated indices (more draws than the
    dim has entries), an i32 index, a 0-d index and a 0-d self, an empty index, special values."""
    def row(shape, dim, n_index, index_dtype="i64", mode=False):
        size = 1 if not shape else shape[dim]
        return (shape, dim, n_index, index_dtype, mode, size)
    rows = [row([5, 4], 0, [7]), row([5, 4], 1, [3]), row([3, 5, 4], -1, [6], "i32"), row([3, 5, 4], 1, [5]),
            row([6], 0, [0]), row([6], 0, []), row([], 0, [])]
    cases = []
    for dtype in ["f32", "f64", "f16", "bf16", "i32", "i8", "u8", "i64", "bool"]:
        floating = TORCH_DTYPES[dtype].is_floating_point
        special = [row([6, 5], 1, [8], "i64", True)] if floating else []
        for i, (shape, dim, n_index, index_dtype, mode, size) in enumerate(rows + special):
            cases.append({"op": "index_select", "dtype": dtype, "index": i, "attrs": {"dim": dim},
                          "inputs": {"self": (shape, dtype, mode), "index": (n_index, index_dtype, "index", 0, size)},
                          "call": lambda t, dim=dim: {"out": torch.index_select(t["self"], dim, t["index"])},
                          "rtol": 0.0, "atol": 0.0, "note": "special values" if mode else ""})
    return cases


def gather_cases():
    """gather on every dtype: each dim, a negative dim, an index smaller than self outside dim and
    larger along it, an i32 index, 0-d self and index, an empty index, special values."""
    rows = [([5, 4], 0, [7, 3], "i64", False), ([5, 4], 1, [2, 6], "i64", False),
            ([3, 5, 4], -1, [3, 2, 6], "i32", False), ([3, 5, 4], 1, [2, 8, 4], "i64", False),
            ([6], 0, [0], "i64", False), ([], 0, [], "i64", False)]
    cases = []
    for dtype in ["f32", "f64", "f16", "bf16", "i32", "i8", "u8", "i64", "bool"]:
        floating = TORCH_DTYPES[dtype].is_floating_point
        special = [([6, 5], 1, [6, 8], "i64", True)] if floating else []
        for i, (shape, dim, ishape, index_dtype, mode) in enumerate(rows + special):
            size = 1 if not shape else shape[dim]
            cases.append({"op": "gather", "dtype": dtype, "index": i, "attrs": {"dim": dim},
                          "inputs": {"self": (shape, dtype, mode), "index": (ishape, index_dtype, "index", 0, size)},
                          "call": lambda t, dim=dim: {"out": torch.gather(t["self"], dim, t["index"].long())},
                          "rtol": 0.0, "atol": 0.0, "note": "special values" if mode else ""})
    return cases


def layer_norm_rows():
    """(shape, normalized_shape, weight, bias, eps) of the layer_norm cases."""
    return [([4, 16], [16], True, True, None), ([2, 3, 8], [3, 8], True, False, None), ([5, 7], [7], False, False, None),
            ([3, 1], [1], True, True, 1e-3), ([2, 33], [33], True, True, 1e-3), ([0, 5], [5], True, True, None)]


def layer_norm_compute(dt):
    """torch's f32 kernels for f16 and bf16 (PyTorch's opmath: statistics in f32, the output rounded once
    to the dtype, mean and rstd f32); f64 and f32 directly."""
    compute = torch.float64 if dt == torch.float64 else torch.float32
    return lambda t: None if t is None else t.to(compute)


def layer_norm_cases():
    """native_layer_norm in every float dtype: one and two normalized dims, with and without weight
    and bias, size-1 rows, eps, an empty batch. Tolerances: one or two units of the dtype's last place
    (f32 widened by sqrt(N) for the sums)."""
    tol = {"f64": 1e-12, "f32": 2e-5, "f16": 2e-3, "bf16": 1.6e-2}
    cases = []
    for dtype in ["f32", "f64", "f16", "bf16"]:
        dt = TORCH_DTYPES[dtype]
        up = layer_norm_compute(dt)
        for i, (shape, norm, w, b, eps) in enumerate(layer_norm_rows()):
            inputs = {"input": (shape, dtype, False)}
            if w:
                inputs["weight"] = (norm, dtype, False, 0.5, 1.5)
            if b:
                inputs["bias"] = (norm, dtype, False, -1.0, 1.0)
            attrs = {"normalized_shape": norm}
            if eps is not None:
                attrs["eps"] = eps

            def call(t, norm=norm, eps=eps, dt=dt, up=up):
                y, mean, rstd = torch.native_layer_norm(up(t["input"]), norm, up(t.get("weight")), up(t.get("bias")),
                                                        1e-5 if eps is None else eps)
                return {"output": y.to(dt), "mean": mean, "rstd": rstd}
            cases.append({"op": "layer_norm", "dtype": dtype, "index": i, "attrs": attrs, "inputs": inputs, "call": call,
                          "rtol": tol[dtype], "atol": tol[dtype], "note": "f16/bf16 through torch's f32 kernel"})
    return cases


def layer_norm_backward_cases():
    """native_layer_norm_backward on layer_norm's shapes, mean and rstd as torch's forward gives them for
    the case's input, every output_mask pattern PyTorch's autograd uses. Tolerances wider than the
    forward's: grad_input subtracts two row means (cancellation), grad_weight and grad_bias sum over rows."""
    tol = {"f64": 1e-10, "f32": 1e-4, "f16": 1e-2, "bf16": 5e-2}
    masks = [[True, True, True], [True, False, False], [False, True, True]]
    cases = []
    index = {}
    for dtype in ["f32", "f64", "f16", "bf16"]:
        dt = TORCH_DTYPES[dtype]
        up = layer_norm_compute(dt)
        for i, (shape, norm, w, b, eps) in enumerate(layer_norm_rows()):
            mask = masks[i % len(masks)]
            if not w and not mask[0]:
                mask = masks[0]
            inputs = {"grad_out": (shape, dtype, False, -1.0, 1.0), "input": (shape, dtype, False)}
            if w:
                inputs["weight"] = (norm, dtype, False, 0.5, 1.5)
            if b:
                inputs["bias"] = (norm, dtype, False, -1.0, 1.0)
            e = 1e-5 if eps is None else eps

            def derive(t, norm=norm, e=e, up=up):
                _, mean, rstd = torch.native_layer_norm(up(t["input"]), norm, None, None, e)
                return {"mean": mean, "rstd": rstd}

            def call(t, norm=norm, mask=mask, dt=dt, up=up):
                # torch asks for a gradient only of a parameter it has (as xdispatch leaves it out).
                asked = [mask[0], mask[1] and "weight" in t, mask[2] and "bias" in t]
                gi, gw, gb = torch.ops.aten.native_layer_norm_backward(
                    up(t["grad_out"]), up(t["input"]), norm, t["mean"], t["rstd"], up(t.get("weight")),
                    up(t.get("bias")), asked)
                out = {}
                if mask[0]:
                    out["grad_input"] = gi.to(dt)
                if mask[1] and "weight" in t:
                    out["grad_weight"] = gw.to(dt)
                if mask[2] and "bias" in t:
                    out["grad_bias"] = gb.to(dt)
                return out
            index[dtype] = index.get(dtype, -1) + 1
            cases.append({"op": "layer_norm_backward", "dtype": dtype, "index": index[dtype],
                          "attrs": {"normalized_shape": norm, "output_mask": mask}, "inputs": inputs, "derive": derive,
                          "call": call, "rtol": tol[dtype], "atol": tol[dtype],
                          "note": "mean and rstd from torch.native_layer_norm; f16/bf16 through torch's f32 kernel"})
    return cases


def sdpa_reference(t, causal, scale):
    """PyTorch 2's math path of scaled_dot_product_attention in f64, cast to the case's dtype."""
    q, k, v = (t[n].double() for n in ("query", "key", "value"))
    s = q @ k.transpose(-2, -1) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if causal:
        s = s.masked_fill(~torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(), float("-inf"))
    if "attn_mask" in t:
        m = t["attn_mask"]
        s = s + (torch.zeros(m.shape, dtype=torch.float64).masked_fill(~m, float("-inf"))
                 if m.dtype == torch.bool else m.double())
    return (torch.softmax(s, -1) @ v).to(t["query"].dtype)


def sdpa_cases():
    """scaled_dot_product_attention. torch 1.13 has no F.scaled_dot_product_attention, so the
    expected output is its math path composed of torch ops in f64 (sdpa_reference:
    softmax(q @ k^T * scale + mask) @ v, a bool mask as 0 / -inf, is_causal as tril(ones(L, S))),
    cast once to the case's dtype. L != S, E != Ev, causal with L > S, bool masks (3 keys: rows
    with every key masked, NaN) and a float mask broadcast, broadcast leading dims, an explicit
    scale, S = 0 (zeros)."""
    rows = [  # query, key, value, (mask shape, bool?) or None, is_causal, scale
        ([5, 8], [7, 8], [7, 3], None, False, None),
        ([2, 3, 33, 16], [2, 3, 45, 16], [2, 3, 45, 24], None, False, None),
        ([2, 40, 8], [2, 40, 8], [2, 40, 8], None, True, None),
        ([1, 20, 8], [1, 9, 8], [1, 9, 4], None, True, None),
        ([2, 9, 8], [2, 3, 8], [2, 3, 5], ([2, 9, 3], True), False, None),
        ([2, 2, 17, 8], [2, 2, 20, 8], [2, 2, 20, 8], ([17, 20], True), False, None),
        ([2, 2, 17, 8], [2, 2, 20, 8], [2, 2, 20, 8], ([2, 1, 17, 20], False), False, 0.3),
        ([2, 1, 6, 8], [1, 3, 9, 8], [1, 3, 9, 8], None, False, None),
        ([2, 4, 8], [2, 0, 8], [2, 0, 4], None, False, None),
    ]
    tol = {"f64": 1e-10, "f32": 2e-5, "f16": 4e-3, "bf16": 3e-2}
    cases = []
    for dtype in ["f32", "f64", "f16", "bf16"]:
        for i, (qs, ks, vs, mask, causal, scale) in enumerate(rows):
            inputs = {"query": (qs, dtype, False, -2.0, 2.0), "key": (ks, dtype, False, -2.0, 2.0),
                      "value": (vs, dtype, False)}
            if mask:
                inputs["attn_mask"] = (mask[0], "bool" if mask[1] else dtype, False)
            cases.append({"op": "scaled_dot_product_attention", "dtype": dtype, "index": i,
                          "attrs": {"is_causal": causal, "scale": scale}, "inputs": inputs,
                          "call": lambda t, c=causal, s=scale: {"out": sdpa_reference(t, c, s)},
                          "rtol": tol[dtype], "atol": tol[dtype],
                          "note": "expected: softmax(q @ k^T * scale + mask) @ v in f64 by torch ops (torch 1.13 "
                                  "lacks F.scaled_dot_product_attention)"})
    return cases


def conv2d_cases():
    """conv2d: torch.nn.functional.conv2d in f64 on the f64 copies of the drawn inputs, cast once
    to the case's dtype. 3x3 with padding, groups with a non-square stride, dilation without bias,
    depthwise, an unbatched 1x1, padding "same" with an even kernel and "valid" with a kernel the
    input's size, a stride that does not divide the input, an empty batch."""
    rows = [  # input, weight, bias?, stride, padding, dilation, groups
        ([1, 3, 8, 8], [4, 3, 3, 3], True, [1, 1], [1, 1], [1, 1], 1),
        ([2, 4, 9, 7], [6, 2, 3, 2], True, [2, 1], [1, 0], [1, 1], 2),
        ([2, 3, 10, 10], [5, 3, 3, 3], False, [1, 1], [2, 2], [2, 2], 1),
        ([1, 4, 6, 6], [4, 1, 3, 3], True, [1, 1], [1, 1], [1, 1], 4),
        ([3, 5, 5], [2, 3, 1, 1], True, [1, 1], [0, 0], [1, 1], 1),
        ([1, 2, 7, 6], [3, 2, 4, 3], True, [1, 1], "same", [1, 2], 1),
        ([1, 3, 7, 7], [2, 3, 7, 7], True, [1, 1], "valid", [1, 1], 1),
        ([2, 3, 12, 12], [8, 3, 5, 5], True, [3, 3], [2, 2], [1, 1], 1),
        ([0, 3, 5, 5], [2, 3, 3, 3], True, [1, 1], [1, 1], [1, 1], 1),
    ]
    tol = {"f64": 1e-10, "f32": 1e-4, "f16": 5e-3, "bf16": 3e-2}
    cases = []
    for dtype in ["f32", "f64", "f16", "bf16"]:
        for i, (xs, ws, bias, stride, padding, dilation, groups) in enumerate(rows):
            inputs = {"input": (xs, dtype, False, -1.0, 1.0), "weight": (ws, dtype, False, -1.0, 1.0)}
            if bias:
                inputs["bias"] = ([ws[0]], dtype, False, -1.0, 1.0)

            def call(t, s=stride, p=padding, d=dilation, g=groups):
                b = t["bias"].double() if "bias" in t else None
                out = torch.nn.functional.conv2d(t["input"].double(), t["weight"].double(), b, s, p, d, g)
                return {"out": out.to(t["input"].dtype)}

            cases.append({"op": "conv2d", "dtype": dtype, "index": i,
                          "attrs": {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups},
                          "inputs": inputs, "call": call, "rtol": tol[dtype], "atol": tol[dtype],
                          "note": "expected: F.conv2d in f64, cast to the dtype"})
    return cases


def pool_cases(op):
    """max_pool2d (values and indices, as max_pool2d_with_indices) and avg_pool2d: square and
    rectangular kernels, the default stride, padding, dilation, ceil_mode (a last window hanging
    past the input, and [1, 1, 5, 5] k2 s2 p1, where the window that would start in the right
    padding is dropped), count_include_pad both ways, divisor_override (positive, negative), an
    unbatched input, an empty batch, special values and (max) a window with no tap in the input
    (-inf, index 2). torch 1.13's CPU has no f16 pooling, so f16 and bf16 run torch's f32 kernel
    and are rounded once, which is how PyTorch 2's CPU kernels compute them (max exactly; avg sums
    in float and divides once in float)."""
    F = torch.nn.functional
    max_rows = [  # shape, kernel, stride (None: the kernel), padding, dilation, ceil_mode, special, indices
        ([1, 1, 4, 5], [3], [2], [1], [1], True, False, True),
        ([2, 3, 7, 9], [3], [2], [1], [1], False, False, False),
        ([2, 3, 7, 9], [3, 2], [2, 1], [1, 0], [2, 1], False, False, True),
        ([1, 2, 5, 5], [2], [2], [0], [1], True, False, True),
        ([2, 3, 10, 11], [3], [3], [1], [1], True, False, True),
        ([1, 1, 5, 5], [2], [2], [1], [1], True, False, True),
        ([3, 6, 7], [2], None, [0], [1], False, False, True),
        ([2, 2, 9, 9], [3], [2], [1], [1], False, True, True),
        ([1, 2, 1, 1], [2], [1], [1], [2], False, False, True),
        ([0, 2, 4, 4], [2], None, [0], [1], False, False, True),
    ]
    avg_rows = [  # shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, special
        ([1, 1, 4, 5], [3], [2], [1], True, True, None, False),
        ([2, 3, 7, 9], [3], [2], [1], False, False, None, False),
        ([2, 3, 7, 9], [3, 2], [2, 1], [1, 0], False, True, None, False),
        ([1, 2, 5, 5], [2], [2], [0], True, True, None, False),
        ([2, 3, 10, 11], [3], [3], [1], True, False, None, False),
        ([2, 3, 10, 11], [3], [3], [1], True, True, 5, False),
        ([3, 6, 7], [2], None, [0], False, True, -2, False),
        ([1, 1, 5, 5], [2], [2], [1], True, True, None, False),
        ([1, 1, 5, 5], [2], [2], [1], True, False, None, False),
        ([2, 2, 9, 9], [3], [2], [1], False, True, None, True),
    ]
    tol = {"f64": 1e-12, "f32": 1e-6, "f16": 1e-3, "bf16": 8e-3}
    cases = []
    for dtype in ["f32", "f64", "f16", "bf16"]:
        dt = TORCH_DTYPES[dtype]
        up = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
        if op == "max_pool2d":
            for i, (shape, k, s, p, d, ceil, special, indices) in enumerate(max_rows):
                def call(t, k=k, s=s, p=p, d=d, ceil=ceil, indices=indices, dt=dt, up=up):
                    o, ind = F.max_pool2d(t["self"].to(up), k, s, p, d, ceil, return_indices=True)
                    return {"out": o.to(dt), "indices": ind} if indices else {"out": o.to(dt)}
                cases.append({"op": op, "dtype": dtype, "index": i,
                              "attrs": {"kernel_size": k, "stride": s, "padding": p, "dilation": d, "ceil_mode": ceil,
                                        "return_indices": indices},
                              "inputs": {"self": (shape, dtype, special)}, "call": call, "rtol": 0.0, "atol": 0.0,
                              "note": ("special values; " if special else "") + "f16/bf16 through torch's f32 kernel"})
        else:
            for i, (shape, k, s, p, ceil, cip, div, special) in enumerate(avg_rows):
                def call(t, k=k, s=s, p=p, ceil=ceil, cip=cip, div=div, dt=dt, up=up):
                    return {"out": F.avg_pool2d(t["self"].to(up), k, s, p, ceil, cip, div).to(dt)}
                cases.append({"op": op, "dtype": dtype, "index": i,
                              "attrs": {"kernel_size": k, "stride": s, "padding": p, "ceil_mode": ceil,
                                        "count_include_pad": cip, "divisor_override": div},
                              "inputs": {"self": (shape, dtype, special)}, "call": call, "rtol": tol[dtype],
                              "atol": tol[dtype],
                              "note": ("special values; " if special else "") + "f16/bf16 through torch's f32 kernel"})
    return cases


def cumsum_reference(t, dim, dtype):
    """torch.cumsum; f16 (which torch 1.13's CPU kernel lacks) as torch 2 computes it: a running
    f32 sum rounded once per output."""
    if dtype is not None:
        t = t.to(dtype)  # what torch.cumsum(t, dim, dtype=dtype) does first
    if t.dtype == torch.float16:
        return torch.cumsum(t.float(), dim).half()
    return torch.cumsum(t, dim, dtype=dtype)


def cumsum_cases():
    """cumsum: every dtype it is keyed on (the result's), each dim, a negative dim, 0-d and empty
    inputs, special values; bool and integer inputs widened to i64, and the dtype argument
    (narrow integers wrap, floats truncate to an integer dtype, f32 to f64)."""
    rows = [([7], 0), ([5, 9], 0), ([5, 9], 1), ([3, 4, 6], -1), ([], 0), ([0, 4], 1)]
    # torch's CPU kernel sums f32 in double: other roundings than an f32 running sum.
    tol = {"f64": (1e-12, 1e-12), "f32": (2e-6, 1e-5), "f16": (1e-3, 1e-4), "bf16": (8e-3, 1e-3)}
    cases = []
    for key in ["f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64"]:
        floating = TORCH_DTYPES[key].is_floating_point
        # i8, u8 and i32 results exist only when asked for (dtype=); i64 from an i64 input.
        given = None if floating or key == "i64" else key
        special = [([4, 10], 1, True)] if floating else []
        for i, (shape, dim, *sp) in enumerate([(s, d) for s, d in rows] + special):
            rtol, atol = tol.get(key, (0.0, 0.0))
            cases.append({"op": "cumsum", "dtype": key, "index": i, "attrs": {"dim": dim, "dtype": given},
                          "inputs": {"self": (shape, key, bool(sp))},
                          "call": lambda t, dim=dim, g=given: {"out": cumsum_reference(
                              t["self"], dim, None if g is None else TORCH_DTYPES[g])},
                          "rtol": rtol, "atol": atol, "note": "special values" if sp else ""})
    extra = [("i64", "bool", None, [6, 11]), ("i64", "i32", None, [6, 11]), ("i64", "u8", None, [4, 9]),
             ("i32", "f32", "i32", [5, 8]), ("f64", "f32", "f64", [5, 8]), ("f16", "f32", "f16", [3, 40])]
    for j, (key, src, given, shape) in enumerate(extra):
        rtol, atol = tol.get(key, (0.0, 0.0))
        cases.append({"op": "cumsum", "dtype": key, "index": 10 + j, "attrs": {"dim": 1, "dtype": given},
                      "inputs": {"self": (shape, src, False, -20.0, 20.0)},
                      "call": lambda t, g=given: {"out": cumsum_reference(
                          t["self"], 1, None if g is None else TORCH_DTYPES[g])},
                      "rtol": rtol, "atol": atol, "note": f"{src} input" + (f", dtype={given}" if given else "")})
    return cases


def topk_cases():
    """topk: every dtype, each dim, k = 0, 1 and the dim's size, largest and smallest, 0-d and
    empty inputs, a row longer than the XPU kernel's local sort (f32, f64, i32, i64: the dtypes
    that hold 3000 distinct values), special values. Inputs have no two equal elements, so the
    indices are compared too (torch leaves the indices of ties unspecified). sorted=True only:
    with sorted=False torch's order is its own."""
    rows = [([7], 0, 3, True), ([5, 12], 1, 5, True), ([6, 9], 0, 6, False), ([3, 4, 5], 1, 2, False),
            ([3, 4, 5], -1, 1, True), ([], 0, 1, True), ([], 0, 0, False), ([4, 0], 1, 0, True),
            ([2, 120], 1, 120, False)]
    cases = []
    for dtype in ["f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64"]:
        floating = TORCH_DTYPES[dtype].is_floating_point
        extra = [([2, 3000], 1, 40, False, False), ([2, 3000], 1, 2100, True, False)] if dtype in (
            "f32", "f64", "i32", "i64") else []
        if floating:
            extra += [([5, 12], 1, 6, True, True), ([5, 12], 1, 12, False, True)]
        for i, (shape, dim, k, largest, *sp) in enumerate(rows + extra):
            special = bool(sp) and sp[-1]

            def call(t, dim=dim, k=k, largest=largest):
                x = t["self"]
                v, ix = torch.topk(x.float() if x.dtype == torch.float16 else x, k, dim, largest)
                return {"values": v.to(x.dtype), "indices": ix}
            cases.append({"op": "topk", "dtype": dtype, "index": i,
                          "attrs": {"k": k, "dim": dim, "largest": largest, "sorted": True},
                          "inputs": {"self": (shape, dtype, "distinct_special" if special else "distinct")},
                          "call": call, "rtol": 0.0, "atol": 0.0,
                          "note": ("special values; " if special else "") + "no ties" +
                                  ("; f16 through f32 (torch 1.13 has no f16 topk on the CPU)" if dtype == "f16" else "")})
    return cases


# One entry per op: the cases it contributes ("graph": the fixed graphs of xd-conform --compiled).
CASES = {
    "maximum": lambda: binary_cases("maximum", torch.maximum),
    "minimum": lambda: binary_cases("minimum", torch.minimum),
    "ne": lambda: binary_cases("ne", torch.ne),
    "ge": lambda: binary_cases("ge", torch.ge),
    "le": lambda: binary_cases("le", torch.le),
    "clamp": clamp_cases,
    "floor": floor_cases,
    "round": round_cases,
    "index_select": index_select_cases,
    "layer_norm": layer_norm_cases,
    "layer_norm_backward": layer_norm_backward_cases,
    "gather": gather_cases,
    "scaled_dot_product_attention": sdpa_cases,
    "conv2d": conv2d_cases,
    "max_pool2d": lambda: pool_cases("max_pool2d"),
    "avg_pool2d": lambda: pool_cases("avg_pool2d"),
    "cumsum": cumsum_cases,
    "topk": topk_cases,
    "graph": graph_cases,
}


def tensor_entry(case_id, role, name, t, files):
    dtype = next(k for k, v in TORCH_DTYPES.items() if v == t.dtype)
    fname = f"{case_id.replace('/', '_')}.{role}.{name}.npy"
    np.save(os.path.join(HERE, fname), to_numpy(t))
    files.append(fname)
    return {"name": name, "file": fname, "dtype": dtype, "shape": list(t.shape)}


def make(spec, gen):
    case_id = f"{spec['op']}/{spec['dtype']}/{spec['index']}"
    if "graph" in spec:
        case_id = f"graph/{spec['graph']}/{spec['dtype']}/{spec['index']}"
    tensors = {name: operand(shape, dtype, gen, special, *rng) for name, (shape, dtype, special, *rng) in spec["inputs"].items()}
    if "derive" in spec:  # inputs computed from the drawn ones (a backward's saved statistics)
        tensors.update(spec["derive"](tensors))
    outputs = spec["call"](tensors)
    files = []
    note = f"generated by tests/golden/add_golden_cases.py with torch {torch.__version__} on the CPU"
    if spec["note"]:
        note += "; " + spec["note"]
    entry = {
        "id": case_id, "op": spec["op"], "dtype": spec["dtype"], "attrs": spec["attrs"],
        "inputs": [tensor_entry(case_id, "in", n, t, files) for n, t in tensors.items()],
        "outputs": [tensor_entry(case_id, "out", n, t, files) for n, t in outputs.items()],
        "rtol": spec["rtol"], "atol": spec["atol"], "note": note,
    }
    if "graph" in spec:
        entry["graph"] = spec["graph"]
    return entry


def main(argv):
    ops = argv[1:] or sorted(CASES)
    unknown = [op for op in ops if op not in CASES]
    if unknown:
        sys.exit(f"add_golden_cases.py: no cases for {', '.join(unknown)}; known: {', '.join(sorted(CASES))}")
    with open(MANIFEST) as f:
        manifest = json.load(f)
    gen = torch.Generator().manual_seed(SEED)
    new = [make(spec, gen) for op in ops for spec in CASES[op]()]
    ids = {c["id"] for c in new}
    manifest["cases"] = [c for c in manifest["cases"] if c["id"] not in ids] + new
    with open(MANIFEST, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"{len(new)} cases of {', '.join(ops)} written; the manifest holds {len(manifest['cases'])}")


if __name__ == "__main__":
    main(sys.argv)
