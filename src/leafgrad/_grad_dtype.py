"""``Tensor.grad_dtype`` (torch 2.13): the dtype a leaf's ``.grad`` must have.

By default it is the tensor's own dtype (the engine already casts every gradient to its input's
dtype). Set to another dtype, incoming gradients are cast to it before the leaf's hooks run and
before they are accumulated, so ``.grad`` (and ``autograd.grad``'s result for that leaf) has that
dtype; set to None, a gradient of any dtype is accepted, also by ``.grad = ...``. Only leaves have
one. The cast rides on the leaf's own hook table, first in line (torch casts before the hooks).
"""
from __future__ import annotations

from . import _dtype as D
from ._tensor import Tensor
from .autograd.graph import _HookDict
from .errors import raise_autograd

_DEFAULT = object()  # (no grad_dtype set: the tensor's dtype)
_KEY = "grad_dtype cast"  # (the cast's key in the hook table; user hooks have integer ids)
_orig_grad = Tensor.grad


def _dtype_name(dt) -> str:
    return D.CPP_NAMES.get(dt.name, dt.name)


def grad_dtype(self: Tensor):
    if self._grad_fn is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors. This tensor was made by "
                           f"{self._grad_fn.name()}: read the grad_dtype of the leaf it comes from.")
    value = self.__dict__.get("_grad_dtype", _DEFAULT)
    return self.dtype if value is _DEFAULT else value


def _cast_to(dtype):
    def cast(grad: Tensor) -> Tensor:
        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError("isDifferentiableType(grad.scalar_type()) INTERNAL ASSERT FAILED: grad_dtype "
                               f"{dtype} is not a differentiable type; set a floating point grad_dtype (or None).")
        return grad if grad.dtype == dtype else grad.to(dtype)
    return cast


def _set_grad_dtype(self: Tensor, value) -> None:
    if self._grad_fn is not None:
        self.grad  # noqa: B018  (torch's setter reads .grad first: the non-leaf warning, then the refusal)
        raise RuntimeError("grad_dtype can only be set on leaf tensors. This tensor was made by "
                           f"{self._grad_fn.name()}: set grad_dtype on the leaf it comes from.")
    if value is not None and not isinstance(value, D.dtype):
        raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
    grad = self._grad
    if value is not None and grad is not None and grad.dtype != value:
        raise RuntimeError(f"Cannot set grad_dtype to '{D.scalar_type_name(value)}' because there is already a "
                           f"gradient with dtype '{_dtype_name(grad.dtype)}'. Please clear the gradient (.grad = "
                           "None) before changing grad_dtype, or ensure the new grad_dtype matches the existing "
                           "gradient's dtype.")
    self.__dict__["_grad_dtype"] = value
    m = self._m()
    if m.hooks is not None:
        m.hooks.pop(_KEY, None)
    if value is not None and value != self.dtype:
        if m.hooks is None:
            m.hooks = _HookDict()
        m.hooks[_KEY] = _cast_to(value)
        m.hooks.move_to_end(_KEY, last=False)


def grad(self: Tensor, value) -> None:
    """``.grad = value`` checked against grad_dtype (None: any dtype) rather than the tensor's dtype."""
    gd = self.__dict__.get("_grad_dtype", _DEFAULT) if self.__dict__ else _DEFAULT
    if gd is _DEFAULT or value is None or not isinstance(value, Tensor) or value.shape != self.shape:
        _orig_grad.fset(self, value)  # (the usual checks and messages)
        return
    if gd is not None and value.dtype != gd:
        raise_autograd("LG125", f"attempting to assign a gradient with dtype '{_dtype_name(value.dtype)}' to a "
                                f"tensor with grad_dtype '{D.scalar_type_name(gd)}'. The gradient must match the "
                                "tensor's grad_dtype (set with t.grad_dtype = ...).", tensor=self, grad=value)
    self._grad = value


_set_grad_dtype.__name__ = "grad_dtype"  # (the public name, as every bound method's)
Tensor.grad_dtype = property(grad_dtype, _set_grad_dtype, doc="The dtype .grad must have (default: the tensor's dtype; None: any).")
Tensor.grad = property(_orig_grad.fget, grad, _orig_grad.fdel, doc=_orig_grad.__doc__)
