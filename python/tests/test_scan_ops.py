"""cumsum and topk against PyTorch 1.13 on the CPU and, where built, the OpenCL device.

torch 1.13's CPU kernels lack f16 cumsum and topk; there the expected values come from f32 (an
f32 running sum rounded once per output, which is the contract; topk moves elements, so exact).
topk's indices of tied values are not compared: each index must point at its value, once."""

import math

import numpy as np
import pytest
import torch

import xdispatch as xd
from conftest import DEVICES, TORCH_DTYPE, assert_close, to_np, to_xd

NUMERIC = [xd.float64, xd.float32, xd.float16, xd.bfloat16, xd.int8, xd.uint8, xd.int32, xd.int64]


def values(shape, dtype, seed, distinct=False):
    g = torch.Generator().manual_seed(seed)
    n = math.prod(shape)
    if distinct:  # no ties: a permutation, scaled into the dtype's exact range
        p = torch.randperm(n, generator=g).to(torch.float64)
        x = p - n // 2 if dtype != xd.uint8 else p % 256
        if dtype in (xd.float16, xd.bfloat16, xd.float32, xd.float64):
            x = x / 4
        return x.reshape(shape).to(TORCH_DTYPE[dtype])
    if dtype in (xd.int8, xd.int32, xd.int64):
        return torch.randint(-100, 100, shape, generator=g).to(TORCH_DTYPE[dtype])
    if dtype == xd.uint8:
        return torch.randint(0, 256, shape, generator=g).to(torch.uint8)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 8 - 4).to(TORCH_DTYPE[dtype])


def torch_cumsum(t, dim, dtype=None):
    if dtype is not None:
        t = t.to(dtype)
    if t.dtype == torch.float16:
        return torch.cumsum(t.float(), dim).half()
    return torch.cumsum(t, dim)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", NUMERIC + [xd.bool])
def test_cumsum_matches_torch(device, dtype):
    t = values((4, 1500), dtype, 1) if dtype != xd.bool else torch.rand(4, 1500) > 0.5
    x = to_xd(t, device)
    for dim in (0, 1, -1):
        got = xd.cumsum(x, dim)
        expected = torch_cumsum(t, dim)
        assert got.dtype == (xd.int64 if dtype in (xd.int8, xd.uint8, xd.int32, xd.bool) else dtype)
        # f32 on a parallel backend sums in another order (and torch's CPU kernel in double).
        tol = {xd.float64: 1e-12, xd.float32: 1e-4, xd.float16: 2e-3, xd.bfloat16: 1.6e-2}.get(dtype, 0)
        assert_close(got, expected, rtol=tol, atol=tol * 40)


@pytest.mark.parametrize("device", DEVICES)
def test_cumsum_dtype_argument_and_strided_input(device):
    t = values((6, 300), xd.float32, 2) * 10
    x = to_xd(t, device)
    assert_close(xd.cumsum(x, 1, dtype=xd.int32), torch.cumsum(t, 1, dtype=torch.int32), rtol=0, atol=0)
    assert_close(xd.cumsum(x, 0, dtype=xd.float64), torch.cumsum(t, 0, dtype=torch.float64), rtol=1e-12, atol=1e-9)
    i8 = values((3, 200), xd.int8, 3)
    assert_close(xd.cumsum(to_xd(i8, device), 1, dtype=xd.int8), torch.cumsum(i8, 1, dtype=torch.int8), rtol=0, atol=0)
    xt = x.t()  # [300, 6], strided
    assert not xt.is_contiguous()
    assert_close(xd.cumsum(xt, 0), torch.cumsum(t.t(), 0), rtol=1e-4, atol=1e-3)
    s = xd.cumsum(to_xd(torch.tensor(2.5), device), 0)
    assert s.shape == () and to_np(s) == 2.5


def check_topk(a, got, k, dim, largest):
    """values exactly torch's; each index points at its value, and no index twice in a row."""
    v, i = got
    ev, _ = torch.topk(a.float() if a.dtype == torch.float16 else a, k, dim, largest)
    assert v.dtype == TORCH_DTYPE_INV[a.dtype] and i.dtype == xd.int64
    assert_close(v, ev.to(a.dtype), rtol=0, atol=0)
    idx = torch.from_numpy(to_np(i))
    picked = torch.gather(a, dim, idx) if a.dim() else a
    assert_close(v, picked, rtol=0, atol=0)
    if a.dim():
        srt = idx.movedim(dim, -1).sort(-1).values
        assert bool((srt[..., 1:] != srt[..., :-1]).all())


TORCH_DTYPE_INV = {v: k for k, v in TORCH_DTYPE.items()}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", NUMERIC)
def test_topk_matches_torch(device, dtype):
    for shape, dim, ks in (((5, 37), 1, (0, 1, 9, 37)), ((37, 5), 0, (3, 37)), ((3, 3000), -1, (10, 2500))):
        a = values(shape, dtype, 4)
        x = to_xd(a, device)
        for k in ks:
            for largest in (True, False):
                check_topk(a, xd.topk(x, k, dim, largest), k, dim, largest)
    # Distinct values: the indices are torch's too.
    a = values((4, 50), dtype, 5, distinct=True)
    v, i = xd.topk(to_xd(a, device), 7, largest=False, sorted=True)
    _, ei = torch.topk(a.float() if a.dtype == torch.float16 else a, 7, largest=False)
    np.testing.assert_array_equal(to_np(i), ei.numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_topk_nan_order_zero_d_and_keywords(device):
    a = torch.tensor([[3.0, 1.0, math.nan, 2.0, -math.inf], [0.5, math.inf, -1.0, 7.0, -0.0]])
    x = to_xd(a, device)
    check_topk(a, xd.topk(x, 3), 3, -1, True)
    check_topk(a, xd.topk(x, 5, dim=1, largest=False, sorted=False), 5, 1, False)
    v, i = xd.topk(to_xd(torch.tensor(5.0), device), 0)  # torch 1.13: the element itself, 0-d
    assert v.shape == () and i.shape == () and to_np(v) == 5.0 and to_np(i) == 0
    v, i = xd.topk(x, k=2, dim=0)
    assert v.shape == (2, 5)


def test_scan_errors_match_torch_kinds():
    a = xd.zeros([2, 3])
    with pytest.raises(IndexError, match="selected index k out of range"):
        xd.topk(a, 4)
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        xd.topk(a, 1, 2)
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        xd.cumsum(a, 2)
    with pytest.raises(TypeError, match="topk: argument 'self' has dtype bool"):
        xd.topk(xd.zeros([3], dtype=xd.bool), 1)
    with pytest.raises(TypeError, match="cumsum: argument 'dtype' has dtype bool"):
        xd.cumsum(a, 0, dtype=xd.bool)
