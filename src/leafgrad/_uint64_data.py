"""Python data to a uint64 array, with torch's checks.

``torch.tensor(data, dtype=torch.uint64)`` reads each Python number as an unsigned 64-bit integer:
the whole range up to 2**64 - 1 is kept (NumPy's default inference would pass such lists through
float64 and lose it), a negative int raises OverflowError instead of wrapping (as narrower dtypes do)
and a float is refused with TypeError rather than truncated.
"""
from __future__ import annotations

import numpy as np

_MAX = 2 ** 64 - 1


def _leaf(x):
    if hasattr(x, "item") and not isinstance(x, (bool, int, float, complex)):
        x = x.item()
    if isinstance(x, (bool, int)):
        if x < 0:
            raise OverflowError(f"can't convert negative int to unsigned: {x} has no uint64 value; "
                                "pass values in [0, 2**64 - 1]")
        if x > _MAX:
            raise OverflowError(f"int too big to convert: {x} is above uint64's maximum 2**64 - 1")
        return int(x)
    if isinstance(x, (float, complex)):
        raise TypeError(f"an integer is required for a torch.uint64 tensor, got {x!r}: round it first, "
                        "e.g. int(x)")
    return x


def _walk(obj):
    if isinstance(obj, (list, tuple)):
        return [_walk(x) for x in obj]
    return _leaf(obj)


def uint64_array(data) -> np.ndarray:
    """A fresh C-contiguous uint64 array of ``data`` (nested lists of Python numbers, an array, a tensor)."""
    if isinstance(data, np.ndarray):
        return np.array(data, dtype=np.uint64, copy=True)
    if hasattr(data, "_data") and hasattr(data, "grad_fn"):  # a Tensor: a cast of its values
        return np.array(np.asarray(data._data), dtype=np.uint64, copy=True)
    return np.array(_walk(data), dtype=np.uint64)
