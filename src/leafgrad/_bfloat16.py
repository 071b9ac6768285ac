"""Real bfloat16 storage, computed the way torch's CPU kernels compute it.

NumPy has no bfloat16; the small ``ml_dtypes`` package (a JAX/TensorFlow dependency, one wheel, no
other requirements) registers one, with casts that round to nearest even. Its ufuncs alone are not
torch's arithmetic: ``matmul`` answers in float32, ``sum`` accumulates in bfloat16 (torch
accumulates in float32), and an op that leafgrad writes as several NumPy calls (softmax, sigmoid)
would round after each call where torch's kernel rounds once. So a bfloat16 tensor's data is a
:class:`BFloat16Array`, one of ``_lowp``'s 16-bit array types (float16's is the other; see
``_lowp.py`` for how their NumPy computations run in float32 and round once per op). This module
holds what is bfloat16's own: loading ml_dtypes on first use, and refusing ``numpy()``.
"""
from __future__ import annotations

import importlib.util

import numpy as np

from ._lowp import Float32From, LowpArray, as_lowp, register

# ``import ml_dtypes`` costs about a second of CPU (its extension registers its dtypes with NumPy),
# more than all of ``import leafgrad``: it is imported on the first use of bfloat16 (:func:`load`,
# called when ``leafgrad.bfloat16.np`` is first read), never by ``import leafgrad`` itself.
_ml = None

__all__ = ["BF16", "BFloat16Array", "Float32FromBF16", "available", "as_bf16", "load", "refuse_numpy"]

#: NumPy's bfloat16 dtype (ml_dtypes'), once :func:`load` ran; None before (no array can hold
#: bfloat16 then, so every ``x.dtype is BF16`` test here is rightly False) and without ml_dtypes
BF16 = None
_F32 = np.dtype(np.float32)


def available() -> bool:
    """Whether ml_dtypes is installed (found without importing it)."""
    return _ml is not None or importlib.util.find_spec("ml_dtypes") is not None


def load():
    """Import ml_dtypes and register bfloat16's array type; returns the NumPy dtype that stores
    bfloat16 (float32 without ml_dtypes, the storage leafgrad used before it had bfloat16)."""
    global _ml, BF16
    if BF16 is not None:
        return BF16
    try:
        import ml_dtypes
    except ImportError:
        return _F32
    _ml = ml_dtypes
    BF16 = BFloat16Array.STORE = np.dtype(ml_dtypes.bfloat16)
    register(BFloat16Array, Float32FromBF16, "numpy-bfloat16", numpy_view=False)
    return BF16


def as_bf16(arr):
    """``arr`` (any array or number) as a :class:`BFloat16Array`, rounding once."""
    return as_lowp(arr, BFloat16Array)


def refuse_numpy(arr) -> None:
    """torch's ``numpy()`` of a bfloat16 tensor: a TypeError (NumPy has no bfloat16 of its own)."""
    if arr.dtype is BF16:
        raise TypeError("Got unsupported ScalarType BFloat16: NumPy has no bfloat16 dtype, so a bfloat16 "
                        "tensor has no numpy() view. Convert first: t.float().numpy() (exact: float32 holds "
                        "every bfloat16 value)")


class BFloat16Array(LowpArray):
    """bfloat16 values whose arithmetic runs in float32 (see ``_lowp.py``)."""


class Float32FromBF16(Float32From):
    """float32 values computed from bfloat16 ones: ``astype(bfloat16)`` gives a :class:`BFloat16Array`."""
