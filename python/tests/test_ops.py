"""Every op of include/xd/ops.hpp against PyTorch 1.13 (or NumPy where 1.13 lacks the op), on the
CPU and, where built, the OpenCL device. OpenCL gets fewer cases: each new program is a kernel
build on PoCL."""

import math

import numpy as np
import pytest
import torch

import xdispatch as xd
from conftest import DEVICES, TORCH_DTYPE, assert_close, to_np, to_xd

FLOATS = [xd.float32, xd.float16, xd.bfloat16, xd.float64]
LAYOUTS = ["contiguous", "transposed", "broadcast"]


def cases(dtypes, layouts=LAYOUTS):
    """(device, dtype, layout): every combination on the CPU, float32 in two layouts on OpenCL."""
    out = [("cpu", d, l) for d in dtypes for l in layouts]
    if "opencl:0" in DEVICES:
        first = dtypes[0]
        out += [("opencl:0", first, l) for l in layouts[:2]]
    return out


def operands(dtype, layout, device, positive=False, seed=0):
    """A pair of torch tensors and the same values as xdispatch tensors in `layout`."""
    g = torch.Generator().manual_seed(seed)
    tdt = TORCH_DTYPE[dtype]

    def make(*shape):
        if dtype.is_floating_point:
            t = torch.randn(*shape, generator=g, dtype=torch.float64)
            if positive:
                t = t.abs() + 0.5
        else:
            t = torch.randint(-20, 20, shape, generator=g, dtype=torch.int64)
        return t.to(tdt)

    if layout == "contiguous":
        a, b = make(3, 5), make(3, 5)
        return a, b, to_xd(a, device), to_xd(b, device)
    if layout == "transposed":
        a, b = make(5, 3), make(5, 3)
        xa, xb = to_xd(a, device).t(), to_xd(b, device).t()
        assert not xa.is_contiguous()
        return a.t(), b.t(), xa, xb
    a, b = make(3, 1), make(1, 5)
    return a, b, to_xd(a, device), to_xd(b, device)


BINARY = {
    "add": lambda a, b: torch.add(a, b),
    "sub": lambda a, b: torch.sub(a, b),
    "mul": torch.mul,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.float16, xd.bfloat16, xd.int32]))
def test_binary_matches_torch(name, device, dtype, layout):
    a, b, xa, xb = operands(dtype, layout, device)
    assert_close(getattr(xd, name)(xa, xb), BINARY[name](a, b))


@pytest.mark.parametrize("device,dtype,layout", cases(FLOATS))
def test_div_matches_torch(device, dtype, layout):
    a, b, xa, xb = operands(dtype, layout, device, positive=True)
    assert_close(xd.div(xa, xb), torch.div(a, b))
    assert_close(xa / xb, a / b)


@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.int64]))
def test_add_sub_alpha_keyword(device, dtype, layout):
    a, b, xa, xb = operands(dtype, layout, device)
    assert_close(xd.add(xa, xb, alpha=3), torch.add(a, b, alpha=3))
    assert_close(xd.sub(xa, xb, alpha=2), torch.sub(a, b, alpha=2))


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "gt", "ge", "le"])
@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.int32]))
def test_comparisons_match_torch(name, device, dtype, layout):
    a, b, xa, xb = operands(dtype, layout, device)
    shape = torch.broadcast_shapes(a.shape, b.shape)
    mask = (torch.arange(math.prod(shape)) % 2 == 0).reshape(shape)
    b_eq = torch.where(mask, a.expand(shape), b.expand(shape))  # every second element equal to a's
    xb_eq = to_xd(b_eq, device)
    got = getattr(xd, name)(xa, xb_eq)
    assert got.dtype == xd.bool
    assert_close(got, getattr(torch, name)(a, b_eq))


