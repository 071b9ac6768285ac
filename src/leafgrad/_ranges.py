"""arange and linspace with torch's CPU values, bit for bit.

torch does not compute ``start + i * step`` once per element as NumPy does. Its CPU kernels
(ATen's RangeFactoriesKernel) fill the output in SIMD vectors: each vector of V lanes gets a
base computed for its first index, and the lanes add ``k * step`` to that base; what is left
after the last pair of whole vectors is filled one element at a time; and above 32768 elements
the range is split into one chunk per thread, each filled that way from its own start.
``arange`` computes in double (its accumulate type) and rounds each value to the dtype once.
``linspace`` goes one element at a time in the dtype itself (float32 stays float32) and fills its
second half backwards from ``end``. Both multiply-adds are fused (one rounding), as the compiler
contracts them. NumPy reproduces each of these roundings with float32/float64 arrays; the model
was fitted to torch 2.13's output and the tests hold it to that, bit for bit.
"""
from __future__ import annotations

import numpy as np

_GRAIN = 32768  # at::internal::GRAIN_SIZE


def _lanes(itemsize: int) -> int:
    """Lanes of the Vectorized<T> torch's range kernels run with: 32-byte vectors (measured against torch
    2.13 on an AVX-512 machine: its range kernels fill 8 floats or 4 doubles per vector)."""
    return 32 // itemsize


def fma(a, b, c, dt) -> np.ndarray:
    """a * b + c rounded once, in dtype ``dt``, as the compiler's fused multiply-add in torch's kernels.
    float32: the float64 product of two float32 numbers is exact. float64: the product's error is
    recovered exactly (Dekker's split) and added back before the final rounding."""
    if dt == np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ta, tb = split * a, split * b
    ah, bh = ta - (ta - a), tb - (tb - b)
    al, bl = a - ah, b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl   # p + err == a * b exactly
    s = p + c
    bb = s - p
    low = (p - (s - bb)) + (c - bb)                       # s + low == p + c exactly
    return s + (low + err)


def _chunks(n: int):
    """at::parallel_for's split of [0, n): one chunk per thread once n passes the grain size."""
    from ._threads import get_num_threads
    tasks = min(get_num_threads(), -(-n // _GRAIN)) if n > _GRAIN else 1
    size = -(-n // tasks) if tasks else n
    return [(b, min(n, b + size)) for b in range(0, n, size)] if n else []


def _layout(n: int, lanes: int):
    """For each index: the index its value is computed from (a vector's first index, or itself) and
    the lane offset k added to that base."""
    base = np.arange(n, dtype=np.int64)
    lane = np.zeros(n, dtype=np.int64)
    for b, e in _chunks(n):
        vec_end = b + ((e - b) // (2 * lanes)) * 2 * lanes  # whole pairs of vectors; the rest one by one
        idx = np.arange(b, vec_end, dtype=np.int64)
        lane[b:vec_end] = (idx - b) % lanes
        base[b:vec_end] = idx - lane[b:vec_end]
    return base, lane


def arange_values(start, step, n: int, np_dtype) -> np.ndarray:
    """torch.arange's n values for a floating dtype."""
    dt = np.dtype(np_dtype).type
    base, lane = _layout(n, _lanes(np.dtype(dt).itemsize))
    start, step = np.float64(start), np.float64(step)
    # in double (arange's accumulate type): a vector's base, rounded to the dtype, then base + k * step
    first = fma(np.float64(step), base.astype(np.float64), start, np.float64).astype(dt)
    return fma(lane.astype(np.float64), step, first.astype(np.float64), np.float64).astype(dt)


def linspace_values(start, end, steps: int, np_dtype) -> np.ndarray:
    """torch.linspace's values for a floating dtype: one element at a time, in that dtype, the first half
    forwards from ``start`` and the second backwards from ``end``, each a fused multiply-add."""
    dt = np.dtype(np_dtype).type
    if steps == 1:
        return np.array([start], dtype=dt)
    s, e = dt(start), dt(end)
    step = (e - s) / dt(steps - 1)
    idx = np.arange(steps, dtype=np.int64)
    head = fma(np.full(steps, step), idx.astype(dt), np.full(steps, s), dt)                   # start + step * i
    tail = fma(np.full(steps, -step), (steps - 1 - idx).astype(dt), np.full(steps, e), dt)   # end - step * (n-1-i)
    return np.where(idx < steps // 2, head, tail)
