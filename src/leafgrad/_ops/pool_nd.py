"""Pooling over any number of spatial dims (used for 3-d volumes), and im2col / col2im.

The 1-d and 2-d pools keep their tuned kernels in ``nn_ops.py``; these are the same
constructions over the last ``nd`` dims:

* max pooling is a running maximum over the kernel offsets, each one strided view of the
  (-inf padded) input; the index of the first maximum (into the unpadded volume, flattened) is
  tracked as torch's scan finds it (``nn_ops.max_and_index``, shared with the 2-d pool). Its backward scatters the gradient to those
  indices (an op whose own gradient gathers them back);
* average pooling sums one strided view per kernel offset and divides by the window counts
  (``count_include_pad`` / ``divisor_override``); its backward spreads the gradient evenly, and
  that op's gradient is the average pool again;
* adaptive average pooling is separable: one averaging matrix per dim;
* adaptive max pooling takes each window's first maximum;
* ``Im2Col`` / ``Col2Im`` (``F.unfold`` / ``F.fold``) are each other's adjoints.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .._tensor import Tensor
from .conv_nd import _col2im, _im2col, windows_nd
from .nn_ops import _adaptive_matrix, _array, max_and_index
from .registry import apply, defop

__all__ = ["max_pool_nd", "avg_pool_nd", "adaptive_avg_pool_nd", "adaptive_max_pool_nd", "max_unpool_nd",
           "im2col", "col2im"]


def _pads(spatial, out, k, s, p, d):
    """(before, after) per dim: the after padding grows so every ceil-mode window fits."""
    return tuple((pp, max((o - 1) * ss + dd * (kk - 1) + 1 - n - pp, 0))
                 for n, o, kk, ss, pp, dd in zip(spatial, out, k, s, p, d))


def _flat_strides(spatial) -> list:
    return [math.prod(spatial[i + 1:]) for i in range(len(spatial))]


def _grid(xp, terms):
    """sum_i terms[i] broadcast along its own dim: an index array over the output's spatial shape."""
    nd = len(terms)
    total = 0
    for i, t in enumerate(terms):
        total = total + t.reshape((1,) * i + (-1,) + (1,) * (nd - i - 1))
    return total


# =============================================================================== max pooling
def _max_pool_fwd(xp, x, kernel, stride, padding, dilation, ceil_mode, out_size):
    nd = len(kernel)
    spatial = x.shape[-nd:]
    pads = _pads(spatial, out_size, kernel, stride, padding, dilation)
    if any(p != (0, 0) for p in pads):
        fill = -xp.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        x = xp.pad(x, ((0, 0),) * (x.ndim - nd) + pads, constant_values=fill)
    win = windows_nd(xp, x, kernel, stride, ((0, 0),) * nd, dilation)
    win = win[(Ellipsis,) + tuple(slice(0, o) for o in out_size) + (slice(None),) * nd]
    offsets = list(itertools.product(*(range(k) for k in kernel)))
    views = [win[(Ellipsis,) + o] for o in offsets]
    fs = _flat_strides(spatial)
    base = _grid(xp, [(xp.arange(o) * s - p) * f for o, s, p, f in zip(out_size, stride, padding, fs)])
    shifts = [sum(i * d * f for i, d, f in zip(o, dilation, fs)) for o in offsets]
    return max_and_index(xp, views, base, shifts)


def _unpool_fwd(xp, g, indices, input_shape, nd, overlapping):
    """Scatter ``g`` to the flat positions ``indices`` of each (lead) plane of ``input_shape``."""
    vol = math.prod(input_shape[-nd:])
    planes = math.prod(input_shape[:-nd])
    gi = g.reshape(planes, -1)
    ii = _array(indices).reshape(planes, -1)
    if not overlapping:  # each position receives at most one value
        out = xp.zeros((planes, vol), dtype=g.dtype)
        out[xp.arange(planes)[:, None], ii] = gi
    else:
        flat = (ii + xp.arange(planes)[:, None] * vol).reshape(-1)
        out = xp.bincount(flat, weights=gi.reshape(-1), minlength=planes * vol).astype(g.dtype, copy=False)
    return out.reshape(input_shape)


