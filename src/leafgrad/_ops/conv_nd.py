"""Convolution over any number of spatial dims (used for 3-d: conv3d, conv_transpose3d).

The 1-d and 2-d convolutions keep their tuned 4-D kernels in ``nn_ops.py`` (the W4 benchmark
runs them); this file is the same construction for N spatial dims, so 3-d volumes get the
same three ops and the same closure under differentiation:

* the forward is im2col (one strided view of every kernel placement, copied once) and one GEMM;
* the input gradient is the transposed GEMM and col2im (one strided add per kernel offset);
* the weight gradient is one GEMM over (batch x output cells);
* each of the two gradient ops is bilinear, and its own gradients are the forward convolution
  and the other gradient op, so double backward (``create_graph=True``) works.

Geometry tuples have one entry per spatial dim: ``pad`` holds (before, after) pairs so the
asymmetric 'same' padding of an even kernel needs no extra op.
"""
from __future__ import annotations

import itertools
import math

from .._backend import backend_for_array
from .._tensor import Tensor
from .nn_ops import _bias_grad
from .nn_extra import _fit
from .registry import apply, defop

__all__ = ["windows_nd", "conv_nd", "conv_transpose_nd"]


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


def _conv_fwd(xp, x, w, stride, pad, dil, groups):
    n = x.shape[0]
    o, cg = w.shape[:2]
    ks = w.shape[2:]
    cols, out = _im2col(xp, x, ks, stride, pad, dil)
    cols = cols.reshape(n, groups, cg * math.prod(ks), math.prod(out))
    res = xp.matmul(w.reshape(groups, o // groups, cg * math.prod(ks)), cols)  # one GEMM: (N, G, Og, L)
    return res.reshape((n, o) + tuple(out))


def _conv_bias_fwd(xp, x, w, b, stride, pad, dil, groups):
    out = _conv_fwd(xp, x, w, stride, pad, dil, groups)
    if b.ndim:  # a 0-dim placeholder stands for "no bias" (torch's edge is then None)
        out += b.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


def _conv_input_grad_fwd(xp, g, w, input_shape, stride, pad, dil, groups):
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


def _conv_weight_grad_fwd(xp, x, g, weight_shape, stride, pad, dil, groups):
    """The convolution's gradient in its weight: one GEMM over (batch x output cells)."""
    n, c = x.shape[:2]
    o, cg = weight_shape[:2]
    ks = tuple(weight_shape[2:])
    cols, out = _im2col(xp, x, ks, stride, pad, dil)  # (N, C*K, L)
    k, lo = cg * math.prod(ks), math.prod(out)
    cols = xp.ascontiguousarray(cols.reshape(n, groups, k, lo).transpose(1, 2, 0, 3)).reshape(groups, k, n * lo)
    gt = xp.ascontiguousarray(g.reshape(n, o, lo).transpose(1, 0, 2)).reshape(groups, o // groups, n * lo)
    return xp.matmul(gt, cols.transpose(0, 2, 1)).reshape(weight_shape)


def _conv_x_grad(xp, g, self, weight, stride, pad, dil, groups):
    return xp.apply(CONV_ND_INPUT_GRAD, g, weight, params=(tuple(self.shape), stride, pad, dil, groups))


def _conv_w_grad(xp, g, self, weight, stride, pad, dil, groups):
    return xp.apply(CONV_ND_WEIGHT_GRAD, self, g, params=(tuple(weight.shape), stride, pad, dil, groups))


_SAVED = ("self", "input1", "stride", "pad", "dil", "groups")
CONV_ND = defop("ConvolutionBackward0", _conv_fwd, (_conv_x_grad, _conv_w_grad), saved=_SAVED, n_in=2)
CONV_ND_BIAS = defop("ConvolutionBackward0", _conv_bias_fwd, (_conv_x_grad, _conv_w_grad, _bias_grad),
                     saved=_SAVED, n_in=3)
for _op in (CONV_ND, CONV_ND_BIAS):
    _op.node_cls._saved_names = ("input", "weight", "stride", "padding", "dilation", "groups")

# dx = Ct(g, w) and dw = Cw(x, g) are bilinear; their adjoints are the convolution itself
CONV_ND_INPUT_GRAD = defop(
    "ConvolutionBackwardBackward0", _conv_input_grad_fwd,
    (lambda xp, h, g, weight, stride, pad, dil, groups: xp.apply(CONV_ND, h, weight, params=(stride, pad, dil, groups)),
     lambda xp, h, g, weight, stride, pad, dil, groups: xp.apply(
         CONV_ND_WEIGHT_GRAD, h, g, params=(tuple(weight.shape), stride, pad, dil, groups))),
    saved=("self", "input1", "stride", "pad", "dil", "groups"), n_in=2)
CONV_ND_WEIGHT_GRAD = defop(
    "ConvolutionBackwardBackward0", _conv_weight_grad_fwd,
    (lambda xp, k, x, g, input_shape, stride, pad, dil, groups: xp.apply(
        CONV_ND_INPUT_GRAD, g, k, params=(input_shape, stride, pad, dil, groups)),
     lambda xp, k, x, g, input_shape, stride, pad, dil, groups: xp.apply(
         CONV_ND, x, k, params=(stride, pad, dil, groups))),
    saved=("self", "input1", "input0_sizes", "stride", "pad", "dil", "groups"), n_in=2)


def _placeholder(input: Tensor) -> Tensor:
    return Tensor._make(backend_for_array(input._data).xp.zeros((), dtype=input._data.dtype))


def conv_nd(input: Tensor, weight: Tensor, bias: Tensor | None, stride, pad, dil, groups: int) -> Tensor:
    """Convolution of a batched (N, C, *spatial) input; geometry already normalised."""
    return apply(CONV_ND_BIAS, (input, weight, _placeholder(input) if bias is None else bias),
                 (tuple(stride), tuple(pad), tuple(dil), groups))


# =============================================================================== transposed convolution
def _conv_t_fwd(xp, x, w, b, output_shape, stride, pad, dil, groups):
    out = _conv_input_grad_fwd(xp, x, w, output_shape, stride, pad, dil, groups)
    if b.ndim:
        out = out + b.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


def _conv_t_x_grad(xp, g, self, weight, output_shape, stride, pad, dil, groups):
    g, pad = _fit(xp, g, self, weight, stride, pad, dil)
    return xp.apply(CONV_ND, g, weight, params=(stride, pad, dil, groups))


def _conv_t_w_grad(xp, g, self, weight, output_shape, stride, pad, dil, groups):
    g, pad = _fit(xp, g, self, weight, stride, pad, dil)
    return xp.apply(CONV_ND_WEIGHT_GRAD, g, self, params=(tuple(weight.shape), stride, pad, dil, groups))


CONV_ND_T = defop("ConvolutionBackward0", _conv_t_fwd, (_conv_t_x_grad, _conv_t_w_grad, _bias_grad),
                  saved=("self", "input1", "output_shape", "stride", "pad", "dil", "groups"), n_in=3)
CONV_ND_T.node_cls._saved_names = ("input", "weight", "output_shape", "stride", "padding", "dilation", "groups")


def conv_transpose_nd(input: Tensor, weight: Tensor, bias, output_shape: tuple, stride, pad, dil,
                      groups: int) -> Tensor:
    """Transposed convolution of a batched (N, C, *spatial) input to ``output_shape``; geometry normalised."""
    return apply(CONV_ND_T, (input, weight, _placeholder(input) if bias is None else bias),
                 (tuple(output_shape), tuple(stride), tuple(pad), tuple(dil), groups))
