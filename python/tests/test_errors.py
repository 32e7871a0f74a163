"""Every xd::Error subclass arrives as its Python class, which also derives from the matching
built-in where there is one."""

import builtins

import pytest

import xdispatch as xd

HIERARCHY = {
    "Error": (RuntimeError,), "ShapeError": (xd.Error,), "DtypeError": (xd.Error, TypeError),
    "DeviceError": (xd.Error,), "BackendError": (xd.DeviceError,), "IndexError": (xd.Error, builtins.IndexError),
    "ValueError": (xd.Error, builtins.ValueError), "LayoutError": (xd.Error,),
    "OutOfMemoryError": (xd.Error, MemoryError),
    "NotImplementedError": (xd.Error, builtins.NotImplementedError), "PluginError": (xd.Error,),
    "CompileError": (xd.Error,),
}


@pytest.mark.parametrize("name", sorted(HIERARCHY))
def test_class_hierarchy(name):
    cls = getattr(xd, name)
    for base in HIERARCHY[name]:
        assert issubclass(cls, base), (name, base)
    assert issubclass(cls, xd.Error) and cls.__module__ == "xdispatch"


def test_shape_error():
    with pytest.raises(xd.ShapeError, match="mm"):
        xd.mm(xd.ones(2, 3), xd.ones(2, 3))


def test_dtype_error_is_a_type_error():
    with pytest.raises(TypeError):
        xd.add(xd.ones(2), xd.ones(2, dtype=xd.int32))
    with pytest.raises(xd.DtypeError, match="int_mm"):
        xd.int_mm(xd.ones(2, 2), xd.ones(2, 2))


def test_device_and_backend_errors():
    with pytest.raises(xd.BackendError):
        xd.zeros(2, device="nosuchbackend")
    with pytest.raises(xd.DeviceError, match="cpu:7|7"):
        xd.zeros(2, device="cpu:7")


def test_index_error_is_a_python_index_error():
    with pytest.raises(IndexError):
        xd.ones(2, 3).transpose(0, 5)
    with pytest.raises(xd.IndexError, match="dim"):
        xd.softmax(xd.ones(2), dim=3)


def test_value_error():
    with pytest.raises(ValueError, match="step"):
        xd.arange(0, 5, 0)
    with pytest.raises(xd.ValueError, match="approximate must be 'none' or 'tanh'"):
        xd.gelu(xd.ones(2), approximate="fast")
    with pytest.raises(xd.ValueError, match="different lengths"):
        xd.tensor([[1, 2], [3]])


def test_layout_error():
    with pytest.raises(xd.LayoutError):
        xd.zeros(*([1] * 9))  # more than kMaxDims
    x = xd.arange(4, dtype=xd.float32)
    with pytest.raises(xd.LayoutError):
        x[1:].copy_(x[:-1])  # dense and overlapping


def test_out_of_memory_error_is_a_memory_error():
    with pytest.raises(MemoryError):
        xd.empty(2**31, 2**31, dtype=xd.int64)  # 2^65 bytes


def test_not_implemented_error():
    # Pinned memory for the CPU itself: its memory is host memory already.
    with pytest.raises(NotImplementedError, match="pin_memory"):
        xd.ones(2).pin_memory("cpu")