def _gather(xp, gg, indices, nd):
    """The values of ``gg`` at ``indices`` in each plane: the adjoint of :func:`_unpool_fwd`."""
    lead = tuple(gg.shape[:-nd])
    idx = indices.reshape(lead + (-1,))
    return xp.take_along_axis(gg.reshape(lead + (-1,)), idx, axis=len(lead)).reshape(tuple(indices.shape))


def _unpool_gather(xp, gg, indices, nd):
    return _gather(xp, gg, indices, nd)


def _max_pool_grad(xp, grads, self_sym_sizes, result1, kernel, stride, dilation):
    g = grads[0]
    if g is None:
        return None
    overlapping = any(s < d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
    return xp.apply(MAX_POOL3D_BACK, g, params=(result1, tuple(self_sym_sizes), len(kernel), overlapping))


MAX_POOL3D = defop("MaxPool3DWithIndicesBackward0", _max_pool_fwd, _max_pool_grad,
                   saved=("self_sym_sizes", "result1", "kernel", "stride", "dilation"), n_out=2,
                   diff_outputs=(True, False))
MAX_POOL3D.node_cls._saved_names = ("self_sym_sizes", "result1", "kernel_size", "stride", "dilation")
MAX_POOL3D_BACK = defop("MaxPool3DWithIndicesBackwardBackward0", _unpool_fwd, _unpool_gather,
                        saved=("indices", "nd"))
MAX_UNPOOL3D = defop("MaxUnpool3DBackward0", _unpool_fwd, _unpool_gather, saved=("indices", "nd"))


def max_pool_nd(input: Tensor, kernel, stride, padding, dilation, ceil_mode, out_size):
    """(values, indices) of 3-d max pooling of a (C, D, H, W) or (N, C, D, H, W) input; geometry checked."""
    return apply(MAX_POOL3D, (input,), (tuple(kernel), tuple(stride), tuple(padding), tuple(dilation),
                                        bool(ceil_mode), tuple(out_size)))


def max_unpool_nd(input: Tensor, indices: Tensor, output_shape: tuple) -> Tensor:
    return apply(MAX_UNPOOL3D, (input,), (indices, tuple(output_shape), 3, False))


# =============================================================================== average pooling
def _avg_divisor(xp, spatial, out, kernel, stride, padding, count_include_pad, divisor_override, dtype):
    if divisor_override is not None:
        return xp.asarray(divisor_override, dtype=dtype)
    counts = []
    for size, o, k, s, p in zip(spatial, out, kernel, stride, padding):
        start = xp.arange(o) * s - p
        end = xp.minimum(start + k, size + p)
        counts.append(end - start if count_include_pad else xp.minimum(end, size) - xp.maximum(start, 0))
    total = 1
    for i, c in enumerate(counts):
        total = total * c.reshape((1,) * i + (-1,) + (1,) * (len(counts) - i - 1))
    return total.astype(dtype)


def _avg_pool_fwd(xp, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, out_size):
    nd = len(kernel)
    spatial = x.shape[-nd:]
    pads = _pads(spatial, out_size, kernel, stride, padding, (1,) * nd)
    xpd = xp.pad(x, ((0, 0),) * (x.ndim - nd) + pads) if any(p != (0, 0) for p in pads) else x
    s = None
    for offs in itertools.product(*(range(k) for k in kernel)):  # one strided view per kernel offset, summed
        v = xpd[(Ellipsis,) + tuple(slice(i, i + st * (o - 1) + 1, st) for i, st, o in zip(offs, stride, out_size))]
        s = v.copy() if s is None else xp.add(s, v, out=s)
    out = s / _avg_divisor(xp, spatial, out_size, kernel, stride, padding, count_include_pad, divisor_override,
                           x.dtype)
    return out.astype(x.dtype, copy=False)


def _avg_unpool_fwd(xp, g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """The adjoint of average pooling: spread each window's gradient evenly over it."""
    nd = len(kernel)
    spatial = tuple(input_shape[-nd:])
    out_size = g.shape[-nd:]
    gd = (g / _avg_divisor(xp, spatial, out_size, kernel, stride, padding, count_include_pad, divisor_override,
                           g.dtype)).astype(g.dtype, copy=False)
    pads = _pads(spatial, out_size, kernel, stride, padding, (1,) * nd)
    lead = tuple(input_shape[:-nd])
    dx = xp.zeros(lead + tuple(n + lo + hi for n, (lo, hi) in zip(spatial, pads)), dtype=g.dtype)
    for offs in itertools.product(*(range(k) for k in kernel)):
        dx[(Ellipsis,) + tuple(slice(i, i + st * (o - 1) + 1, st) for i, st, o in zip(offs, stride, out_size))] += gd
    if any(p != (0, 0) for p in pads):
        dx = xp.ascontiguousarray(dx[(Ellipsis,) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(spatial, pads))])
    return dx.reshape(input_shape)


_AVG_PARAMS = ("kernel", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
AVG_POOL3D = defop("AvgPool3DBackward0", _avg_pool_fwd,
                   lambda xp, g, self_sym_sizes, *p: xp.apply(AVG_POOL3D_BACK, g, params=(tuple(self_sym_sizes),) + p),
                   saved=("self_sym_sizes",) + _AVG_PARAMS)
AVG_POOL3D.node_cls._saved_names = ("self_sym_sizes", "kernel_size", "stride", "padding", "ceil_mode",
                                    "count_include_pad", "divisor_override")
# the spreading op's "self" is the pooled gradient: its formula needs the pooled shape, saved as self_sym_sizes
AVG_POOL3D_BACK = defop("AvgPool3DBackwardBackward0", _avg_unpool_fwd,
                        lambda xp, gg, self_sym_sizes, *p: xp.apply(
                            AVG_POOL3D, gg, params=p + (tuple(self_sym_sizes[-len(p[0]):]),)),
                        saved=("self_sym_sizes",) + _AVG_PARAMS)


def avg_pool_nd(input: Tensor, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, out_size):
    return apply(AVG_POOL3D, (input,), (tuple(kernel), tuple(stride), tuple(padding), bool(ceil_mode),
                                        bool(count_include_pad), divisor_override, tuple(out_size)))


# =============================================================================== adaptive pooling
def _map_axes(xp, x, mats, transpose: bool):
    """x with each of its last len(mats) dims multiplied by its (out, in) matrix (or its transpose)."""
    nd = len(mats)
    for i, m in enumerate(mats):
        axis = x.ndim - nd + i
        moved = xp.moveaxis(x, axis, -1)
        moved = xp.matmul(moved, m if transpose else xp.swapaxes(m, -1, -2))
        x = xp.moveaxis(moved, -1, axis)
    return x


def _adaptive_avg_fwd(xp, x, out_size):
    nd = len(out_size)
    mats = [_adaptive_matrix(xp, n, o, x.dtype) for n, o in zip(x.shape[-nd:], out_size)]
    return xp.ascontiguousarray(_map_axes(xp, x, mats, False))


def _adaptive_avg_back_fwd(xp, g, in_size):
    nd = len(in_size)
    mats = [_adaptive_matrix(xp, n, o, g.dtype) for n, o in zip(in_size, g.shape[-nd:])]
    return xp.ascontiguousarray(_map_axes(xp, g, mats, True))


ADAPTIVE_AVG3D = defop("AdaptiveAvgPool3DBackward0", _adaptive_avg_fwd,
                       lambda xp, g, self_sym_sizes: xp.apply(ADAPTIVE_AVG3D_BACK, g,
                                                              params=(tuple(self_sym_sizes[-3:]),)),
                       saved=("self_sym_sizes",))
ADAPTIVE_AVG3D_BACK = defop("AdaptiveAvgPool3DBackwardBackward0", _adaptive_avg_back_fwd,
                            lambda xp, gg, self_sym_sizes: xp.apply(ADAPTIVE_AVG3D, gg,
                                                                    params=(tuple(self_sym_sizes[-3:]),)),
                            saved=("self_sym_sizes",))


def adaptive_avg_pool_nd(input: Tensor, out_size) -> Tensor:
    return apply(ADAPTIVE_AVG3D, (input,), (tuple(out_size),))


def _bounds(size: int, out: int) -> list:
    """torch's adaptive windows: output i covers [floor(i*size/out), ceil((i+1)*size/out))."""
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_max_fwd(xp, x, out_size):
    nd = len(out_size)
    spatial = x.shape[-nd:]
    lead = x.shape[:-nd]
    fs = _flat_strides(spatial)
    out = xp.empty(lead + tuple(out_size), dtype=x.dtype)
    idx = xp.empty(lead + tuple(out_size), dtype=np.int64)
    for cell in itertools.product(*(list(enumerate(_bounds(n, o))) for n, o in zip(spatial, out_size))):
        pos = tuple(i for i, _ in cell)
        lo = [b[0] for _, b in cell]
        ext = [b[1] - b[0] for _, b in cell]
        win = x[(Ellipsis,) + tuple(slice(a, a + e) for a, e in zip(lo, ext))].reshape(lead + (-1,))
        k = xp.argmax(xp.where(xp.isnan(win), xp.inf, win), axis=-1)  # the first maximum; NaN wins
        out[(Ellipsis,) + pos] = xp.take_along_axis(win, k[..., None], axis=-1)[..., 0]
        flat = 0
        rest = k
        for d in range(nd - 1, -1, -1):  # the window's multi-index, back to the input's flat index
            flat = flat + (lo[d] + rest % ext[d]) * fs[d]
            rest = rest // ext[d]
        idx[(Ellipsis,) + pos] = flat
    return out, idx


def _adaptive_max_grad(xp, grads, self, result1):
    g = grads[0]
    if g is None:
        return None
    return xp.apply(ADAPTIVE_MAX3D_BACK, g, params=(result1, tuple(self.shape), 3, True))


# (torch's node saves the input itself and the indices)
ADAPTIVE_MAX3D = defop("AdaptiveMaxPool3DBackward0", _adaptive_max_fwd, _adaptive_max_grad,
                       saved=("self", "result1"), n_out=2, diff_outputs=(True, False))
ADAPTIVE_MAX3D_BACK = defop("AdaptiveMaxPool3DBackwardBackward0", _unpool_fwd, _unpool_gather,
                            saved=("indices", "nd"))


def adaptive_max_pool_nd(input: Tensor, out_size) -> tuple:
    return apply(ADAPTIVE_MAX3D, (input,), (tuple(out_size),))


# =============================================================================== im2col / col2im
def _im2col_fwd(xp, x, kernel, dilation, padding, stride):
    unbatched = x.ndim == 3
    cols, _ = _im2col(xp, x[None] if unbatched else x, kernel, stride, tuple((p, p) for p in padding), dilation)
    return cols[0] if unbatched else cols


def _col2im_fwd(xp, cols, output_size, kernel, dilation, padding, stride):
    unbatched = cols.ndim == 2
    c2 = cols[None] if unbatched else cols
    k = math.prod(kernel)
    out = tuple((n + 2 * p - (d * (kk - 1) + 1)) // s + 1
                for n, kk, d, p, s in zip(output_size, kernel, dilation, padding, stride))
    dx = _col2im(xp, c2, c2.shape[1] // k, kernel, out, tuple(output_size), stride,
                 tuple((p, p) for p in padding), dilation)
    return dx[0] if unbatched else dx


def _im2col_grad(xp, g, self_sym_sizes, kernel, dilation, padding, stride):
    return xp.apply(COL2IM, g, params=(tuple(self_sym_sizes[-2:]), kernel, dilation, padding, stride))


def _col2im_grad(xp, g, kernel, dilation, padding, stride):
    return xp.apply(IM2COL, g, params=(kernel, dilation, padding, stride))


IM2COL = defop("Im2ColBackward0", _im2col_fwd, _im2col_grad,
               saved=("self_sym_sizes", "kernel", "dilation", "padding", "stride"))
IM2COL.node_cls._saved_names = ("self_sym_sizes", "kernel_size", "dilation", "padding", "stride")
IM2COL.node_cls._saved_self_sym_argsize_minus_2 = property(lambda self: self._saved[0][-2])
IM2COL.node_cls._saved_self_sym_argsize_minus_1 = property(lambda self: self._saved[0][-1])
COL2IM = defop("Col2ImBackward0", _col2im_fwd, _col2im_grad, saved=("kernel", "dilation", "padding", "stride"))
COL2IM.node_cls._saved_names = ("kernel_size", "dilation", "padding", "stride")


def im2col(input: Tensor, kernel, dilation, padding, stride) -> Tensor:
    return apply(IM2COL, (input,), (tuple(kernel), tuple(dilation), tuple(padding), tuple(stride)))


def col2im(input: Tensor, output_size, kernel, dilation, padding, stride) -> Tensor:
    return apply(COL2IM, (input,), (tuple(output_size), tuple(kernel), tuple(dilation), tuple(padding),
                                    tuple(stride)))
