"""cat/stack, rms_norm with a weight of another dtype, and TorchAO's quantisation workflows
(docs/ops/int8.md) against PyTorch 1.13 computing the same formulas, step for step as TorchAO's
eager code does, on the CPU and, where built, the OpenCL device."""

import numpy as np
import pytest
import torch

import xdispatch as xd
from conftest import DEVICES, TORCH_DTYPE, assert_close, to_np, to_xd, torch_np


def randn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(dtype)


# ---------------------------------------------------------------- cat, stack

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.bfloat16, xd.int64, xd.bool])
def test_cat_matches_torch_along_every_dim(device, dtype):
    tdt = TORCH_DTYPE[dtype]
    parts = [randn(2, 3, 4, seed=1), randn(2, 5, 4, seed=2), randn(2, 1, 4, seed=3)]
    parts = [(p * 10).to(tdt) for p in parts]
    expected = torch.cat(parts, dim=1)
    got = xd.cat([to_xd(p, device) for p in parts], 1)
    assert got.shape == tuple(expected.shape) and got.dtype == dtype
    assert_close(got, expected, rtol=0, atol=0)
    for dim in (0, 2, -1, -3):
        same = [randn(2, 3, 4, seed=s).mul(10).to(tdt) for s in range(3)]
        assert_close(xd.cat([to_xd(p, device) for p in same], dim), torch.cat(same, dim), rtol=0, atol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_cat_reads_strided_inputs_and_skips_legacy_empty_ones(device):
    a, b = randn(4, 3, seed=4), randn(4, 5, seed=5)
    xa = to_xd(a.t().contiguous(), device).t()  # a transposed view of a's values
    xb = to_xd(b, device)[:, ::2]
    assert not xa.is_contiguous() and not xb.is_contiguous()
    expected = torch.cat([a, b[:, ::2]], 1)
    got = xd.cat([xa, to_xd(torch.empty(0), device), xb], dim=-1)
    assert_close(got, expected, rtol=0, atol=0)
    assert got.is_contiguous()
    # Only empty pieces: PyTorch's result keeps the first tensor's shape with dim summed.
    assert xd.cat([to_xd(torch.empty(0, 3), device), to_xd(torch.empty(2, 3), device)], 0).shape == (2, 3)


@pytest.mark.parametrize("device", DEVICES)
def test_stack_matches_torch(device):
    parts = [randn(3, 4, seed=s) for s in range(3)]
    for dim in (0, 1, 2, -1, -3):
        assert_close(xd.stack([to_xd(p, device) for p in parts], dim), torch.stack(parts, dim), rtol=0, atol=0)
    assert xd.stack([to_xd(torch.tensor(1.5), device)] * 2).shape == (2,)


def test_cat_and_stack_errors_match_torch_kinds():
    a = xd.zeros([2, 3])
    with pytest.raises(ValueError, match="expected a non-empty list"):
        xd.cat([])
    with pytest.raises(xd.ShapeError, match="sizes must match except in dim 0"):
        xd.cat([a, xd.zeros([2, 4])], 0)
    with pytest.raises(xd.ShapeError, match="zero-dimensional"):
        xd.cat([xd.zeros([])])
    with pytest.raises(xd.DtypeError, match="does not promote"):
        xd.cat([a, xd.zeros([2, 3], dtype=xd.float64)])
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        xd.cat([a, a], 2)
    with pytest.raises(xd.ShapeError, match="same shape"):
        xd.stack([a, xd.zeros([3, 2])])


# ---------------------------------------------------------------- gather

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.float16, xd.int32, xd.bool])
def test_gather_matches_torch_along_every_dim(device, dtype):
    g = torch.Generator().manual_seed(16)
    a = (randn(4, 5, 6, seed=17) * 10).to(TORCH_DTYPE[dtype])
    for dim, shape in ((0, (7, 5, 6)), (1, (3, 9, 2)), (2, (4, 5, 11)), (-1, (1, 1, 1))):
        index = torch.randint(0, a.shape[dim], shape, generator=g)
        expected = torch.gather(a, dim, index)
        assert_close(xd.gather(to_xd(a, device), dim, to_xd(index, device)), expected, rtol=0, atol=0)
    # Strided self and index, an i32 index.
    index = torch.randint(0, 4, (6, 3), generator=g)
    got = xd.gather(to_xd(a, device).select(1, 0).t(), 1, to_xd(index.to(torch.int32), device).t())
    assert_close(got, torch.gather(a[:, 0, :].t(), 1, index.t()), rtol=0, atol=0)


