"""``out=`` on torch's top-level functions that take it (``torch.add(a, b, out=c)``).

torch's rules: the result is written into ``out`` (its dtype kept: a result that cannot be cast
into it is refused), ``out`` is returned, its version counter bumped; an ``out`` of another shape
is resized, with torch's deprecation warning when it had elements; and since a write into ``out``
cannot be differentiated, the call is refused while grad mode is on and an input or ``out``
requires grad.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .._tensor import Tensor

#: the top-level functions given ``out=`` (names in the ``leafgrad`` namespace)
OUT_FUNCTIONS = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow", "matmul", "mm",
                 "bmm", "mv", "dot", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "sum", "mean",
                 "prod", "exp", "log", "sqrt", "abs", "neg", "sin", "cos", "tanh", "sigmoid", "clamp", "clip",
                 "where", "maximum", "minimum", "floor", "ceil", "round", "cumsum", "logsumexp", "amax", "amin",
                 "addmm", "outer", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not",
                 "remainder", "fmod", "square", "reciprocal", "rsqrt", "sign", "erf", "log1p", "expm1")
_DTYPE_FROM_OUT = frozenset({"sum", "prod"})  # (these compute in out's dtype, as if dtype=out.dtype)


def _tensors_in(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (t for t in a if isinstance(t, Tensor))


def with_out(fn, name: str):
    """``fn`` with an ``out=`` keyword, following torch's rules (see the module docstring)."""
    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        from ..autograd.grad_mode import is_grad_enabled, no_grad
        from .inplace import check_cast, copy_
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        if is_grad_enabled() and (out.requires_grad or any(t.requires_grad for t in _tensors_in(args))
                                  or any(t.requires_grad for t in _tensors_in(kwargs.values()))):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                               f"but one of the arguments requires grad. Call it under torch.no_grad(), or drop "
                               f"out= and use the returned tensor.")
        if name in _DTYPE_FROM_OUT and kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        with no_grad():
            result = fn(*args, **kwargs)
        check_cast(out, result._data.dtype)
        if result._data.shape != out._data.shape:
            if out._data.size:
                warnings.warn(f"An output with one or more elements was resized since it had shape "
                              f"{list(out._data.shape)}, which does not match the required output shape "
                              f"{list(result._data.shape)}. This behavior is deprecated, and in a future PyTorch "
                              f"release outputs will not be resized unless they have zero elements. You can "
                              f"explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                              f"t.resize_(0).", UserWarning, stacklevel=2)
            if out._base is not None:
                raise RuntimeError(f"{name}(): out= is a view of another tensor and has the wrong shape "
                                   f"{list(out._data.shape)} (needed {list(result._data.shape)}): leafgrad cannot "
                                   f"resize a view; pass an out of the right shape")
            out._data = np.zeros(result._data.shape, dtype=out._data.dtype)
        with no_grad():
            copy_(out, result)
        return out
    return wrapper


def add_out_args(namespace: dict) -> None:
    """Give the functions of ``OUT_FUNCTIONS`` found in ``namespace`` their ``out=`` keyword."""
    for name in OUT_FUNCTIONS:
        fn = namespace.get(name)
        if fn is not None:
            namespace[name] = with_out(fn, name)