def test_operators_match_torch():
    a, b, xa, xb = operands(xd.float32, "broadcast", "cpu", positive=True)
    assert_close(xa + xb, a + b)
    assert_close(xa - xb, a - b)
    assert_close(xa * xb, a * b)
    assert_close(xa / xb, a / b)
    assert_close(-xa, -a)
    assert_close(abs(xa - 1.0), abs(a - 1.0))
    assert_close(xa ** 2.0, a ** 2)
    assert_close(xa + 1.5, a + 1.5)
    assert_close(2.0 * xa, 2.0 * a)
    assert_close(1.0 - xa, 1.0 - a)
    assert_close(xa == xa, a == a)
    assert_close(xa < xb, a < b)
    assert_close(xa > xb, a > b)
    assert_close(xa != xa, a != a)
    assert_close(xa >= xb, a >= b)
    assert_close(xa <= xb, a <= b)
    assert_close(xa != 1.5, a != 1.5)
    assert_close(2.0 <= xa, 2.0 <= a)  # Python reflects it to xa >= 2.0
    y = xa.clone()
    y += xa
    assert_close(y, a + a)


def test_equality_with_none_or_another_type_is_identity_as_in_torch():
    x = xd.ones(3)
    assert (x == None) is False and (None == x) is False  # noqa: E711
    assert (x != None) is True and (None != x) is True  # noqa: E711
    assert (x == "a") is False and (x != "a") is True
    assert x in [None, x] and None not in [x]
    # Ordering and arithmetic with another type stay TypeErrors, naming the type.
    with pytest.raises(TypeError, match="expected an xdispatch.Tensor or a Python number, got NoneType"):
        x < None  # noqa: B015
    with pytest.raises(TypeError, match="got str"):
        x + "a"


@pytest.mark.parametrize("device", DEVICES)
def test_comparisons_follow_ieee_for_nan_and_signed_zero(device):
    a = torch.tensor([float("nan"), 1.0, float("nan"), -0.0, float("inf"), -float("inf"), 2.0])
    b = torch.tensor([float("nan"), float("nan"), 1.0, 0.0, float("inf"), 3.0, 2.0])
    xa, xb = to_xd(a, device), to_xd(b, device)
    for name in ["eq", "ne", "lt", "gt", "ge", "le"]:
        assert getattr(xd, name)(xa, xb).tolist() == getattr(torch, name)(a, b).tolist(), name


def test_ne_takes_bool_and_ge_refuses_it():
    a, b = torch.tensor([True, False, True]), torch.tensor([True, True, False])
    assert xd.ne(to_xd(a), to_xd(b)).tolist() == [False, True, True]
    with pytest.raises(xd.DtypeError, match="ge"):
        xd.ge(to_xd(a), to_xd(b))


@pytest.mark.parametrize("device", DEVICES)
def test_where_matches_torch(device):
    a, b, xa, xb = operands(xd.float32, "broadcast", device)
    cond = a > 0
    assert_close(xd.where(to_xd(cond, device), xa, xb), torch.where(cond, a, b))


UNARY = {
    "neg": (torch.neg, False), "abs": (torch.abs, False), "exp": (torch.exp, False),
    "log": (torch.log, True), "sqrt": (torch.sqrt, True), "rsqrt": (torch.rsqrt, True),
    "relu": (torch.relu, False), "silu": (torch.nn.functional.silu, False),
    "sigmoid": (torch.sigmoid, False), "tanh": (torch.tanh, False),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.bfloat16, xd.float64], LAYOUTS[:2]))
def test_unary_matches_torch(name, device, dtype, layout):
    ref, positive = UNARY[name]
    a, _, xa, _ = operands(dtype, layout, device, positive=positive)
    if dtype == xd.float16 or dtype == xd.bfloat16:  # torch 1.13 lacks some CPU half kernels
        expected = ref(a.float()).to(a.dtype)
    else:
        expected = ref(a)
    assert_close(getattr(xd, name)(xa), expected)


def _halves(dtype, device):
    """Multiples of 0.5 (the ties of round) with NaN, +-Inf and -0 among them."""
    t = torch.tensor([-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 3.25, -3.75, float("nan"), float("inf"),
                      -float("inf"), 7.0, -7.0], dtype=TORCH_DTYPE[dtype]).reshape(3, 5)
    return t, to_xd(t, device)


def _in_float(fn, t):
    """torch 1.13 has no CPU f16 clamp/floor/round: those are computed in float and rounded once,
    exact for these ops, as xdispatch computes them."""
    return fn(t.float()).to(t.dtype) if t.dtype == torch.float16 else fn(t)


