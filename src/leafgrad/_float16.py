"""float16 ("Half") storage, computed the way torch's CPU kernels compute it.

NumPy's float16 is a fine storage type (IEEE binary16, casts that round to nearest even), but its
arithmetic is not torch's: each NumPy float16 loop rounds its own result, so an op that leafgrad
writes as several NumPy calls (softmax, sigmoid, add with ``alpha``) rounds in between where torch's
kernel rounds once, and ``x * 0.1`` rounds 0.1 to float16 where torch multiplies by 0.1f. A float16
tensor's data is therefore a :class:`Float16Array`, one of ``_lowp``'s 16-bit array types (see
``_lowp.py``): its NumPy computations run in float32 and each op's result is rounded once. Unlike
bfloat16 it needs no extra package, so it is registered when leafgrad is imported, and its
``numpy()`` is a plain float16 view of the tensor's memory, as torch's is.
"""
from __future__ import annotations

import numpy as np

from ._lowp import Float32From, LowpArray, as_lowp, register

__all__ = ["F16", "Float16Array", "Float32FromF16", "as_f16"]

F16 = np.dtype(np.float16)


class Float16Array(LowpArray):
    """float16 values whose arithmetic runs in float32 (see ``_lowp.py``)."""

    STORE = F16
    BACKWARD_PER_OP = True


class Float32FromF16(Float32From):
    """float32 values computed from float16 ones: ``astype(float16)`` gives a :class:`Float16Array`."""


def as_f16(arr):
    """``arr`` (any array or number) as a :class:`Float16Array`, rounding once."""
    return as_lowp(arr, Float16Array)


register(Float16Array, Float32FromF16, "numpy-float16", numpy_view=True)
