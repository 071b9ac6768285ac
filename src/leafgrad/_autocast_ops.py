"""CPU autocast's casts for the ops torch's CPU autocast runs in lower precision.

Inside ``with torch.autocast("cpu"):`` torch casts the floating inputs (but float64) of its
"lower_precision_fp" ops (linear, matmul, mm, bmm, addmm, baddbmm, conv1d/2d/3d, ...) to the
region's dtype (bfloat16 by default), so they compute and answer in bfloat16; other ops run in
their inputs' dtype. Each of those ops here starts with ``if CPU[0] is not None:`` (one list read,
nothing more, outside a region) and then runs again through :func:`lower_precision`.

``CPU[0]`` mirrors ``leafgrad.amp``'s per-thread state for the thread that last changed it: a
process-wide switch, so that the ops read one list slot rather than a thread-local dict.
"""
from __future__ import annotations

from typing import Any, Callable

from . import _dtype as D

#: the autocast dtype while a CPU autocast region is enabled, else None
CPU: list = [None]


def set_cpu(dtype: D.dtype | None) -> None:
    CPU[0] = dtype


def _cast(v: Any, dt: D.dtype) -> Any:
    from ._tensor import Tensor
    if isinstance(v, Tensor):
        d = v.dtype
        return v.to(dt) if d.is_floating_point and d is not D.float64 and d is not dt else v
    if v.__class__ in (list, tuple):
        return v.__class__(_cast(x, dt) for x in v)
    return v


def lower_precision(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with its floating tensor arguments cast to the region's dtype (the
    casts are ops of their own, ToCopyBackward0 in the graph, as torch's), autocast off inside."""
    dt = CPU[0]
    CPU[0] = None
    try:
        return fn(*[_cast(a, dt) for a in args], **{k: _cast(v, dt) for k, v in kwargs.items()})
    finally:
        CPU[0] = dt
