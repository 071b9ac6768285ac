"""torch's ``_foreach_*`` list ops (the ones its optimizers' foreach paths use): one call over many tensors.

An optimizer step updates every parameter with the same handful of element-wise ops. Run one tensor
at a time, each op goes through the full in-place path (grad-mode rules, view and inference checks,
dtype promotion, provenance of the write), which for a small model's 30 parameters and 9 ops each
costs more than the arithmetic. These functions take lists, as torch's do: when nothing needs that
path -- grad mode off or no tensor involved requiring grad, plain writable float tensors that are
not views, operands of the same dtype and shape -- they run the ufuncs straight on the arrays and
bump each tensor's version counter (so a saved tensor they changed is still caught), with the same
arithmetic, in the same order, as the per-tensor methods (bit-identical results). Anything else
goes tensor by tensor through the methods themselves (``t.mul_(s)``, ...), which gives torch's
semantics and errors.

Forms: a number, a list of numbers (one per tensor) or a list of tensors as the other operand;
``alpha`` for add; ``value`` a number or a list of numbers for addcmul / addcdiv; lerp's weight a
number. The in-place forms return the list of the tensors they wrote, as torch's.
"""
from __future__ import annotations

import numbers

import numpy as np

from ._tensor import Tensor, _STATE, vc_of
from .provenance import user_line

__all__ = ["_foreach_add_", "_foreach_mul_", "_foreach_div_", "_foreach_sqrt", "_foreach_lerp_",
           "_foreach_addcmul_", "_foreach_addcdiv_"]


def _tensor_list(name: str, tensors, what: str = "self") -> list:
    tensors = list(tensors) if isinstance(tensors, (list, tuple)) else tensors
    if not isinstance(tensors, list) or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"{name}(): argument '{what}' must be a list of Tensors (one tensor per element)")
    if not tensors:
        raise RuntimeError(f"Tensor list must have at least one tensor. {name}() got an empty '{what}' list.")
    return tensors


def _per_tensor(name: str, values, n: int, what: str) -> list:
    """A number, or a list of numbers / tensors, as one operand per tensor."""
    if isinstance(values, (list, tuple)):
        values = list(values)
        if len(values) != n:
            if values and not isinstance(values[0], Tensor):
                raise RuntimeError(f"Tensor list must have same number of elements as scalar list. {name}() got "
                                   f"{n} tensors and {len(values)} numbers for '{what}'.")
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {n} and {len(values)} "
                               f"({name}: one '{what}' per tensor of 'self')")
        return values
    return [values] * n


def _plain(tensors: list, dtype) -> bool:
    """Writable, non-view float tensors of ``dtype`` that no grad-mode rule concerns."""
    grad_on = _STATE.grad
    for t in tensors:
        data = t._data
        if data.__class__ is not np.ndarray or data.dtype != dtype or t._base is not None \
                or not data.flags.writeable:
            return False
        if grad_on and (t._requires_grad or t._grad_fn is not None):
            return False
        m = t._meta
        if m is not None and m.inference:
            return False
    return True


def _fast(self: list, *operands: list) -> bool:
    """Can the arrays be written directly? (operands: per-tensor lists of numbers or tensors)."""
    dtype = self[0]._data.dtype
    if dtype.kind != "f" or not _plain(self, dtype):
        return False
    for values in operands:
        for t, v in zip(self, values):
            if isinstance(v, Tensor):
                if v._data.__class__ is not np.ndarray or v._data.dtype != dtype or v._data.shape != t._data.shape:
                    return False
                if _STATE.grad and v._requires_grad:
                    return False
            elif not isinstance(v, numbers.Real) or isinstance(v, bool):
                return False
    return True


def _arr(v, dtype):
    """A tensor's array, or a number as a 0-dim array of the tensor's dtype (as the in-place methods take it)."""
    return v._data if isinstance(v, Tensor) else np.asarray(v, dtype=dtype)


def _bump(tensors: list) -> None:
    site = user_line(3)
    for t in tensors:
        vc = t._vc
        if vc is None:
            vc = vc_of(t)
        vc.bump(site)


