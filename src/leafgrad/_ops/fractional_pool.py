"""Fractional max pooling (Graham, 2014): max over windows whose starts follow a pseudo-random sequence.

For each (sample, channel) plane and each spatial dim, one number ``u`` in [0, 1) (torch's
``_random_samples``) fixes the window starts ``int((i + u) * alpha) - int(u * alpha)`` with
``alpha = (in - k) / (out - 1)``, the last window ending at the input's edge. The arithmetic is
in the input's dtype, as torch's kernel does it, so given the same samples the windows are the
same. The index of each window's first maximum (a later NaN wins) is kept; the backward
scatter-adds the gradient there (windows may overlap), and that op's own gradient gathers it back.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .._tensor import Tensor
from .pool_nd import _unpool_fwd, _unpool_gather
from .registry import apply, defop

__all__ = ["fractional_max_pool"]


def _starts(samples, in_size: int, out_size: int, k: int):
    """(N, C, out) window starts for one spatial dim, from (N, C) samples."""
    dtype = samples.dtype.type
    seq = np.empty(samples.shape + (out_size,), dtype=np.int64)
    if out_size > 1:
        alpha = dtype(in_size - k) / dtype(out_size - 1)
        i = np.arange(out_size - 1).astype(samples.dtype)
        first = (samples[..., None] * alpha).astype(np.int64)
        seq[..., :-1] = ((i + samples[..., None]) * alpha).astype(np.int64) - first
    if out_size > 0:
        seq[..., -1] = in_size - k
    return seq


def _fractional_fwd(xp, x, kernel, output_size, samples, sample_order):
    nd = len(kernel)
    unbatched = x.ndim == nd + 1
    xb = x[None] if unbatched else x
    n, c = xb.shape[:2]
    spatial = xb.shape[2:]
    u = np.asarray(getattr(samples, "_data", samples))[:n].astype(x.dtype, copy=False)
    starts = [_starts(u[:, :, sample_order[d]], spatial[d], output_size[d], kernel[d]) for d in range(nd)]
    fs = [math.prod(spatial[d + 1:]) for d in range(nd)]
    base = 0
    for d in range(nd):  # flat index of each window's first cell, (N, C, *out)
        base = base + starts[d].reshape((n, c) + (1,) * d + (-1,) + (1,) * (nd - d - 1)) * fs[d]
    planes = xb.reshape(n, c, -1)
    out = np.full(base.shape, -np.inf, dtype=x.dtype)
    idx = np.array(base, dtype=np.int64)
    for offs in itertools.product(*(range(k) for k in kernel)):
        flat = base + sum(o * f for o, f in zip(offs, fs))
        v = np.take_along_axis(planes, flat.reshape(n, c, -1), axis=2).reshape(flat.shape)
        take = (v > out) | np.isnan(v)  # the first maximum; a later NaN wins (torch's scan)
        out = np.where(take, v, out)
        idx = np.where(take, flat, idx)
    if unbatched:
        return out[0], idx[0]
    return out, idx


def _grad(op_back):
    def grad(xp, grads, self_sym_sizes, result1, kernel, output_size):
        g = grads[0]
        if g is None:
            return None
        return xp.apply(op_back, g, params=(result1, tuple(self_sym_sizes), len(kernel), True))
    return grad


_BACK = {nd: defop(f"FractionalMaxPool{nd}DBackwardBackward0", _unpool_fwd, _unpool_gather, saved=("indices", "nd"))
         for nd in (2, 3)}
_OPS = {nd: defop(f"FractionalMaxPool{nd}DBackward0", _fractional_fwd, _grad(_BACK[nd]),
                  saved=("self_sym_sizes", "result1", "kernel", "output_size"), n_out=2, diff_outputs=(True, False))
        for nd in (2, 3)}
for _op in _OPS.values():
    _op.node_cls._saved_names = ("self_sym_sizes", "result1", "kernel_size", "output_size")

# which sample drives which spatial dim: torch's 2-d kernel reads (w, h), its 3-d kernel (t, h, w)
_SAMPLE_ORDER = {2: (1, 0), 3: (0, 1, 2)}


def fractional_max_pool(input: Tensor, kernel: tuple, output_size: tuple, samples: Tensor) -> tuple:
    """(values, indices) of fractional max pooling over the last len(kernel) dims; arguments checked."""
    nd = len(kernel)
    return apply(_OPS[nd], (input,), (tuple(kernel), tuple(output_size), samples, _SAMPLE_ORDER[nd]))