@pytest.mark.parametrize("device,dtype,layout", cases(FLOATS, LAYOUTS[:2]))
def test_floor_round_match_torch(device, dtype, layout):
    a, _, xa, _ = operands(dtype, layout, device)
    a, xa = a * 4, xa * 4.0
    assert_close(xd.floor(xa), _in_float(torch.floor, a), rtol=0, atol=0)
    assert_close(xa.round(), _in_float(torch.round, a), rtol=0, atol=0)
    h, xh = _halves(dtype, device)
    assert_close(xd.floor(xh), _in_float(torch.floor, h), rtol=0, atol=0)
    got = xd.round(xh)
    assert_close(got, _in_float(torch.round, h), rtol=0, atol=0)
    want = _in_float(torch.round, h)
    numbers = ~torch.isnan(want)  # a NaN's sign bit is not specified (torch's float round sets it)
    assert np.signbit(to_np(got))[numbers.numpy()].tolist() == torch.signbit(want)[numbers].tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.float64])
@pytest.mark.parametrize("decimals", [1, 2, -1])
def test_round_decimals_match_torch_exactly(device, dtype, decimals):
    a, _, xa, _ = operands(dtype, "contiguous", device, seed=3)
    a, xa = a * 50, xa * 50.0
    assert_close(xd.round(xa, decimals=decimals), torch.round(a, decimals=decimals), rtol=0, atol=0)


@pytest.mark.parametrize("device,dtype,layout", cases(FLOATS + [xd.int32, xd.uint8], LAYOUTS))
def test_clamp_matches_torch(device, dtype, layout):
    a, _, xa, _ = operands(dtype, layout, device)
    for lo, hi in [(-1, 1), (0, None), (None, -1), (2, -2)]:
        assert_close(xd.clamp(xa, lo, hi), _in_float(lambda t: torch.clamp(t, min=lo, max=hi), a), rtol=0, atol=0)
        assert_close(xa.clamp(min=lo, max=hi), _in_float(lambda t: torch.clamp(t, min=lo, max=hi), a), rtol=0, atol=0)
    if dtype.is_floating_point:
        h, xh = _halves(dtype, device)
        assert_close(xd.clamp(xh, min=-1.0, max=2.0), _in_float(lambda t: torch.clamp(t, -1.0, 2.0), h), rtol=0, atol=0)


def test_clamp_floor_round_errors_match_torch_kinds():
    with pytest.raises(ValueError, match="at least one of 'min' or 'max'"):
        xd.clamp(xd.ones(2))
    with pytest.raises(ValueError, match="must be an integer for i32"):
        xd.clamp(xd.ones(2, dtype=xd.int32), min=0.5)
    with pytest.raises(TypeError, match="round with decimals 1"):
        xd.round(xd.ones(2, dtype=xd.int32), decimals=1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.bfloat16, xd.int64, xd.uint8, xd.bool])
