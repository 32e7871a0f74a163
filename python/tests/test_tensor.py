"""Tensor attributes, views, indexing, copies, host access and printing."""

import pytest

import xdispatch as xd
from conftest import DEVICES


def grid(device="cpu"):
    return xd.arange(12, dtype=xd.float32, device=device).view(3, 4)


def test_attributes():
    x = grid()
    assert x.shape == (3, 4) and x.size() == (3, 4) and x.size(1) == 4 and x.size(-1) == 4
    assert x.stride() == (4, 1) and x.stride(0) == 4
    assert x.dtype == xd.float32 and x.dim() == 2 and x.ndim == 2 and x.numel() == 12
    assert x.device == xd.cpu() and x.device == "cpu:0" and str(x.device) == "cpu:0"
    assert x.is_contiguous() and not x.t().is_contiguous()
    assert x.element_size() == 4 and x.nbytes == 48 and len(x) == 3


@pytest.mark.parametrize("device", DEVICES)
def test_views_share_memory(device):
    x = grid(device)
    v = x.view(2, 6)
    v[0, 0] = 100.0
    assert x[0, 0].item() == 100.0
    assert x.reshape(-1, 3).shape == (4, 3)
    assert x.permute(1, 0).shape == (4, 3) and x.permute((1, 0)).tolist() == x.t().tolist()
    assert x.transpose(0, 1).stride() == (1, 4)
    assert x.T.shape == (4, 3)
    assert x.unsqueeze(0).shape == (1, 3, 4) and x.unsqueeze(-1).shape == (3, 4, 1)
    assert x.unsqueeze(0).squeeze(0).shape == (3, 4) and x.view(1, 3, 1, 4).squeeze().shape == (3, 4)
    e = x[:, :1].expand(3, 5)
    assert e.shape == (3, 5) and e.stride(1) == 0
    assert x.t().contiguous().is_contiguous()
    c = x.clone()
    c[0, 0] = -1.0
    assert x[0, 0].item() == 100.0


def test_indexing_matches_python_semantics():
    x = grid()
    rows = [[float(4 * r + c) for c in range(4)] for r in range(3)]
    assert x[1].tolist() == rows[1]
    assert x[-1, -2].item() == rows[-1][-2]
    assert x[1:].tolist() == rows[1:]
    assert x[:, 1:3].tolist() == [r[1:3] for r in rows]
    assert x[::2, ::3].tolist() == [r[::3] for r in rows[::2]]
    assert x[..., 0].tolist() == [r[0] for r in rows]
    assert x[None, 0].shape == (1, 4)
    assert x[5:9].shape == (0, 4)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x[3]
    with pytest.raises(xd.ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(TypeError, match="only integers, slices"):
        x[1.5]


def test_setitem_and_copy():
    x = xd.zeros(2, 3)
    x[0] = 1.0
    x[1, 1:] = xd.tensor([5.0, 6.0])
    assert x.tolist() == [[1.0, 1.0, 1.0], [0.0, 5.0, 6.0]]
    y = xd.empty(2, 3)
    assert y.copy_(x) is y
    assert y.tolist() == x.tolist()
    y.fill_(2.0)
    assert y.tolist() == [[2.0] * 3] * 2


@pytest.mark.parametrize("device", DEVICES)
def test_to_device_and_dtype(device):
    x = grid()
    assert x.to(x.dtype) is not None and x.to("cpu").tolist() == x.tolist()
    moved = x.to(device)
    assert moved.device == xd.device(device)
    back = moved.to(xd.cpu())
    assert back.tolist() == x.tolist()
    assert x.to(xd.int32).dtype == xd.int32 and x.to(xd.int32).tolist()[2] == [8, 9, 10, 11]
    assert x.to(device, xd.float64).dtype == xd.float64
    assert moved.cpu().device == xd.cpu()


def test_item_tolist_and_python_scalars():
    assert xd.tensor(3.5).item() == 3.5
    assert isinstance(xd.tensor(3).item(), int)
    assert xd.tensor(True).item() is True
    assert xd.tensor([[True, False]]).tolist() == [[True, False]]
    assert float(xd.tensor([2.5])) == 2.5 and int(xd.tensor(7)) == 7 and bool(xd.tensor(1.0))
    with pytest.raises(xd.ValueError, match="item"):
        xd.ones(2).item()


def test_repr_uses_the_library_printing():
    x = xd.tensor([1.0, 2.5])
    r = repr(x)
    assert r == str(x)
    assert "1" in r and "2.5" in r and "f32" in r and "cpu:0" in r
    assert repr(xd.float32) == "xdispatch.float32" and repr(xd.bfloat16) == "xdispatch.bfloat16"
    assert repr(xd.device("cpu")) == "device(type='cpu', index=0)"


def test_dtypes_have_pytorch_names():
    names = ["float64", "float32", "float16", "bfloat16", "int8", "uint8", "int32", "int64", "bool",
             "float8_e4m3fn", "float8_e5m2"]
    for n in names:
        assert isinstance(getattr(xd, n), xd.dtype)
    assert xd.float is xd.float32 or xd.float == xd.float32
    assert xd.float16.itemsize == 2 and xd.bfloat16.is_floating_point and not xd.int32.is_floating_point
    assert xd.float32.short_name == "f32"
