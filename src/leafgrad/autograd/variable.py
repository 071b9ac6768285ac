"""torch.autograd.Variable: the pre-0.4 wrapper, which in torch 2.13 just makes a Tensor.

``Variable(t)`` returns a new tensor sharing ``t``'s data, detached from its history (a leaf),
with ``requires_grad`` as given (default False); ``volatile=True`` only warns, as torch's does
(use ``torch.no_grad()``). ``isinstance(x, Variable)`` is true of every tensor.
"""
from __future__ import annotations

import warnings

__all__ = ["Variable"]


class VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        from .._tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False, _grad_fn=None,
                name: str | None = None):
        from .._creation import zeros
        from .._tensor import Tensor
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            var = zeros(0)
        elif isinstance(data, Tensor):
            var = data.detach()
        else:
            cls_name, mod = type(data).__qualname__, type(data).__module__
            shown = cls_name if mod == "builtins" else f"{mod}.{cls_name}"
            raise TypeError(f"Variable data has to be a tensor, but got {shown}")
        if requires_grad:
            var._set_requires_grad(True, factory=True)  # (torch's message for this case: "... and complex dtype")
        return var