def test_index_select_matches_torch(device, dtype):
    g = torch.Generator().manual_seed(7)
    a = (torch.rand(4, 5, 6, generator=g) * 10).to(TORCH_DTYPE[dtype])
    xa = to_xd(a, device)
    for dim in [0, 1, -1]:
        index = torch.randint(0, a.shape[dim], (9,), generator=g)  # repeats, any order
        for idx in [index, index.to(torch.int32)]:
            expected = torch.index_select(a, dim, idx)
            assert_close(xd.index_select(xa, dim, to_xd(idx, device)), expected, rtol=0, atol=0)
            assert_close(xa.index_select(dim, to_xd(idx, device)), expected, rtol=0, atol=0)
    empty = torch.zeros(0, dtype=torch.int64)
    assert xd.index_select(xa, 1, to_xd(empty, device)).shape == (4, 0, 6)
    # A transposed input and a strided index.
    idx = to_xd(torch.tensor([4, 0, 3, 3, 1, 2]), device)[::2]
    assert_close(xd.index_select(xa.transpose(0, 2), 0, idx), torch.index_select(a.transpose(0, 2), 0,
                 torch.tensor([4, 3, 1])), rtol=0, atol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_embedding_matches_torch(device):
    g = torch.Generator().manual_seed(8)
    weight = torch.randn(10, 4, generator=g)
    indices = torch.randint(0, 10, (3, 5), generator=g)
    expected = torch.nn.functional.embedding(indices, weight)
    assert_close(xd.embedding(to_xd(indices, device), to_xd(weight, device)), expected, rtol=0, atol=0)
    assert_close(xd.embedding(to_xd(indices.to(torch.int32), device), to_xd(weight, device), padding_idx=-1),
                 expected, rtol=0, atol=0)


def test_index_select_embedding_errors_match_torch_kinds():
    a = xd.ones((2, 3))
    with pytest.raises(IndexError, match="index 3 \\(at position 0\\) is out of range for dim 1 of size 3"):
        xd.index_select(a, 1, xd.from_numpy(np.array([3], dtype=np.int64)))
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        xd.index_select(a, 2, xd.from_numpy(np.array([0], dtype=np.int64)))
    with pytest.raises(TypeError, match="'index' has dtype f32"):
        xd.index_select(a, 0, xd.ones(1))
    with pytest.raises(ValueError, match="padding_idx 2 must be within num_embeddings"):
        xd.embedding(xd.from_numpy(np.array([0], dtype=np.int64)), a, padding_idx=2)


def _sdpa_reference(q, k, v, mask=None, is_causal=False, scale=None):
    # torch 1.13 has no F.scaled_dot_product_attention: PyTorch 2's math path, in f64.
    q, k, v = q.double(), k.double(), v.double()
    s = q @ k.transpose(-2, -1) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if is_causal:
        s = s.masked_fill(~torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(), -math.inf)
    if mask is not None:
        s = s + (torch.zeros(mask.shape, dtype=torch.float64).masked_fill(~mask, -math.inf)
                 if mask.dtype == torch.bool else mask.double())
    return torch.softmax(s, -1) @ v


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [xd.float32, xd.float16, xd.bfloat16])
def test_scaled_dot_product_attention_matches_torch(device, dtype):
    g = torch.Generator().manual_seed(11)
    td = TORCH_DTYPE[dtype]
    q = torch.randn(2, 3, 37, 16, generator=g).to(td)
    k = torch.randn(2, 1, 45, 16, generator=g).to(td)  # one head, broadcast
    v = torch.randn(2, 3, 45, 8, generator=g).to(td)
    bmask = torch.rand(37, 45, generator=g) > 0.3
    fmask = torch.randn(2, 1, 37, 45, generator=g).to(td)
    xq, xk, xv = (to_xd(t, device) for t in (q, k, v))
    for kwargs, mask in [({}, None), ({"is_causal": True}, None), ({"scale": 0.3}, None), ({}, bmask), ({}, fmask)]:
        got = xd.scaled_dot_product_attention(xq, xk, xv, None if mask is None else to_xd(mask, device), **kwargs)
        assert_close(got, _sdpa_reference(q, k, v, mask, **kwargs).to(td))


def test_scaled_dot_product_attention_errors_match_torch_kinds():
    q = xd.ones((2, 4))
    with pytest.raises(ValueError, match="attn_mask and is_causal cannot both be set"):
        xd.scaled_dot_product_attention(q, q, q, xd.ones((2, 2), dtype=xd.bool), is_causal=True)
    with pytest.raises(ValueError, match="dropout_p must be 0"):
        xd.scaled_dot_product_attention(q, q, q, dropout_p=0.1)
    with pytest.raises(TypeError, match="'query' is f32 but 'key' is f16"):
        xd.scaled_dot_product_attention(q, xd.ones((2, 4), dtype=xd.float16), q)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.float64], LAYOUTS[:2]))
def test_gelu_matches_torch(approximate, device, dtype, layout):
    a, _, xa, _ = operands(dtype, layout, device)
    assert_close(xd.gelu(xa, approximate=approximate), torch.nn.functional.gelu(a, approximate=approximate))


@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.float64], LAYOUTS[:2]))
def test_pow_matches_torch(device, dtype, layout):
    a, _, xa, _ = operands(dtype, layout, device, positive=True)
    assert_close(xd.pow(xa, 2.5), torch.pow(a, 2.5))
    assert_close(xd.pow(xa, exponent=-1.0), torch.pow(a, -1.0))