def _binary_(name: str, ufunc, method: str, self, other, alpha=None) -> list:
    self = _tensor_list(name, self)
    others = _per_tensor(name, other, len(self), "other")
    if not _fast(self, others) or (alpha is not None and not isinstance(alpha, numbers.Real)):
        for t, o in zip(self, others):
            getattr(t, method)(o) if alpha is None else getattr(t, method)(o, alpha=alpha)
        return self
    dtype = self[0]._data.dtype
    scale = None if alpha is None or alpha == 1 else alpha
    if scale.__class__ is float or scale.__class__ is int:
        # (a Python number converts to the tensors' dtype in every multiply, as NumPy's weak scalar: once here
        # instead, the same value; about 2.7 k instructions a tensor)
        scale = np.asarray(scale, dtype=dtype)
    for t, o in zip(self, others):
        b = _arr(o, dtype)
        if scale is not None:
            b = b * scale
        ufunc(t._data, b, out=t._data)
    _bump(self)
    return self


def _foreach_add_(self, other, *, alpha=1) -> list:
    """``t.add_(o, alpha=alpha)`` for each tensor ``t`` (``other``: a number or one number / tensor per tensor)."""
    return _binary_("_foreach_add_", np.add, "add_", self, other, alpha)


def _foreach_mul_(self, other) -> list:
    """``t.mul_(o)`` for each tensor."""
    return _binary_("_foreach_mul_", np.multiply, "mul_", self, other)


def _foreach_div_(self, other) -> list:
    """``t.div_(o)`` for each tensor."""
    return _binary_("_foreach_div_", np.divide, "div_", self, other)


def _foreach_sqrt(self) -> list:
    """``[t.sqrt() for t in self]``."""
    self = _tensor_list("_foreach_sqrt", self)
    if not _fast(self):
        return [t.sqrt() for t in self]
    return [Tensor._make(np.sqrt(t._data, out=np.empty_like(t._data))) for t in self]


def _foreach_lerp_(self, tensors1, weight) -> list:
    """``t.lerp_(end, weight)`` for each tensor and its ``end`` (``weight`` a number)."""
    self = _tensor_list("_foreach_lerp_", self)
    ends = _per_tensor("_foreach_lerp_", _tensor_list("_foreach_lerp_", tensors1, "tensors1"), len(self), "tensors1")
    if isinstance(weight, (list, tuple)) or not _fast(self, ends, [weight]):
        for t, e, w in zip(self, ends, _per_tensor("_foreach_lerp_", weight, len(self), "weight")):
            t.lerp_(e, w)
        return self
    for t, e in zip(self, ends):
        a = t._data
        d = e._data - a
        if -0.5 < weight < 0.5:  # (from the nearer end, as lerp: see pointwise._lerp_fwd)
            d *= weight
            a += d
        else:
            d *= 1 - weight
            np.subtract(e._data, d, out=a)
    _bump(self)
    return self


def _fused_(name: str, ufunc, method: str, self, tensor1, tensor2, value) -> list:
    self = _tensor_list(name, self)
    n = len(self)
    t1 = _per_tensor(name, _tensor_list(name, tensor1, "tensor1"), n, "tensor1")
    t2 = _per_tensor(name, _tensor_list(name, tensor2, "tensor2"), n, "tensor2")
    values = _per_tensor(name, value, n, "scalars")
    if not _fast(self, t1, t2, values):
        for t, a, b, v in zip(self, t1, t2, values):
            getattr(t, method)(a, b, value=v)
        return self
    for t, a, b, v in zip(self, t1, t2, values):
        p = ufunc(a._data, b._data)
        if v != 1:  # (value * (t1 op t2), then added: the methods' order)
            p *= v
        t._data += p
    _bump(self)
    return self


def _foreach_addcmul_(self, tensor1, tensor2, value=1) -> list:
    """``t.addcmul_(a, b, value=v)`` for each tensor (``value``: a number or one per tensor)."""
    return _fused_("_foreach_addcmul_", np.multiply, "addcmul_", self, tensor1, tensor2, value)


def _foreach_addcdiv_(self, tensor1, tensor2, value=1) -> list:
    """``t.addcdiv_(a, b, value=v)`` for each tensor (``value``: a number or one per tensor)."""
    return _fused_("_foreach_addcdiv_", np.divide, "addcdiv_", self, tensor1, tensor2, value)
