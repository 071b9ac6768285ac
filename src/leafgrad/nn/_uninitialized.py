"""``UninitializedParameter`` and ``UninitializedBuffer``: the placeholders of the lazy modules.

A lazy module (``nn.LazyLinear``, ...) does not know its input size until the first batch, so
its weights start as placeholders with a dtype, a device and ``requires_grad`` but no shape.
Using one raises torch's errors (ValueError for an op, RuntimeError for ``.shape``); the few
methods a module needs before the first batch (``to``/``float``/``double`` casts, ``requires_grad``,
``is_floating_point``, ``data``) work. ``materialize(shape)`` gives it storage and turns it,
in place, into the class it stands for (``Parameter`` / ``Tensor``), as torch's does; the
module and any optimiser built on its ``parameters()`` keep the same object.

Only these placeholder objects pay for the checks (``__getattribute__`` of their own class):
ordinary tensors are untouched. leafgrad's free functions read tensors' arrays directly, so
``torch.add(p, 1)`` on a placeholder computes on its empty array (and fails on shapes) where
torch raises the ValueError; methods and operators raise it as torch's do.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .parameter import Parameter

__all__ = ["UninitializedTensorMixin", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]

# what a placeholder still answers: its dtype, device and grad flags, and the casts Module.to() uses
_ALLOWED = frozenset({
    "materialize", "cls_to_become", "dtype", "device", "requires_grad", "requires_grad_", "grad", "grad_fn",
    "is_leaf", "data", "to", "float", "double", "half", "bfloat16", "cpu", "cuda", "type", "is_floating_point",
    "is_complex", "size", "get_device", "persistent", "is_cuda", "layout",
})


def _unusable(cls_name: str, what: str) -> ValueError:
    return ValueError(f"Attempted to use an uninitialized parameter in {what}. This error happens when you are "
                      f"using a `LazyModule` or explicitly manipulating `torch.nn.parameter.{cls_name}` objects. "
                      "When using LazyModules Call `forward` with a dummy batch to initialize the parameters "
                      "before calling torch functions")


class UninitializedTensorMixin:
    """The behaviour the two placeholders share (see the module docstring)."""

    __slots__ = ()
    cls_to_become: type = Tensor

    def __getattribute__(self, name: str):
        if name[0] == "_" or name in _ALLOWED:
            return object.__getattribute__(self, name)
        if name in ("shape", "ndim"):
            raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                               "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                               "initialized one. Call `forward` to initialize the parameters before accessing their "
                               "attributes.")
        if hasattr(Tensor, name):
            raise _unusable(type(self).__name__, f"<method '{name}' of Tensor objects>")
        return object.__getattribute__(self, name)

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the placeholder storage of ``shape`` (values unset, as ``torch.empty``) and make it the
        class it stands for."""
        dt = self.dtype if dtype is None else dtype
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        object.__setattr__(self, "_data", np.empty(shape, dtype=dt.np))
        self.__class__ = self.cls_to_become

    def to(self, *args, **kwargs):
        """A cast keeps the placeholder a placeholder (of the new dtype)."""
        target = Tensor.to(Tensor._make(self._data), *args, **kwargs)
        if target.dtype == self.dtype:
            return self
        return type(self).__new__(type(self), requires_grad=self._requires_grad, dtype=target.dtype)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (type(self), (self._requires_grad, None, self.dtype))

    def __deepcopy__(self, memo):
        result = type(self)(self._requires_grad, None, self.dtype)
        memo[id(self)] = result
        return result


def _operators():
    """Operators are looked up on the class, past ``__getattribute__``: each one raises too."""
    def make(op: str):
        def method(self, *args, **kwargs):
            raise _unusable(type(self).__name__, f"<method '{op}' of Tensor objects>")
        return method
    names = ("add", "radd", "sub", "rsub", "mul", "rmul", "matmul", "rmatmul", "truediv", "rtruediv", "floordiv",
             "pow", "rpow", "neg", "pos", "abs", "getitem", "setitem", "iter", "len", "lt", "le", "gt", "ge",
             "iadd", "isub", "imul", "itruediv", "array", "float", "int", "bool", "index")
    return {f"__{n}__": make(f"__{n}__") for n in names}


for _name, _fn in _operators().items():
    setattr(UninitializedTensorMixin, _name, _fn)


def _make_placeholder(cls, requires_grad: bool, device, dtype):
    dt = D.get_default_dtype() if dtype is None else dtype
    self = object.__new__(cls)
    Tensor._init_from(self, np.empty((0,), dtype=dt.np))
    if requires_grad:
        self.requires_grad_(True)
    return self


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (a lazy module's weight); becomes a Parameter when
    materialised."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return _make_placeholder(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a lazy norm's running statistics); becomes a Tensor when
    materialised."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        self = _make_placeholder(cls, requires_grad, device, dtype)
        self.persistent = persistent
        return self

    def __init__(self, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True) -> None:
        pass


def is_lazy(param) -> bool:
    """Whether ``param`` is a placeholder still waiting for its shape."""
    return isinstance(param, UninitializedTensorMixin)