@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.bfloat16, xd.int32], LAYOUTS[:2]))
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), ((0, 1), False), (-1, False)])
def test_sum_amax_amin_match_torch(device, dtype, layout, dim, keepdim):
    a, _, xa, _ = operands(dtype, layout, device)
    tdim = dim if dim is not None else tuple(range(a.dim()))
    ref = a.float() if dtype == xd.bfloat16 else a
    rtol = 3e-2 if dtype == xd.bfloat16 else None
    assert_close(xd.sum(xa, dim=dim, keepdim=keepdim), torch.sum(ref, dim=tdim, keepdim=keepdim).to(a.dtype),
                 rtol=rtol, atol=rtol)
    assert_close(xd.amax(xa, dim=dim, keepdim=keepdim), torch.amax(a, dim=tdim, keepdim=keepdim))
    assert_close(xd.amin(xa, dim, keepdim), torch.amin(a, dim=tdim, keepdim=keepdim))


@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.float64], LAYOUTS[:2]))
def test_mean_argmax_match_torch(device, dtype, layout):
    a, _, xa, _ = operands(dtype, layout, device)
    assert_close(xd.mean(xa), torch.mean(a))
    assert_close(xd.mean(xa, dim=1, keepdim=True), torch.mean(a, dim=1, keepdim=True))
    assert xd.argmax(xa, dim=1).tolist() == torch.argmax(a, dim=1).tolist()
    assert xd.argmax(xa, dim=0, keepdim=True).tolist() == torch.argmax(a, dim=0, keepdim=True).tolist()
    assert xd.argmax(xa.contiguous()).item() == torch.argmax(a).item()


@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.bfloat16, xd.float64], LAYOUTS[:2]))
@pytest.mark.parametrize("dim", [0, -1])
def test_softmax_log_softmax_match_torch(device, dtype, layout, dim):
    a, _, xa, _ = operands(dtype, layout, device)
    ref = a if dtype == xd.float64 else a.float()  # bfloat16: PyTorch's f32 result, rounded
    assert_close(xd.softmax(xa, dim), torch.softmax(ref, dim).to(a.dtype))
    assert_close(xd.log_softmax(xa, dim=dim), torch.log_softmax(ref, dim).to(a.dtype))


def _mats(dtype, device, transposed, *shapes, seed=1):
    g = torch.Generator().manual_seed(seed)
    ts = [torch.randn(*s, generator=g, dtype=torch.float64).to(TORCH_DTYPE[dtype]) for s in shapes]
    if not transposed:
        return ts, [to_xd(t, device) for t in ts]
    xs = [to_xd(t.transpose(-1, -2).contiguous(), device).transpose(-1, -2) for t in ts]
    return ts, xs


MATMUL_TOL = {xd.float32: 1e-4, xd.float64: 1e-10, xd.float16: 1e-2, xd.bfloat16: 5e-2}


@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.float16, xd.bfloat16, xd.float64],
                                                      ["contiguous", "transposed"]))
def test_matmul_family_matches_torch(device, dtype, layout):
    tr = layout == "transposed"
    tol = MATMUL_TOL[dtype]
    (a, b, c), (xa, xb, xc) = _mats(dtype, device, tr, (4, 6), (6, 5), (4, 5))
    ref = lambda t: t.double()  # noqa: E731
    assert_close(xd.mm(xa, xb), ref(a) @ ref(b), rtol=tol, atol=tol)
    assert_close(xa @ xb, ref(a) @ ref(b), rtol=tol, atol=tol)
    assert_close(xd.addmm(xc, xa, xb, beta=0.5, alpha=2.0),
                 torch.addmm(ref(c), ref(a), ref(b), beta=0.5, alpha=2.0), rtol=tol, atol=tol)
    (a3, b3, c3), (xa3, xb3, xc3) = _mats(dtype, device, tr, (2, 3, 4), (2, 4, 5), (2, 3, 5))
    assert_close(xd.bmm(xa3, xb3), torch.bmm(ref(a3), ref(b3)), rtol=tol, atol=tol)
    assert_close(xd.baddbmm(xc3, xa3, xb3, beta=2.0, alpha=-1.0),
                 torch.baddbmm(ref(c3), ref(a3), ref(b3), beta=2.0, alpha=-1.0), rtol=tol, atol=tol)


MATMUL_SHAPES = [((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 4)), ((2, 3, 5), (5, 4)), ((2, 3, 5), (5,)),
                 ((5,), (2, 5, 4)), ((3, 5), (2, 5, 4)), ((2, 1, 3, 5), (4, 5, 6)), ((1, 3, 5), (7, 1, 5, 2)),
                 ((0, 3, 5), (5, 4)), ((2, 3, 0), (2, 0, 4))]


