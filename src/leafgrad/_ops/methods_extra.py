"""Bind the extra Tensor methods (in-place variants, aliases, attributes) onto Tensor, and list the
ones torch also has as top-level functions (``torch.ceil_``, ``torch.fix``, ``torch.ravel``, ...).

Nothing is defined here: each name points at its definition in ``inplace_extra``,
``aliases_extra`` or ``tensor_queries``. A name Tensor already has is left alone.
"""
from __future__ import annotations

from .._tensor import Tensor
from . import aliases_extra, inplace_extra, tensor_queries

METHODS = {**inplace_extra.METHODS, **aliases_extra.METHODS, **tensor_queries.METHODS}
PROPERTIES = {**aliases_extra.PROPERTIES, **tensor_queries.PROPERTIES}
FUNCTIONS = {**inplace_extra.FUNCTIONS, **aliases_extra.FUNCTIONS}


def _bind() -> None:
    for name, fn in METHODS.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, fn)
    for name, getter in PROPERTIES.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, property(getter))
    from .docs import document
    document(Tensor, METHODS)  # (their public names and docstrings, as methods.py gives the others)


_bind()
