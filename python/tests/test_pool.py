"""max_pool2d, max_pool2d_with_indices and avg_pool2d against torch.nn.functional's (PyTorch 1.13
on the CPU; f16 through its f32 kernel and rounded once, as PyTorch 2's CPU kernels compute it) on
the CPU and, where built, the OpenCL device."""

import math

import pytest
import torch
import torch.nn.functional as F

import xdispatch as xd
from conftest import DEVICES, TORCH_DTYPE, assert_close, to_np, to_xd

FLOATS = [xd.float32, xd.float64, xd.float16, xd.bfloat16]


def randn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(dtype)


def in_float(fn, x):
    """fn of x in f32 for f16/bf16 (torch 1.13 has no f16 pooling on the CPU), rounded once."""
    if x.dtype in (torch.float16, torch.bfloat16):
        out = fn(x.float())
        return tuple(o.to(x.dtype) if o.is_floating_point() else o for o in out) if isinstance(out, tuple) \
            else out.to(x.dtype)
    return fn(x)


MAX_SETTINGS = [  # kernel_size, stride, padding, dilation, ceil_mode
    (2, None, 0, 1, False),
    (3, 2, 1, 1, False),
    ((3, 2), (2, 1), (1, 0), (2, 1), False),
    (3, 2, 1, 1, True),
    ((2, 3), 2, (1, 1), (3, 2), True),
]

AVG_SETTINGS = [  # kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    (2, None, 0, False, True, None),
    (3, 2, 1, False, False, None),
    ((3, 2), (2, 1), (1, 0), True, True, None),
    (3, 3, 1, True, False, None),
    (3, 3, 1, True, True, 5),
    (2, 1, 1, False, True, -2),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_max_pool2d_matches_torch(device, dtype):
    x = randn(2, 3, 11, 10, seed=1, dtype=TORCH_DTYPE[dtype])
    for k, s, p, d, ceil in MAX_SETTINGS:
        want, want_i = in_float(lambda t: F.max_pool2d(t, k, s, p, d, ceil, return_indices=True), x)
        got, got_i = xd.max_pool2d_with_indices(to_xd(x, device), k, s, p, d, ceil)
        assert_close(got, want, rtol=0, atol=0)
        assert got_i.dtype == xd.int64
        assert (to_np(got_i) == want_i.numpy()).all()
        assert_close(xd.max_pool2d(to_xd(x, device), k, s, p, d, ceil), want, rtol=0, atol=0)
        got2, got2_i = xd.max_pool2d(to_xd(x, device), k, s, p, d, ceil, return_indices=True)
        assert (to_np(got2_i) == want_i.numpy()).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_avg_pool2d_matches_torch(device, dtype):
    x = randn(2, 3, 11, 10, seed=2, dtype=TORCH_DTYPE[dtype])
    for k, s, p, ceil, cip, div in AVG_SETTINGS:
        want = in_float(lambda t: F.avg_pool2d(t, k, s, p, ceil, cip, div), x)
        got = xd.avg_pool2d(to_xd(x, device), k, s, p, ceil, cip, div)
        assert_close(got, want)


@pytest.mark.parametrize("device", DEVICES)
def test_pool2d_unbatched_strided_and_special_values(device):
    x = randn(3, 9, 8, seed=3)
    x[0, 1, 1] = math.nan
    x[1, 4, 4] = math.inf
    x[2, 0, 0:3] = -math.inf
    xt = to_xd(x.transpose(1, 2).contiguous(), device).transpose(1, 2)  # x's values, strided
    assert not xt.is_contiguous()
    want, want_i = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    got, got_i = xd.max_pool2d(xt, 3, 2, 1, return_indices=True)
    assert got.shape == (3, 5, 4)
    assert_close(got, want, rtol=0, atol=0)
    assert (to_np(got_i) == want_i.numpy()).all()
    assert_close(xd.avg_pool2d(xt, 3, 2, 1, ceil_mode=True), F.avg_pool2d(x, 3, 2, 1, ceil_mode=True))
    # An empty batch, as PyTorch allows.
    assert xd.avg_pool2d(to_xd(torch.zeros(0, 2, 4, 4), device), 2).shape == (0, 2, 2, 2)
    assert xd.max_pool2d(to_xd(torch.zeros(0, 2, 4, 4), device), 2).shape == (0, 2, 2, 2)


def test_pool2d_errors_where_torch_raises():
    x = xd.zeros((1, 4, 4))
    with pytest.raises(ValueError, match="max_pool2d: padding \\[2, 2\\] must be at most half"):
        xd.max_pool2d(x, 2, padding=2)
    with pytest.raises(ValueError, match="stride must be positive"):
        xd.avg_pool2d(x, 2, stride=0)
    with pytest.raises(ValueError, match="divisor_override must be non-zero"):
        xd.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(xd.ShapeError, match="Output size is too small"):
        xd.max_pool2d(x, 5)
    with pytest.raises(xd.ShapeError, match="must be 3-d \\[C, H, W\\] or 4-d"):
        xd.avg_pool2d(xd.zeros((4, 4)), 2)
    with pytest.raises(TypeError, match="argument 'self' has dtype i64"):
        xd.max_pool2d(xd.zeros((1, 4, 4), dtype=xd.int64), 2)
    for call in (lambda: F.max_pool2d(torch.zeros(1, 4, 4), 2, padding=2),
                 lambda: F.avg_pool2d(torch.zeros(1, 4, 4), 2, stride=0),
                 lambda: F.max_pool2d(torch.zeros(1, 4, 4), 5)):
        with pytest.raises(RuntimeError):  # torch raises on the same calls
            call()
