"""Bind the extra Tensor methods (in-place variants, aliases, attributes) onto Tensor, and list the
ones torch also has as top-level functions (``torch.ceil_``, ``torch.fix``, ``torch.ravel``, ...).

Nothing is defined here: each name points at its definition in ``inplace_extra``,
``aliases_extra`` or ``tensor_queries``. A name Tensor already has is left alone.
"""
from __future__ import annotations

from . import aliases_extra, inplace_extra, tensor_queries
from .lazy import bind

METHODS = {**inplace_extra.METHODS, **aliases_extra.METHODS, **tensor_queries.METHODS}
PROPERTIES = {**aliases_extra.PROPERTIES, **tensor_queries.PROPERTIES}
FUNCTIONS = {**inplace_extra.FUNCTIONS, **aliases_extra.FUNCTIONS}


TOP_LEVEL = FUNCTIONS  # (served by ``leafgrad.__getattr__``: lazy.py; a name leafgrad has already stays its own)

bind("methods_extra", METHODS, PROPERTIES)  # (with public names and docstrings, as methods.py gives the others)