def test_gather_errors_match_torch_kinds():
    a = xd.zeros([2, 3])
    with pytest.raises(IndexError, match="gather: index 3 \\(at position 1\\) is out of range for dim 1"):
        xd.gather(a, 1, xd.from_numpy(np.array([[0, 3]], dtype=np.int64)))
    with pytest.raises(xd.ShapeError, match="must have the rank of 'self'"):
        xd.gather(a, 1, xd.from_numpy(np.array([0], dtype=np.int64)))
    with pytest.raises(xd.ShapeError, match="larger than 'self' .* in dim 0"):
        xd.gather(a, 1, xd.zeros([3, 1], dtype=xd.int64))


# ---------------------------------------------------------------- rms_norm, mixed weight

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.bfloat16, xd.float16])
def test_rms_norm_takes_an_f32_weight_beside_half_precision_input(device, dtype):
    tdt = TORCH_DTYPE[dtype]
    x, w = randn(4, 96, seed=6).to(tdt), randn(96, seed=7)
    eps = 1e-6
    xr = x.double().requires_grad_()
    wr = w.double().requires_grad_()
    yr = xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + eps) * wr
    y, rstd = xd.rms_norm_with_rstd(to_xd(x, device), [96], weight=to_xd(w, device), eps=eps)
    assert y.dtype == dtype
    assert_close(y, yr.detach(), rtol=2e-2, atol=2e-2)
    grad = randn(4, 96, seed=8).to(tdt)
    yr.backward(grad.double())
    gi, gw = xd.rms_norm_backward(to_xd(grad, device), to_xd(x, device), [96], rstd, weight=to_xd(w, device))
    assert gi.dtype == dtype and gw.dtype == xd.float32
    assert_close(gi, xr.grad, rtol=5e-2, atol=5e-2)
    assert_close(gw, wr.grad, dtype=xd.float32, rtol=2e-2, atol=2e-2)


# ---------------------------------------------------------------- int8 weight-only

def torchao_quantize_per_channel(w):
    """TorchAO's dynamically_quantize_per_channel(w, -128, 127, torch.int8), each step rounded to
    w's dtype. The steps run in f32 and are rounded after each, which is what PyTorch's f16/bf16
    kernels do (and 1.13's CPU has no f16 clamp)."""
    def r(t):
        return t.to(w.dtype).float()
    wf = w.float()
    min_val, max_val = wf.min(dim=1).values, wf.max(dim=1).values
    max_pos = torch.max(-torch.min(min_val, torch.zeros_like(min_val)), torch.max(max_val, torch.zeros_like(max_val)))
    scales = r(torch.clamp(r(max_pos / (255 / 2)), min=torch.finfo(torch.float32).eps))
    q = torch.clamp(torch.round(r(wf / scales.unsqueeze(-1))), -128, 127).to(torch.int8)
    return q, scales.to(w.dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.bfloat16, xd.float16])
def test_quantize_int8_gives_torchaos_codes_and_scales_bit_for_bit(device, dtype):
    tdt = TORCH_DTYPE[dtype]
    w = randn(24, 80, seed=9).to(tdt)
    w[3] = 0  # an all-zero row: the scale floors at f32's epsilon
    q_ref, s_ref = torchao_quantize_per_channel(w)
    q, s = xd.quantize_int8(to_xd(w, device))
    assert q.dtype == xd.int8 and s.dtype == dtype and tuple(s.shape) == (24,)
    np.testing.assert_array_equal(to_np(q), q_ref.numpy())
    np.testing.assert_array_equal(to_np(s), s_ref.float().numpy())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.bfloat16])
def test_weight_int8_mm_matches_torchaos_weight_only_linear(device, dtype):
    tdt = TORCH_DTYPE[dtype]
    w = randn(48, 64, seed=10)
    q, s = torchao_quantize_per_channel(w.to(tdt))
    x = randn(2, 5, 64, seed=11).to(tdt)
    expected = (torch.mm(x.double().reshape(-1, 64), q.t().double()) * s.double()).reshape(2, 5, 48)
    got = xd.weight_int8_mm(to_xd(x, device), to_xd(q, device), to_xd(s, device))
    assert got.dtype == dtype and got.shape == (2, 5, 48)
    tol = 1e-4 if dtype == xd.float32 else 3e-2
    assert_close(got, expected, rtol=tol, atol=tol)


