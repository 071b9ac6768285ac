"""``grad_fn._saved_<name>`` as torch shows it, for ops whose formulas keep their values in another form.

A few nodes save what leafgrad's formulas need (layer norm's variance, a convolution's padding as
(before, after) pairs, a transposed convolution's output shape) where torch saves other values
(the inverse standard deviation, one padding per dim, the output padding), or torch shows values
leafgrad's formulas never read (embedding's ``sparse``, a convolution's ``transposed``). This
module gives a node class torch's attribute set: its formulas keep their parameter names and
positions; only the properties users read change.
"""
from __future__ import annotations

from typing import Callable

from .registry import OpDef, _saved_value


def saved_index(op: OpDef, name: str) -> int:
    """The position of the saved value named ``name`` in ``op``'s node (its ``_saved_names``)."""
    return op.node_cls._saved_names.index(name)


def show_saved(op: OpDef, names: tuple, *, hide: tuple = (), shown: dict[str, Callable] | None = None) -> None:
    """Name ``op``'s saved values ``names`` (one per saved value, in order), then drop the properties of
    the ``hide`` names (values kept for a formula or for another property, which torch does not show)
    and add ``shown``: ``{name: read(values)}``, where ``values(name)`` reads the saved value ``name``."""
    cls = op.node_cls
    cls._saved_names = tuple(names)  # (reinstalls one property per name: see registry._OpNodeType)
    for name in hide:
        type.__delattr__(cls, "_saved_" + name)
    for name, read in (shown or {}).items():
        type.__setattr__(cls, "_saved_" + name, property(
            lambda node, read=read: read(lambda n: _saved_value(node, cls._saved_names.index(n)))))
