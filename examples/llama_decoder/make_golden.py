"""Writes the PyTorch reference of examples/llama_decoder: one LLaMA decoder layer's weights, its
input and its outputs (f32 weights, TorchAO's int8 weight-only, and int4 per xdispatch's
quantize_int4 formula), computed in float64 by PyTorch (Debian's python3-torch, 1.13).

Usage: /usr/bin/python3 examples/llama_decoder/make_golden.py [OUT_DIR]  (default: golden/ beside
this file). Files: config.txt (key value lines) and one raw little-endian float32 file per tensor,
row-major, named <tensor>.f32."""

import math
import os
import sys

import torch

DIM, HEADS, SEQ, HIDDEN, THETA, EPS, GROUP = 64, 4, 12, 192, 10000.0, 1e-5, 32
HEAD_DIM = DIM // HEADS


def rms_norm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


def rotary_tables(seq, head_dim):
    """cos and sin [seq, head_dim] for the rotate-half form: angle(p, i) = p * theta^(-2i/d) for
    i < d/2, repeated over both halves. Computed in f64 and rounded to f32, as the example does."""
    freqs = torch.tensor([THETA ** (-2.0 * i / head_dim) for i in range(head_dim // 2)], dtype=torch.float64)
    angles = torch.arange(seq, dtype=torch.float64)[:, None] * freqs[None, :]
    angles = torch.cat([angles, angles], -1)
    return angles.cos().float().double(), angles.sin().float().double()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], -1)


def layer(x, w, linear):
    """One decoder layer; linear(name, input) applies weight `name` ([out, in], nn.Linear's)."""
    cos, sin = rotary_tables(SEQ, HEAD_DIM)
    h = rms_norm(x, w["attention_norm"])
    q, k, v = (linear(n, h).view(SEQ, HEADS, HEAD_DIM) for n in ("wq", "wk", "wv"))
    q = q * cos[:, None, :] + rotate_half(q) * sin[:, None, :]
    k = k * cos[:, None, :] + rotate_half(k) * sin[:, None, :]
    q, k, v = (t.transpose(0, 1) for t in (q, k, v))  # [heads, seq, head_dim]
    scores = q @ k.transpose(-1, -2) / math.sqrt(HEAD_DIM)
    causal = torch.full((SEQ, SEQ), float("-inf"), dtype=torch.float64).triu(1)
    attn = torch.softmax(scores + causal, -1) @ v
    h2 = x + linear("wo", attn.transpose(0, 1).reshape(SEQ, DIM))
    f = rms_norm(h2, w["ffn_norm"])
    return h2 + linear("w2", torch.nn.functional.silu(linear("w1", f)) * linear("w3", f))


def int8_weight(w):
    """TorchAO's dynamically_quantize_per_channel(w, -128, 127, torch.int8) on an f32 weight,
    dequantized: the codes and scales xdispatch's quantize_int8 gives bit for bit."""
    amax = w.abs().amax(1)
    scales = torch.clamp(amax / 127.5, min=torch.finfo(torch.float32).eps)
    q = torch.clamp(torch.round(w / scales[:, None]), -128, 127)
    return q.double() * scales.double()[:, None]


def int4_weight(w):
    """xdispatch's quantize_int4 (docs/ops/int4.md) on an f32 weight [N, K], dequantized: per group
    of GROUP consecutive k, range = max(max, 0) - min(min, 0) in f32, scale = range * f32(1/15)
    in f32, one ulp up when 15 * scale falls short of the range, at least FLT_EPSILON;
    zero = clamp(round(-lo / scale), 0, 15), q = clamp(round(w / scale) + zero, 0, 15), rounded
    half to even on the exact quotient (f64 division of f32 values rounds ties and non-ties right)."""
    n, kk = w.shape
    g = w.view(n, kk // GROUP, GROUP)
    lo = torch.clamp(g.amin(-1, keepdim=True), max=0)
    hi = torch.clamp(g.amax(-1, keepdim=True), min=0)
    rng = hi - lo  # f32
    scale = rng * torch.tensor(1 / 15, dtype=torch.float32)
    short = rng.double() - 15 * scale.double() > 0  # exact in f64
    scale = torch.where(short, torch.nextafter(scale, torch.tensor(float("inf"))), scale)
    scale = torch.clamp(scale, min=torch.finfo(torch.float32).eps).double()
    g, lo = g.double(), lo.double()
    zero = torch.clamp(torch.round(-lo / scale), 0, 15)
    q = torch.clamp(torch.round(g / scale) + zero, 0, 15)
    return ((q - zero) * scale).view(n, kk)


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    g = torch.Generator().manual_seed(2024)

    def randn(*shape, scale=1.0):
        return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).float()

    w = {"attention_norm": 1 + randn(DIM, scale=0.1), "ffn_norm": 1 + randn(DIM, scale=0.1)}
    for name, (out, inp) in {"wq": (DIM, DIM), "wk": (DIM, DIM), "wv": (DIM, DIM), "wo": (DIM, DIM),
                             "w1": (HIDDEN, DIM), "w3": (HIDDEN, DIM), "w2": (DIM, HIDDEN)}.items():
        w[name] = randn(out, inp, scale=1 / math.sqrt(inp))
    x = randn(SEQ, DIM)
    wd = {k: v.double() for k, v in w.items()}
    outputs = {
        "expected_f32": layer(x.double(), wd, lambda n, t: t @ wd[n].t()),
        "expected_int8": layer(x.double(), wd, lambda n, t: t @ int8_weight(w[n]).t()),
        "expected_int4": layer(x.double(), wd, lambda n, t: t @ int4_weight(w[n]).t()),
    }
    for name, t in list(w.items()) + [("x", x)] + list(outputs.items()):
        t.float().contiguous().numpy().astype("<f4").tofile(os.path.join(out_dir, name + ".f32"))
    with open(os.path.join(out_dir, "config.txt"), "w") as f:
        f.write(f"# written by examples/llama_decoder/make_golden.py with torch {torch.__version__}\n")
        for key, value in (("dim", DIM), ("heads", HEADS), ("seq", SEQ), ("hidden", HIDDEN), ("theta", THETA),
                           ("eps", EPS), ("group", GROUP)):
            f.write(f"{key} {value}\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden"))