@pytest.mark.parametrize("device,dtype", [("cpu", xd.float64), ("cpu", xd.bfloat16)] +
                         ([("opencl:0", xd.float32)] if "opencl:0" in DEVICES else []))
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_follows_torch_matmul_for_vectors_and_broadcast_batches(device, dtype, shapes):
    g = torch.Generator().manual_seed(3)
    a, b = (torch.randn(*s, generator=g, dtype=torch.float64).to(TORCH_DTYPE[dtype]) for s in shapes)
    xa, xb = to_xd(a, device), to_xd(b, device)
    if a.dim() >= 2:  # self as a transposed view: its batch cannot fold into mm's rows without a copy
        xa = to_xd(a.transpose(-1, -2).contiguous(), device).transpose(a.dim() - 1, a.dim() - 2)
    expected = torch.matmul(a.double(), b.double())
    tol = MATMUL_TOL[dtype]
    got = xd.matmul(xa, xb)
    assert tuple(got.shape) == tuple(expected.shape)
    assert_close(got, expected, rtol=tol, atol=tol)
    assert_close(xa @ xb, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("shapes,message", [(((2, 3, 4), (3, 4, 5)), "batch dim 0: 2 vs 3"),
                                            (((3, 4), (5,)), "4 columns vs 5 rows"),
                                            (((), (3,)), "at least one dim")])
def test_matmul_rejects_shapes_torch_rejects(shapes, message):
    a, b = (xd.zeros(list(s)) for s in shapes)
    with pytest.raises(xd.ShapeError, match=message):
        xd.matmul(a, b)
    with pytest.raises(xd.ShapeError, match="matmul"):
        a @ b


@pytest.mark.parametrize("device", DEVICES)
def test_int_mm_is_exact(device):
    g = torch.Generator().manual_seed(2)
    a = torch.randint(-128, 128, (5, 40), generator=g, dtype=torch.int8)
    b = torch.randint(-128, 128, (40, 3), generator=g, dtype=torch.int8)
    got = xd.int_mm(to_xd(a, device), to_xd(b, device))
    assert got.dtype == xd.int32
    assert got.tolist() == (a.long() @ b.long()).tolist()


def _fp8_from(values, dtype, device):
    """fp8 tensor of `values` (saturating) and its exact values back in float64."""
    x = xd.cast(xd.tensor(values, dtype=xd.float32, device=device), dtype, mode="saturate")
    return x, to_np(x.to(xd.float32)).astype(np.float64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("out_dtype", [xd.float32, xd.bfloat16])
def test_scaled_mm_matches_dequantised_matmul(device, out_dtype):
    rng = np.random.default_rng(3)
    a, an = _fp8_from(rng.standard_normal((4, 32)).tolist(), xd.float8_e4m3fn, device)
    b, bn = _fp8_from(rng.standard_normal((32, 8)).tolist(), xd.float8_e5m2, device)
    sa = xd.tensor([[0.5]], device=device)
    sb = xd.tensor([[2.0]], device=device)
    bias = xd.tensor(rng.standard_normal(8).tolist(), dtype=out_dtype, device=device)
    got = xd.scaled_mm(a, b, sa, sb, bias=bias, out_dtype=out_dtype)
    assert got.dtype == out_dtype
    expected = (an * 0.5) @ (bn * 2.0) + to_np(bias).astype(np.float64)
    tol = 1e-4 if out_dtype == xd.float32 else 1e-2
    np.testing.assert_allclose(to_np(got), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("device", DEVICES)
def test_scaled_mm_fast_accum_without_a_matrix_unit_sums_in_f32(device):
    # The CPU and PoCL kernels have no reduced-precision accumulation to offer: the flag leaves
    # their sums in f32, so both calls give the same bits.
    rng = np.random.default_rng(5)
    a, _ = _fp8_from(rng.standard_normal((24, 96)).tolist(), xd.float8_e4m3fn, device)
    b, _ = _fp8_from(rng.standard_normal((96, 40)).tolist(), xd.float8_e4m3fn, device)
    sa = xd.tensor([[0.25]], device=device)
    sb = xd.tensor([[4.0]], device=device)
    exact = xd.scaled_mm(a, b, sa, sb, out_dtype=xd.float32)
    fast = xd.scaled_mm(a, b, sa, sb, out_dtype=xd.float32, use_fast_accum=True)
    assert to_np(fast).tobytes() == to_np(exact).tobytes()


def test_cast_standard_and_saturate():
    x = xd.tensor([1.0, -3.5, 1000.0, -1e6], dtype=xd.float32)
    assert xd.cast(x, xd.float8_e4m3fn, mode="saturate").to(xd.float32).tolist() == [1.0, -3.5, 448.0, -448.0]
    standard = xd.cast(x, xd.float8_e4m3fn).to(xd.float32).tolist()
    assert standard[:2] == [1.0, -3.5] and math.isnan(standard[2])  # no Inf in e4m3fn: NaN, as torch
    assert xd.cast(x, xd.float64).tolist() == [1.0, -3.5, 1000.0, -1e6]
    assert xd.fp8_max(xd.float8_e4m3fn) == 448.0 and xd.fp8_max(xd.float8_e5m2) == 57344.0


def _rms_ref(x, w, eps):
    rstd = 1.0 / np.sqrt((x.astype(np.float64) ** 2).mean(axis=-1, keepdims=True) + eps)
    return x * rstd * w, rstd


@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.bfloat16], ["contiguous", "transposed"]))
def test_rms_norm_and_backward_match_autograd(device, dtype, layout):
    x, _, xx, _ = operands(dtype, layout, device, seed=4)
    w = torch.randn(x.shape[-1], dtype=torch.float64, generator=torch.Generator().manual_seed(5)).to(x.dtype)
    xw = to_xd(w, device)
    eps = 1e-6
    y, rstd = xd.rms_norm_with_rstd(xx, [x.shape[-1]], weight=xw, eps=eps)
    xr = x.double().requires_grad_()
    wr = w.double().requires_grad_()
    yr = xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + eps) * wr
    tol = 1e-4 if dtype == xd.float32 else 3e-2
    assert_close(y, yr.detach(), rtol=tol, atol=tol)
    assert_close(xd.rms_norm(xx, x.shape[-1], weight=xw, eps=eps), yr.detach(), rtol=tol, atol=tol)
    assert rstd.dtype == xd.float32 and rstd.shape == (3, 1)
    grad = torch.randn(yr.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(6)).to(x.dtype)
    yr.backward(grad.double())
    gi, gw = xd.rms_norm_backward(to_xd(grad, device), xx, [x.shape[-1]], rstd, weight=xw)
    assert_close(gi, xr.grad, rtol=tol * 5, atol=tol * 5)
    assert_close(gw, wr.grad, rtol=tol * 5, atol=tol * 5)
    gi_only, none = xd.rms_norm_backward(to_xd(grad, device), xx, [x.shape[-1]], rstd, xw, (True, False))
    assert none is None and gi_only is not None