# ---------------------------------------------------------------- int8 dynamic activation

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.bfloat16, xd.float16])
def test_int8_dynamic_mm_is_per_token_quantization_then_exact_int_sums(device, dtype):
    tdt = TORCH_DTYPE[dtype]
    w = randn(40, 96, seed=12)
    qw, sw = torchao_quantize_per_channel(w)
    x = randn(3, 7, 96, seed=13).to(tdt)
    x[1, 2] = 0  # a zero token: its scale floors at 1e-5 / 127
    xf = x.float().reshape(-1, 96)
    sx = torch.clamp(xf.abs().amax(-1, keepdim=True), min=1e-5) / 127
    qx = torch.clamp(torch.round(xf / sx), -127, 127).to(torch.int8)
    q, s = xd.quantize_per_token_int8(to_xd(x, device))
    assert q.shape == (3, 7, 96) and s.shape == (3, 7, 1) and s.dtype == xd.float32
    np.testing.assert_array_equal(to_np(q).reshape(-1, 96), qx.numpy())
    np.testing.assert_array_equal(to_np(s).reshape(-1, 1), sx.numpy())
    acc = (qx.long() @ qw.long().t()).float()  # exact, as int_mm's i32 sums
    expected = (acc * sx * sw.float()).to(tdt).reshape(3, 7, 40)
    got = xd.int8_dynamic_mm(to_xd(x, device), to_xd(qw, device), to_xd(sw, device))
    assert got.dtype == dtype and got.shape == (3, 7, 40)
    assert_close(got, expected, rtol=0, atol=0)


# ---------------------------------------------------------------- fp8 scaling

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fp8, rel", [(xd.float8_e4m3fn, 2.0**-4), (xd.float8_e5m2, 2.0**-3)])
def test_quantize_fp8_scales_as_torchao_and_feeds_scaled_mm(device, fp8, rel):
    fmax = xd.fp8_max(fp8)
    a, b = randn(16, 32, seed=14) * 3, randn(32, 24, seed=15)
    a[2, 5] = 1e3  # one large value: the tensor-wise scale follows it
    for dim, x in ((None, a), (1, a), (0, b)):
        q, inv = xd.quantize_fp8(to_xd(x, device), fp8, dim)
        amax = x.abs().amax() if dim is None else x.abs().amax(dim, keepdim=True)
        # The correctly rounded quotients (PyTorch's `fmax / t` would round 1 / t first).
        scale = torch.div(torch.full_like(amax, fmax), torch.clamp(amax, min=1e-12))
        np.testing.assert_array_equal(to_np(inv), torch.div(torch.ones_like(scale), scale).numpy())
        deq = to_np(q.to(xd.float32)) * to_np(inv)
        # Round to nearest: half an ulp of the format's mantissa, plus the smallest subnormal step.
        bound = np.abs(x.numpy()) * rel + np.broadcast_to((1 / scale).numpy(), x.shape) * 2.0**-9
        assert np.all(np.abs(deq - x.numpy()) <= bound)
    qa, ia = xd.quantize_fp8(to_xd(a, device), fp8, 1)
    qb, ib = xd.quantize_fp8(to_xd(b, device), fp8, 0)
    got = xd.scaled_mm(qa, qb, ia, ib, out_dtype=xd.float32)
    deq_a = torch.from_numpy(to_np(qa.to(xd.float32)) * to_np(ia))
    deq_b = torch.from_numpy(to_np(qb.to(xd.float32)) * to_np(ib))
    assert_close(got, deq_a.double() @ deq_b.double(), rtol=1e-4, atol=1e-3)


# ---------------------------------------------------------------- int4 dequantization (docs/ops/int4.md)

def torch_dequantize_int4(packed, scales, zeros, group):
    """weight_int4_mm's weight: code k is the low nibble of byte k // 2 for even k, the high nibble
    for odd k; (q - zero) * scale in f32, rounded once to the scales' dtype."""
    p = packed.to(torch.int32)
    q = torch.stack([p & 0xF, p >> 4], dim=-1).reshape(packed.shape[0], -1).float()
    z = zeros.float().t().repeat_interleave(group, dim=1)
    s = scales.float().t().repeat_interleave(group, dim=1)
    return ((q - z) * s).to(scales.dtype)


