"""Binds the ops of pointwise_extra.py, stats_extra.py and linalg_extra.py: their Tensor methods (where
Tensor has none of that name yet) and the table of their top-level ``torch.<name>`` functions, which
``leafgrad.__getattr__`` serves on first use."""
from __future__ import annotations

from . import linalg_extra as LX, pointwise_extra as PX, stats_extra as SX
from .lazy import bind

TOP_LEVEL: dict = {name: getattr(PX, name) for name in PX.TOP_LEVEL}
TOP_LEVEL.update({name: getattr(SX, name) for name in SX.TOP_LEVEL})
TOP_LEVEL.update(LX.TOP_LEVEL)


def _bind_methods() -> None:
    methods = {**PX.METHODS, **SX.METHODS, **LX.METHODS}
    bind("extra_bindings", methods)  # (with their public names and docstrings, as methods.py gives the others)


_bind_methods()
