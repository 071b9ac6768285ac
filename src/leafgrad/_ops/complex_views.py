"""The views between complex tensors and their real parts: ``view_as_real``, ``view_as_complex``,
``real``/``imag`` (functions and Tensor properties, with their setters).

As in torch, ``z.real`` is ``view_as_real(z).select(-1, 0)`` (``z.imag`` selects 1): a view of ``z``
that shares its memory and version counter, whose history is SelectBackward0 -> ViewAsRealBackward0,
so gradients flow back into ``z`` and writes through it reach ``z``. A real tensor's ``.real`` is the
tensor itself; its ``.imag`` is refused. The in-place machinery (``inplace.py``) asks
``retyped_base`` for the base seen in the view's dtype, so that a write through ``z.real`` records a
CopySlices that routes the written part's gradient into ``z``.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .registry import apply, defop

__all__ = ["view_as_real", "view_as_complex", "real", "imag"]

_TO_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}


class _Interface:
    """An ``__array_interface__`` holder: NumPy keeps it (and so ``owner``'s memory) alive as the base."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, iface: dict, owner) -> None:
        self.__array_interface__ = iface
        self.owner = owner


def as_real_array(a: np.ndarray) -> np.ndarray:
    """A complex array's memory read as (real, imag) pairs: shape + (2,), no copy."""
    r = np.asarray(a).real  # (a NumPy scalar, a 0-d result of arithmetic, becomes an array first)
    return np.lib.stride_tricks.as_strided(r, shape=a.shape + (2,), strides=r.strides + (r.itemsize,))


def as_complex_array(a: np.ndarray) -> np.ndarray:
    """A real array whose last dim is 2 with unit stride read as complex numbers, no copy."""
    dt = _TO_COMPLEX[a.dtype]
    iface = dict(a.__array_interface__)
    iface.update(typestr=dt.str, descr=[("", dt.str)], shape=a.shape[:-1], strides=a.strides[:-1])
    return np.asarray(_Interface(iface, a))


def _viewable(a: np.ndarray) -> bool:
    return a.ndim >= 1 and a.shape[-1] == 2 and a.strides[-1] == a.itemsize


def _to_complex_fwd(xp, a):
    # (a gradient reaching here may be any layout, a broadcast included: read a packed copy then)
    return as_complex_array(a if _viewable(a) else np.ascontiguousarray(a))


VIEW_AS_REAL = defop("ViewAsRealBackward0", lambda xp, a: as_real_array(a),
                     lambda xp, g: xp.apply(VIEW_AS_COMPLEX, g), view=True)
VIEW_AS_COMPLEX = defop("ViewAsComplexBackward0", _to_complex_fwd,
                        lambda xp, g: xp.apply(VIEW_AS_REAL, g), view=True)


def view_as_real(input: Tensor) -> Tensor:
    """``input``'s complex numbers as a real tensor with a last dim of 2 (real, imag): a view."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors; "
                           f"got {input.dtype}: make the tensor complex first (torch.complex(re, im)).")
    return apply(VIEW_AS_REAL, (input,))


def view_as_complex(input: Tensor) -> Tensor:
    """A real tensor whose last dim holds (real, imag) pairs, read as complex numbers: a view."""
    a = input._data
    if a.dtype not in _TO_COMPLEX:
        note = " (leafgrad has no complex32 for half)" if a.dtype == np.float16 else ""
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a "
                           f"tensor of scalar type: {D.scalar_type_name(a.dtype)}{note}. Convert it with .float() "
                           "or .double() first.")
    if a.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions: view_as_complex reads the last "
                           "dimension as (real, imag) pairs.")
    if a.shape[-1] != 2:
        raise RuntimeError(f"Tensor must have a last dimension of size 2; got shape {list(a.shape)}.")
    if a.strides[-1] != a.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1; call .contiguous() first.")
    if any(s % (2 * a.itemsize) for s in a.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension; "
                           "call .contiguous() first.")
    return apply(VIEW_AS_COMPLEX, (input,))


def real(input: Tensor) -> Tensor:
    """The real part: a view of a complex tensor, a real tensor itself."""
    if input._data.dtype.kind != "c":
        return input
    from .shape import select
    return select(view_as_real(input), -1, 0)


def imag(input: Tensor) -> Tensor:
    """The imaginary part of a complex tensor, as a view; refused for a real tensor."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes. "
                           f"This tensor is {input.dtype}: its imaginary part is zero (use torch.zeros_like).")
    from .shape import select
    return select(view_as_real(input), -1, 1)


def _set_real(self: Tensor, value) -> None:
    real(self).copy_(value)


def _set_imag(self: Tensor, value) -> None:
    imag(self).copy_(value)


def retyped_base(view: np.ndarray, base: np.ndarray):
    """For a write through a view whose dtype differs from its base's (``z.real``, ``view_as_complex``):
    the base's memory read in the view's kind (the array positions are counted in) and the op that
    turns a base-shaped gradient into that reading (its inverse reads it back). None when the kinds agree."""
    view_c, base_c = view.dtype.kind == "c", base.dtype.kind == "c"
    if view_c == base_c:
        return None
    if base_c:
        return as_real_array(base), VIEW_AS_REAL, VIEW_AS_COMPLEX
    if not _viewable(base):
        raise RuntimeError("view_as_complex: a write through this complex view of a real tensor needs "
                           "the real tensor's last dimension to hold the (real, imag) pairs; write into "
                           "the real tensor directly instead.")
    return as_complex_array(base), VIEW_AS_COMPLEX, VIEW_AS_REAL


Tensor.real = property(real, _set_real, doc="The real part (a view of a complex tensor; settable).")
Tensor.imag = property(imag, _set_imag, doc="The imaginary part of a complex tensor (a view; settable).")

#: torch's top-level forms, served by ``leafgrad.__getattr__`` (lazy.py)
TOP_LEVEL = {"imag": imag, "real": real, "view_as_complex": view_as_complex, "view_as_real": view_as_real}
