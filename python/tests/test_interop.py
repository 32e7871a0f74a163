"""NumPy and DLPack exchange: zero copy both ways (a write through one side is seen by the other)
and lifetimes (either side may outlive the other)."""

import gc
import weakref

import numpy as np
import pytest
import torch
import torch.utils.dlpack

import xdispatch as xd
from conftest import DEVICES


class Owner(np.ndarray):
    """An ndarray subclass, so that a weakref can tell when NumPy frees the array object."""


def tracked(shape, dtype=np.float32):
    base = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    arr = base.view(Owner)
    return arr, weakref.ref(arr)


# ------------------------------------------------------------------ NumPy

def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = xd.from_numpy(a)
    assert x.shape == (2, 3) and x.dtype == xd.float32
    a[0, 1] = 42.0
    assert x[0, 1].item() == 42.0
    x[1, 2] = -7.0
    assert a[1, 2] == -7.0


def test_from_numpy_strided_view_shares_memory():
    a = np.arange(20, dtype=np.int64).reshape(4, 5)
    view = a[1:, ::2].T
    x = xd.from_numpy(view)
    assert x.shape == view.shape and x.stride() == tuple(s // 8 for s in view.strides)
    assert x.tolist() == view.tolist()
    x[0, 0] = 1000
    assert a[1, 0] == 1000


def test_from_numpy_copies_what_it_cannot_view():
    a = np.arange(5, dtype=np.float32)
    x = xd.from_numpy(a[::-1])  # negative stride: a contiguous copy
    assert x.tolist() == [4.0, 3.0, 2.0, 1.0, 0.0]
    x[0] = 9.0
    assert a[4] == 4.0


def test_from_numpy_of_a_read_only_array_warns_and_still_shares():
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        t = xd.from_numpy(a)
    assert t.numpy().ctypes.data == a.ctypes.data  # the same memory, not a copy
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]

@pytest.mark.parametrize("np_dtype,xd_dtype", [(np.float64, xd.float64), (np.float32, xd.float32),
                                                (np.float16, xd.float16), (np.int8, xd.int8),
                                                (np.uint8, xd.uint8), (np.int32, xd.int32),
                                                (np.int64, xd.int64), (np.bool_, xd.bool)])
def test_numpy_dtypes_round_trip(np_dtype, xd_dtype):
    a = np.array([[1, 0], [1, 1]], dtype=np_dtype)
    x = xd.from_numpy(a)
    assert x.dtype == xd_dtype
    back = x.numpy()
    assert back.dtype == a.dtype and np.array_equal(back, a)
    assert np.shares_memory(back, a)


def test_numpy_view_of_a_tensor_shares_memory_and_strides():
    x = xd.arange(12, dtype=xd.float32).view(3, 4)
    a = x.t().numpy()
    assert a.shape == (4, 3) and a.strides == (4, 16)
    a[0, 1] = 55.0
    assert x[1, 0].item() == 55.0
    assert np.asarray(x).shape == (3, 4)


def test_array_outlives_tensor():
    arr, ref = tracked((3,))
    x = xd.from_numpy(arr)
    del arr
    gc.collect()
    assert ref() is not None, "the tensor keeps the array alive"
    assert x.tolist() == [0.0, 1.0, 2.0]
    del x
    gc.collect()
    assert ref() is None, "the last tensor released the array"


def test_views_keep_the_array_alive_until_the_last_one_goes():
    arr, ref = tracked((2, 2))
    v = xd.from_numpy(arr).t()[0]
    del arr
    gc.collect()
    assert ref() is not None and v.tolist() == [0.0, 2.0]
    del v
    gc.collect()
    assert ref() is None


def test_numpy_array_outlives_the_tensor():
    x = xd.arange(4, dtype=xd.int64)
    a = x.numpy()
    del x
    gc.collect()
    xd.zeros(1000)  # allocations that would reuse freed memory
    assert a.tolist() == [0, 1, 2, 3]


def test_numpy_refuses_device_and_bfloat16_tensors():
    with pytest.raises(xd.DtypeError, match="NumPy has no bfloat16"):
        xd.ones(2, dtype=xd.bfloat16).numpy()
    if "opencl:0" in DEVICES:
        with pytest.raises(xd.DeviceError, match="t.cpu"):
            xd.ones(2, device="opencl:0").numpy()
    with pytest.raises(xd.DtypeError, match="complex"):
        xd.from_numpy(np.zeros(2, dtype=np.complex64))


# ------------------------------------------------------------------ DLPack