@pytest.mark.parametrize("device,dtype,layout", cases([xd.float32, xd.bfloat16], ["contiguous", "transposed"]))
def test_layer_norm_and_backward_match_autograd(device, dtype, layout):
    x, _, xx, _ = operands(dtype, layout, device, seed=14)
    n = x.shape[-1]
    g = torch.Generator().manual_seed(15)
    w = torch.randn(n, dtype=torch.float64, generator=g).to(x.dtype)
    b = torch.randn(n, dtype=torch.float64, generator=g).to(x.dtype)
    xw, xb = to_xd(w, device), to_xd(b, device)
    eps = 1e-5
    y, mean, rstd = xd.native_layer_norm(xx, [n], weight=xw, bias=xb, eps=eps)
    xr, wr, br = (t.double().requires_grad_() for t in (x, w, b))
    yr = torch.nn.functional.layer_norm(xr, [n], wr, br, eps)
    tol = 1e-4 if dtype == xd.float32 else 3e-2
    assert_close(y, yr.detach(), rtol=tol, atol=tol)
    assert_close(xd.layer_norm(xx, [n], xw, xb), yr.detach(), rtol=tol, atol=tol)
    assert mean.dtype == xd.float32 and mean.shape == (x.shape[0], 1) and rstd.shape == (x.shape[0], 1)
    assert_close(mean, x.double().mean(-1, keepdim=True), rtol=tol, atol=tol)
    grad = torch.randn(yr.shape, dtype=torch.float64, generator=g).to(x.dtype)
    yr.backward(grad.double())
    gi, gw, gb = xd.layer_norm_backward(to_xd(grad, device), xx, [n], mean, rstd, weight=xw, bias=xb)
    assert_close(gi, xr.grad, rtol=tol * 5, atol=tol * 5)
    assert_close(gw, wr.grad, rtol=tol * 5, atol=tol * 5)
    assert_close(gb, br.grad, rtol=tol * 5, atol=tol * 5)
    gi_only, none_w, none_b = xd.layer_norm_backward(to_xd(grad, device), xx, [n], mean, rstd, xw, xb,
                                                     (True, False, False))
    assert none_w is None and none_b is None and gi_only is not None


