"""The convolution kernels over any number of spatial dims (used for 3-d volumes).

``nn_ops``' convolution ops (forward, input gradient, weight gradient: each one's derivative is
made of the others, so double backward works) and the transposed convolution of ``nn_extra``
run the tuned 4-D kernels for 1-d and 2-d convolutions (the W4 benchmark runs them) and these
for 5-D arrays. Same construction, N spatial dims:

* the forward is im2col (one strided view of every kernel placement, copied once) and one GEMM;
* the input gradient is the transposed GEMM and col2im (one strided add per kernel offset);
* the weight gradient is one GEMM over (batch x output cells).

Geometry tuples have one entry per spatial dim: ``pad`` holds (before, after) pairs so the
asymmetric 'same' padding of an even kernel needs no extra op.
"""
from __future__ import annotations

import itertools
import math

__all__ = ["windows_nd", "conv_fwd", "conv_input_grad_fwd", "conv_weight_grad_fwd"]


def windows_nd(xp, x, ks, stride, pad, dil):
    """A strided view (N, C, *out, *ks) of every kernel placement over the last len(ks) dims."""
    nd = len(ks)
    if any(p != (0, 0) for p in pad):
        x = xp.pad(x, ((0, 0),) * (x.ndim - nd) + tuple(pad))
    span = tuple(d * (k - 1) + 1 for k, d in zip(ks, dil))
    v = xp.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(x.ndim - nd, x.ndim)))
    key = (slice(None),) * (x.ndim - nd) + tuple(slice(None, None, s) for s in stride) + tuple(
        slice(None, None, d) for d in dil)
    return v[key]


def _im2col(xp, x, ks, stride, pad, dil):
    """(N, C * prod(ks), L) columns and the output's spatial shape."""
    nd = len(ks)
    v = windows_nd(xp, x, ks, stride, pad, dil)
    out = v.shape[2:2 + nd]
    order = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    cols = xp.ascontiguousarray(v.transpose(order))
    return cols.reshape(x.shape[0], x.shape[1] * math.prod(ks), math.prod(out)), out


def _col2im(xp, cols, c, ks, out, spatial, stride, pad, dil):
    """The adjoint of :func:`_im2col`: (N, C * prod(ks), L) columns summed back onto (N, C, *spatial)."""
    n = cols.shape[0]
    cols = cols.reshape((n, c) + tuple(ks) + tuple(out))
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pad))
    dx = xp.zeros((n, c) + padded, dtype=cols.dtype)
    for offs in itertools.product(*(range(k) for k in ks)):  # one strided add per kernel offset
        key = (slice(None), slice(None)) + tuple(
            slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in zip(offs, dil, stride, out))
        dx[key] += cols[(slice(None), slice(None)) + offs]
    if any(p != (0, 0) for p in pad):
        key = (slice(None), slice(None)) + tuple(slice(lo, lo + s) for s, (lo, _) in zip(spatial, pad))
        dx = xp.ascontiguousarray(dx[key])
    return dx


def conv_fwd(xp, x, w, stride, pad, dil, groups):
    n = x.shape[0]
    o, cg = w.shape[:2]
    ks = w.shape[2:]
    cols, out = _im2col(xp, x, ks, stride, pad, dil)
    cols = cols.reshape(n, groups, cg * math.prod(ks), math.prod(out))
    res = xp.matmul(w.reshape(groups, o // groups, cg * math.prod(ks)), cols)  # one GEMM: (N, G, Og, L)
    return res.reshape((n, o) + tuple(out))


def conv_input_grad_fwd(xp, g, w, input_shape, stride, pad, dil, groups):
    """The adjoint of the convolution in its input (a transposed convolution): GEMM, then col2im."""
    n, o = g.shape[:2]
    out = g.shape[2:]
    cg = w.shape[1]
    ks = w.shape[2:]
    k = cg * math.prod(ks)
    wt = w.reshape(groups, o // groups, k).transpose(0, 2, 1)
    cols = xp.matmul(wt, g.reshape(n, groups, o // groups, math.prod(out)))  # (N, G, Cg*K, L)
    return _col2im(xp, cols.reshape(n, groups * k, -1), cg * groups, ks, out, tuple(input_shape[2:]),
                   stride, pad, dil)


def conv_weight_grad_fwd(xp, x, g, weight_shape, stride, pad, dil, groups):
    """The convolution's gradient in its weight: one GEMM over (batch x output cells)."""
    n, c = x.shape[:2]
    o, cg = weight_shape[:2]
    ks = tuple(weight_shape[2:])
    cols, out = _im2col(xp, x, ks, stride, pad, dil)  # (N, C*K, L)
    k, lo = cg * math.prod(ks), math.prod(out)
    cols = xp.ascontiguousarray(cols.reshape(n, groups, k, lo).transpose(1, 2, 0, 3)).reshape(groups, k, n * lo)
    gt = xp.ascontiguousarray(g.reshape(n, o, lo).transpose(1, 0, 2)).reshape(groups, o // groups, n * lo)
    return xp.matmul(gt, cols.transpose(0, 2, 1)).reshape(weight_shape)
