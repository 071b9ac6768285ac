"""``nn.Parameter`` (a leaf tensor that a Module registers when assigned) and ``nn.Buffer``."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, vc_of

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A Tensor that is a module parameter: a leaf that requires grad (unless told otherwise).

    ``Parameter(t)`` shares ``t``'s memory but not its history, like torch's.
    Results of ops on a Parameter are plain Tensors.
    """

    def __new__(cls, data=None, requires_grad: bool = True):
        if data is None:
            from .. import _dtype as D
            arr = np.empty((0,), dtype=D.get_default_dtype().np)
        elif isinstance(data, Tensor):
            arr = data._data
        else:
            raise TypeError(f"Parameter(): data must be a Tensor, not {type(data).__name__}")
        self = object.__new__(cls)
        Tensor._init_from(self, arr)
        if isinstance(data, Tensor):
            self._vc = vc_of(data)  # shares memory (and so the version counter) with data
        if requires_grad:
            self.requires_grad_(True)
        return self

    def __init__(self, data=None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(Tensor._make(self._data.copy()), self.requires_grad)
        if self._grad is not None:
            result._grad = Tensor._make(self._grad._data.copy())
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (np.asarray(self._data).copy(), self._requires_grad))


def _uninitialized(shape, device=None, dtype=None, requires_grad: bool = True) -> Parameter:
    """A Parameter of ``shape`` whose values are not set yet.

    Layers create their weights this way and then fill them in ``reset_parameters()``, so
    that the default initialisation lives in one method that can be run again later.
    """
    from .._creation import empty
    return Parameter(empty(shape, device=device, dtype=dtype), requires_grad=requires_grad)


def _rebuild_parameter(arr, requires_grad):
    return Parameter(Tensor._make(arr), requires_grad)


class _BufferMeta(type):
    # isinstance(t, Buffer) is true for tensors marked as buffers, as torch's
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """``nn.Buffer(t, persistent=True)``: assigning it to a Module attribute registers a buffer."""

    def __new__(cls, data=None, *, persistent: bool = True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        t = data.detach()
        t._is_buffer = True
        t.persistent = persistent
        return t


# the lazy modules' placeholders live in a file of their own; torch exports them from nn.parameter
from ._uninitialized import UninitializedBuffer, UninitializedParameter, UninitializedTensorMixin, is_lazy  # noqa: E402,F401

__all__ += ["UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin", "is_lazy"]