def test_dlpack_with_numpy_shares_memory_both_ways():
    x = xd.arange(6, dtype=xd.float32).view(2, 3)
    a = np.from_dlpack(x)  # NumPy 1.24 marks DLPack imports read-only: write through x
    assert a.shape == (2, 3) and a.tolist() == x.tolist()
    x[1, 1] = -1.0
    assert a[1, 1] == -1.0
    b = np.arange(4, dtype=np.int32)
    y = xd.from_dlpack(b)
    y[2] = 77
    assert b[2] == 77


def test_dlpack_with_torch_shares_memory_both_ways():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    x = xd.from_dlpack(t)
    t[0, 2] = 33.0
    assert x[0, 2].item() == 33.0
    x[1, 0] = 44.0
    assert t[1, 0].item() == 44.0

    y = xd.arange(8, dtype=xd.int64).view(2, 4).t()
    ty = torch.from_dlpack(y)
    assert ty.shape == (4, 2) and ty.stride() == (1, 4)
    ty[3, 1] = -5
    assert y[3, 1].item() == -5
    tz = torch.utils.dlpack.from_dlpack(xd.ones(3, dtype=xd.bfloat16).__dlpack__())
    assert tz.dtype == torch.bfloat16 and tz.tolist() == [1.0, 1.0, 1.0]
    assert xd.from_dlpack(torch.ones(2, dtype=torch.bfloat16)).dtype == xd.bfloat16


def test_torch_outlives_xdispatch_and_the_reverse():
    x = xd.arange(4, dtype=xd.float32)
    t = torch.from_dlpack(x)
    del x
    gc.collect()
    xd.zeros(1000)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]

    src = torch.arange(3, dtype=torch.float64)
    y = xd.from_dlpack(src)
    ref = weakref.ref(src)
    del src
    gc.collect()
    assert ref() is not None  # torch tensors support weakref: y keeps it alive
    assert y.tolist() == [0.0, 1.0, 2.0]
    del y
    gc.collect()
    assert ref() is None


def test_capsule_is_consumed_once():
    x = xd.ones(2)
    cap = x.__dlpack__()
    y = xd.from_dlpack(cap)
    assert y.tolist() == [1.0, 1.0]
    with pytest.raises(xd.ValueError, match="dltensor"):
        xd.from_dlpack(cap)
    del cap  # a used capsule frees nothing: y still owns the memory
    gc.collect()
    assert y.tolist() == [1.0, 1.0]
    unused = xd.ones(3).__dlpack__()
    del unused  # an unconsumed capsule frees its tensor reference (no leak, no crash)


def test_dlpack_device_and_stream_rules():
    x = xd.ones(2)
    assert x.__dlpack_device__() == (xd.kDLCPU, 0)
    with pytest.raises(xd.ValueError, match="stream must be None for a CPU tensor"):
        x.__dlpack__(stream=1)
    with pytest.raises(xd.DtypeError, match="DLPack has no type code for float8_e4m3fn"):
        xd.cast(x, xd.float8_e4m3fn).__dlpack__()
    with pytest.raises(TypeError, match="__dlpack__"):
        xd.from_dlpack([1, 2])


@pytest.mark.skipif("opencl:0" not in DEVICES, reason="the OpenCL backend is not built or has no device")
def test_opencl_tensor_round_trips_through_dlpack_without_copy():
    x = xd.arange(6, dtype=xd.float32, device="opencl:0").view(2, 3)[:, 1:]
    assert x.__dlpack_device__() == (xd.kDLOpenCL, 0)
    y = xd.from_dlpack(x)
    assert y.device == xd.device("opencl:0") and y.tolist() == [[1.0, 2.0], [4.0, 5.0]]
    y[0, 0] = 10.0
    assert x[0, 0].item() == 10.0
    with pytest.raises(xd.ValueError, match="stream must be None"):
        x.__dlpack__(stream=5)
    with pytest.raises(RuntimeError, match="Unsupported device"):
        np.from_dlpack(x)  # NumPy takes CPU memory only: it refuses kDLOpenCL


def test_threads_run_ops_and_drop_numpy_backed_tensors():
    # Ops release the GIL and a from_numpy tensor's deleter takes it back, from whichever thread
    # drops it: no deadlock, every thread's results right.
    import threading

    errors = []

    def work(seed):
        try:
            for i in range(200):
                a = np.full(16, seed + i, dtype=np.float32)
                x = xd.from_numpy(a)
                y = xd.add(x, x)
                del x, a
                assert y[3].item() == 2.0 * (seed + i)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(1000 * k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads) and not errors
