"""Shared fixtures: the devices to run on and conversions between xdispatch, NumPy and PyTorch."""

import numpy as np
import pytest
import torch

import xdispatch as xd


def _opencl_available():
    return any(d.type == "opencl" for d in xd.devices())


DEVICES = ["cpu"] + (["opencl:0"] if _opencl_available() else [])

# xdispatch dtype -> torch dtype (those PyTorch 1.13 has).
TORCH_DTYPE = {
    xd.float64: torch.float64, xd.float32: torch.float32, xd.float16: torch.float16,
    xd.bfloat16: torch.bfloat16, xd.int8: torch.int8, xd.uint8: torch.uint8,
    xd.int32: torch.int32, xd.int64: torch.int64, xd.bool: torch.bool,
}

TOL = {xd.float64: 1e-10, xd.float32: 1e-5, xd.float16: 2e-3, xd.bfloat16: 1.6e-2}


def to_xd(t, device="cpu"):
    """A new xdispatch tensor with torch tensor `t`'s values (contiguous), on `device`."""
    t = t.contiguous().clone()
    if t.dtype == torch.bool:  # PyTorch 1.13 cannot export bool through DLPack
        return xd.from_numpy(t.numpy()).to(device)
    return xd.from_dlpack(t).to(device)


def to_np(x):
    """The values of xdispatch tensor `x` as a NumPy array (float32 for the 16-bit floats)."""
    x = x.cpu()
    if x.dtype in (xd.float16, xd.bfloat16):
        x = x.to(xd.float32)
    return x.numpy()


def torch_np(t):
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.float()
    return t.numpy()


def assert_close(x, expected, dtype=None, rtol=None, atol=None):
    dtype = dtype or x.dtype
    got = to_np(x)
    exp = torch_np(expected) if isinstance(expected, torch.Tensor) else np.asarray(expected)
    assert got.shape == exp.shape, (got.shape, exp.shape)
    tol = TOL.get(dtype, 0)
    np.testing.assert_allclose(got, exp, rtol=tol if rtol is None else rtol,
                               atol=tol if atol is None else atol, equal_nan=True)


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
