"""torch's refusals for uint16 / uint32 / uint64, its "shell" dtypes, where the array type cannot say them.

Most refusals come from the data itself: a tensor of these dtypes holds a ``UIntArray``
(``_unsigned_array.py``) whose ufuncs and NumPy functions raise torch's NotImplementedError, so the
dtype-agnostic fast paths (``pointwise.binary``, ``registry.apply*``) carry no dtype test. An op's
entry point calls :func:`refuse_unsigned` itself only where that cannot be torch's answer: where
torch's kernel name depends on the call (``max()`` is ``max_all``, ``max(0)`` ``max_cpu``), where
leafgrad computes with ufuncs torch's kernel does not use (``topk`` sorts, ``median`` partitions,
``masked_fill`` selects), or where torch refuses before a check leafgrad makes first. Those calls sit
after the op's argument checks, as torch's dispatch comes after them, and are one set lookup each.
"""
from __future__ import annotations

from .. import _dtype as D
from .._unsigned_array import refuse


def refuse_unsigned(dtype: D.dtype, kernel: str) -> None:
    """Raise torch's NotImplementedError when ``dtype`` is uint16/32/64 (``kernel``: torch's kernel name)."""
    if dtype in D._UNSIGNED_WIDE:
        refuse(kernel, dtype.np)


def refuse_flip(dtype: D.dtype, arr, dims) -> None:
    """torch's flip of a uint16/32/64 tensor: it copies without a dtype kernel unless the innermost
    dimension in memory is flipped (or is read with a stride), where its ``flip_cpu`` kernel has none.

    torch's output keeps the input's memory order when the input is dense (else it is C-contiguous);
    dims of size 1 or stride 0 need no work. Checked on torch: ``(2, 3)`` flips dim 0 but not dim 1,
    its transpose the other way round, and a column slice ``x[:, ::2]`` refuses both."""
    if dtype not in D._UNSIGNED_WIDE:
        return
    item = arr.itemsize
    work = [d for d in dims if arr.shape[d] > 1 and arr.strides[d] != 0]
    if not work or arr.size <= 1:
        return
    moving = [d for d in range(arr.ndim) if arr.shape[d] > 1 and arr.strides[d] != 0]
    by_stride = sorted(moving, key=lambda d: abs(arr.strides[d]))
    dense = arr.flags.c_contiguous or arr.flags.f_contiguous or _dense(arr, by_stride)
    inner = by_stride[0] if dense else moving[-1]
    if inner in work or abs(arr.strides[inner]) != item:
        refuse_unsigned(dtype, "flip_cpu")


def _dense(arr, by_stride) -> bool:
    """Whether ``arr``'s elements fill its memory without gaps in some order of its dims."""
    step = arr.itemsize
    for d in by_stride:
        if abs(arr.strides[d]) != step:
            return False
        step *= arr.shape[d]
    return True