@pytest.mark.parametrize("device", DEVICES)
def test_quantize_int4_and_weight_int4_mm_match_the_documented_formula(device):
    rng = np.random.default_rng(7)
    n, k, group = 8, 64, 32
    w = rng.standard_normal((n, k)).astype(np.float32)
    packed, scales, zeros = xd.quantize_int4(xd.from_numpy(w).to(device), group)
    assert packed.dtype == xd.uint8 and packed.shape == (n, k // 2)
    assert scales.shape == (k // group, n) and zeros.dtype == xd.int8
    p, s, z = to_np(packed), to_np(scales), to_np(zeros).astype(np.float32)
    q = np.empty((n, k), np.float32)
    q[:, 0::2] = p & 0xF
    q[:, 1::2] = p >> 4
    deq = (q - np.repeat(z.T, group, axis=1)) * np.repeat(s.T, group, axis=1)
    assert np.all(np.abs(deq - w) <= np.repeat(s.T, group, axis=1) / 2 + 1e-6)
    x = rng.standard_normal((3, k)).astype(np.float32)
    got = xd.weight_int4_mm(xd.from_numpy(x).to(device), packed, scales, zeros, group_size=group)
    np.testing.assert_allclose(to_np(got), x @ deq.T, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_creation_ops(device):
    assert xd.empty(2, 3, device=device).shape == (2, 3)
    assert xd.empty((4,), dtype=xd.int32, device=device).dtype == xd.int32
    assert xd.zeros(2, 2, device=device).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert xd.ones((3,), dtype=xd.int64, device=device).tolist() == [1, 1, 1]
    assert xd.full((2,), 7.5, device=device).tolist() == [7.5, 7.5]
    assert xd.arange(5, device=device).tolist() == torch.arange(5).tolist()
    assert xd.arange(5).dtype == xd.int64
    assert_close(xd.arange(0.0, 1.0, 0.25, device=device), torch.arange(0.0, 1.0, 0.25))
    assert xd.arange(2, 11, 3, device=device).tolist() == [2, 5, 8]
    assert xd.tensor([[1, 2], [3, 4]], device=device).tolist() == [[1, 2], [3, 4]]
    assert xd.tensor([True, False]).dtype == xd.bool
    assert xd.tensor([1.5, 2]).dtype == xd.float32
    assert xd.tensor(2**62 + 1).item() == 2**62 + 1  # ints stay exact beyond 2^53
    assert xd.tensor([1, 2], dtype=xd.float64).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("device", DEVICES)
def test_rand_randn_are_seeded_and_plausible(device):
    g1, g2 = xd.Generator(123), xd.Generator(123)
    a = xd.rand(1000, generator=g1, device=device)
    b = xd.rand((1000,), generator=g2, device=device)
    assert a.tolist() == b.tolist()
    v = to_np(a)
    assert v.min() >= 0.0 and v.max() < 1.0 and abs(v.mean() - 0.5) < 0.05
    n = to_np(xd.randn(4000, generator=xd.Generator(9), device=device))
    assert abs(n.mean()) < 0.1 and abs(n.std() - 1.0) < 0.1
    xd.manual_seed(5)
    c = xd.rand(4).tolist()
    xd.manual_seed(5)
    assert xd.rand(4).tolist() == c


def test_tensor_methods_forward_to_the_functions():
    x = xd.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert x.sum().item() == 6.0
    assert x.sum(dim=1).tolist() == [-1.0, 7.0]
    assert x.relu().tolist() == [[1.0, 0.0], [3.0, 4.0]]
    assert x.add(x, alpha=2).tolist() == [[3.0, -6.0], [9.0, 12.0]]
    assert x.softmax(dim=1).shape == (2, 2)