def int4_operands(n, k, group, tdt, seed):
    g = torch.Generator().manual_seed(seed)
    packed = torch.randint(0, 256, (n, k // 2), generator=g, dtype=torch.uint8)
    scales = (torch.rand(k // group, n, generator=g, dtype=torch.float64) * 0.5 + 0.01).to(tdt)
    zeros = torch.randint(0, 16, (k // group, n), generator=g, dtype=torch.int8)
    return packed, scales, zeros


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.bfloat16])
def test_dequantize_int4_matches_torch_bit_for_bit(device, dtype):
    n, k, group = 24, 256, 64
    packed, scales, zeros = int4_operands(n, k, group, TORCH_DTYPE[dtype], seed=21)
    got = xd.dequantize_int4(to_xd(packed, device), to_xd(scales, device), to_xd(zeros, device), group_size=group)
    assert got.dtype == dtype and got.shape == (n, k) and got.device == xd.device(device)
    np.testing.assert_array_equal(to_np(got), torch_np(torch_dequantize_int4(packed, scales, zeros, group)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.bfloat16])
def test_dequantize_int4_inverts_quantize_int4_within_half_a_scale(device, dtype):
    n, k, group = 16, 384, 128
    w = randn(n, k, seed=22).to(TORCH_DTYPE[dtype])
    packed, scales, zeros = xd.quantize_int4(to_xd(w, device), group)
    back = to_np(xd.dequantize_int4(packed, scales, zeros, group))
    step = np.repeat(to_np(scales).T, group, axis=1)
    # bf16: plus the final rounding of the dequantized value (half a unit in its last place).
    slack = np.abs(back) * 2.0**-8 if dtype == xd.bfloat16 else 0
    assert np.all(np.abs(back - torch_np(w)) <= step * (0.5 + 1e-6) + slack)


@pytest.mark.parametrize("device", DEVICES)
def test_mm_with_the_dequantized_weight_agrees_with_weight_int4_mm(device):
    n, k, group = 40, 512, 128
    packed, scales, zeros = (to_xd(t, device) for t in int4_operands(n, k, group, torch.float32, seed=23))
    x = to_xd(randn(3, k, seed=24), device)
    got = xd.mm(x, xd.dequantize_int4(packed, scales, zeros, group).t())
    assert_close(got, to_np(xd.weight_int4_mm(x, packed, scales, zeros, group)), rtol=2e-5, atol=2e-5)


def test_dequantize_int4_reads_strided_operands():
    n, k, group = 8, 128, 32
    packed, scales, zeros = int4_operands(n, k, group, torch.bfloat16, seed=25)
    wide = torch.cat([torch.zeros(n, 1, dtype=torch.uint8), packed, torch.zeros(n, 2, dtype=torch.uint8)], 1)
    xp = to_xd(wide)[:, 1:k // 2 + 1]
    xs, xz = to_xd(scales.t()).t(), to_xd(zeros.t()).t()  # transposed views of [N, K/g] tensors
    assert not (xp.is_contiguous() or xs.is_contiguous() or xz.is_contiguous())
    got = xd.dequantize_int4(xp, xs, xz, group)
    np.testing.assert_array_equal(to_np(got), torch_np(torch_dequantize_int4(packed, scales, zeros, group)))


def test_dequantize_int4_errors_name_the_helper():
    p, s, z = xd.zeros([8, 32], dtype=xd.uint8), xd.zeros([2, 8]), xd.zeros([2, 8], dtype=xd.int8)
    with pytest.raises(xd.ValueError, match="dequantize_int4: group_size must be a positive multiple of 32, got 48"):
        xd.dequantize_int4(p, s, z, 48)
    with pytest.raises(xd.DtypeError, match="dequantize_int4: 'packed' has dtype i8, .* must be u8"):
        xd.dequantize_int4(xd.zeros([8, 32], dtype=xd.int8), s, z, 32)
    with pytest.raises(xd.DtypeError, match="dequantize_int4: argument 'scales' has dtype f64"):
        xd.dequantize_int4(p, xd.zeros([2, 8], dtype=xd.float64), z, 32)
    with pytest.raises(xd.DtypeError, match="dequantize_int4: 'zeros' has dtype u8"):
        xd.dequantize_int4(p, s, xd.zeros([2, 8], dtype=xd.uint8), 32)
    with pytest.raises(xd.ShapeError, match=r"dequantize_int4: 'scales' must be \[K/group_size, N\] = \[2, 8\]"):
        xd.dequantize_int4(p, xd.zeros([8, 2]), z, 32)
    with pytest.raises(xd.ShapeError, match="dequantize_int4: 'packed' .* has K = 64, which is not a multiple"):
        xd.dequantize_int4(p, xd.zeros([1, 8]), xd.zeros([1, 8], dtype=xd.int8), 128)
    assert issubclass(xd.DtypeError, TypeError) and issubclass(xd.ValueError, ValueError)


@pytest.mark.skipif(len(DEVICES) < 2, reason="needs a second device (OpenCL)")
def test_dequantize_int4_operands_on_two_devices():
    p, s, z = xd.zeros([8, 32], dtype=xd.uint8), xd.zeros([2, 8]), xd.zeros([2, 8], dtype=xd.int8)
    with pytest.raises(xd.DeviceError, match="dequantize_int4: 'packed' is on cpu:0 but 'zeros' is on opencl"):
        xd.dequantize_int4(p, s, z.to(DEVICES[1]), 32)


def test_quantization_helpers_name_themselves_in_errors():
    with pytest.raises(xd.DtypeError, match="quantize_int8: argument 'weight' has dtype i32"):
        xd.quantize_int8(xd.zeros([2, 3], dtype=xd.int32))
    with pytest.raises(xd.ShapeError, match="weight_int8_mm: 'input' .* has K = 3"):
        xd.weight_int8_mm(xd.zeros([2, 3]), xd.zeros([4, 5], dtype=xd.int8), xd.zeros([4]))
    with pytest.raises(xd.DtypeError, match="int8_dynamic_mm: argument 'weight' has dtype f32"):
        xd.int8_dynamic_mm(xd.zeros([2, 3]), xd.zeros([4, 3]), xd.zeros([4]))
    with pytest.raises(xd.DtypeError, match="quantize_fp8: argument 'fp8_dtype' has dtype bf16"):
        xd.quantize_fp8(xd.zeros([2, 3]), xd.bfloat16)


# ---------------------------------------------------------------- conv2d

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.float64, xd.bfloat16])
def test_conv2d_matches_torch(device, dtype):
    tdt = TORCH_DTYPE[dtype]
    tol = {xd.float32: 1e-4, xd.float64: 1e-10, xd.bfloat16: 3e-2}[dtype]
    rows = [  # input, weight, kwargs
        ((2, 3, 9, 8), (5, 3, 3, 3), dict(padding=1)),
        ((2, 4, 11, 10), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), groups=2)),
        ((1, 3, 10, 10), (4, 3, 3, 3), dict(padding=2, dilation=2)),
        ((1, 6, 7, 7), (6, 1, 3, 3), dict(padding=1, groups=6)),
        ((1, 2, 7, 6), (3, 2, 4, 3), dict(padding="same", dilation=(1, 2))),
        ((3, 7, 7), (2, 3, 3, 3), dict(padding="valid")),
    ]
    for i, (xs, ws, kwargs) in enumerate(rows):
        x, w, b = randn(*xs, seed=10 + i, dtype=tdt), randn(*ws, seed=20 + i, dtype=tdt), randn(ws[0], seed=30 + i, dtype=tdt)
        expected = torch.nn.functional.conv2d(x.double(), w.double(), b.double(), **kwargs).to(tdt)
        got = xd.conv2d(to_xd(x, device), to_xd(w, device), to_xd(b, device), **kwargs)
        assert got.shape == tuple(expected.shape) and got.dtype == dtype
        assert_close(got, expected, rtol=tol, atol=tol * ws[1] * ws[2] * ws[3])


def test_conv2d_errors_match_torch_kinds():
    x, w = xd.ones((1, 4, 5, 5)), xd.ones((8, 3, 3, 3))
    with pytest.raises(RuntimeError, match="expected input\\[1, 4, 5, 5\\] to have 3 channels"):
        xd.conv2d(x, w)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        xd.conv2d(x, xd.ones((8, 4, 3, 3)), stride=2, padding="same")
    with pytest.raises(ValueError, match="invalid padding string 'full'"):
        xd.conv2d(x, xd.ones((8, 4, 3, 3)), padding="full")
    with pytest.raises(TypeError, match="stride: expected ints"):
        xd.conv2d(x, xd.ones((8, 4, 3, 3)), stride=(1.5, 1))
