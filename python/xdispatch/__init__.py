"""xdispatch: tensors and ops on whichever device backend is installed (docs/python.md).

The compiled extension ``_xdispatch`` holds everything; this file re-exports it and adds the
Tensor methods that are the module's functions with the tensor as first argument
(``t.sum(dim=1)`` is ``xdispatch.sum(t, dim=1)``), as in PyTorch.
"""

from . import _xdispatch

# Every public name of the extension, including those that shadow builtins on purpose, as
# PyTorch's do (xdispatch.bool, xdispatch.float, xdispatch.abs, xdispatch.sum, ...).
for _name in dir(_xdispatch):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_xdispatch, _name)

_METHODS = (
    "add", "sub", "mul", "div", "pow", "eq", "ne", "lt", "gt", "ge", "le", "maximum", "minimum", "neg", "abs", "exp",
    "log", "sqrt", "rsqrt", "relu", "gelu", "silu", "sigmoid", "tanh", "clamp", "floor", "round", "sum",
    "mean", "amax", "amin", "argmax", "index_select", "gather", "cumsum", "topk", "softmax", "log_softmax", "mm", "bmm", "matmul", "addmm",
    "baddbmm",
)


def _method(fn):
    # Extension functions are not descriptors: a plain Python function binds `self`.
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


for _name in _METHODS:
    if not hasattr(_xdispatch.Tensor, _name):
        setattr(_xdispatch.Tensor, _name, _method(getattr(_xdispatch, _name)))
del _name

__version__ = _xdispatch.__version__
__all__ = [n for n in dir(_xdispatch) if not n.startswith("_")]
