"""The differentiable ops behind ``leafgrad.nn``: convolution, pooling, normalisation,
embedding, activations and losses.

Each op is declared once with :func:`defop`: an array forward (``xp`` is the backend's
array module) and one backward formula per input, written against the namespace ``xp``
it is given (``_ops/xp.py``): raw arrays in a plain backward, Tensors when a graph of the
backward is wanted. Where a backward is itself a big array computation (the input and
weight gradients of a convolution, un-pooling, scattering a loss gradient back into its
classes), it is another ``defop``, reached through ``xp.apply``, whose own formulas use
the forward op again: the ops are closed under differentiation, so double backward
(``create_graph=True``) works everywhere. A tensor parameter (an index, a target, a
weight) reaches a forward as a Tensor or, from a formula on arrays, as its array
(:func:`_array` reads both).

Names follow the grad_fn classes torch 2.13 records on the CPU, so a graph built
with ``leafgrad.nn`` reads like one built with ``torch.nn``.

The argument checking and the public signatures live in ``leafgrad/nn/functional.py``;
the functions at the bottom of this file take already-normalised arguments.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._backend import backend_for_array
from .._lowp import LowpArray, cascade_sums, nll_cascade, round_like, unrounded
from .._tensor import Tensor
from ..autograd.grad_mode import STATE as _STATE
from . import conv_nd as _nd  # (3-d volumes: the same ops, N-d kernels)
from . import norm_rows as _rows
from .erf_f32 import _INV_SQRT_2PI, _SQRT1_2, gelu_backward_float32, gelu_float32
from .pointwise import CLAMP, ERF, RSQRT, SIGMOID, SIGN, _erf, _sigmoid
from .registry import apply, defop, set_formulas, show_saved_as, unsigned_int64
from .saved_display import show_conv_saved, show_saved

_make = Tensor._make
_SQRT_2_PI = math.sqrt(2.0 / math.pi)


# =============================================================================== convolution
# Arrays are 4-D inside the ops: a 1-d convolution is a 2-d one over a height of 1.
# ``pad`` is ((top, bottom), (left, right)) so 'same' padding with an even kernel,
# which torch pads asymmetrically, needs no extra op. The other geometry tuples are
# (height, width) pairs.

def _array(t):
    """A tensor parameter's array: forwards get a Tensor from the public path and from formulas
    on Tensors (``create_graph``), its raw array from formulas on arrays."""
    return t._data if isinstance(t, Tensor) else t


def _as4(a):
    return a[:, :, None, :] if a.ndim == 3 else a


def _windows(xp, x, kh, kw, stride, pad, dil):
    """A strided view (N, C, Ho, Wo, kh, kw) of every kernel placement: no copy but the padding."""
    if pad[0] != (0, 0) or pad[1] != (0, 0):
        x = xp.pad(x, ((0, 0), (0, 0), pad[0], pad[1]))
    dh, dw = dil
    v = xp.lib.stride_tricks.sliding_window_view(x, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), axis=(2, 3))
    return v[:, :, ::stride[0], ::stride[1], ::dh, ::dw]


def _conv_fwd(xp, x, w, stride, pad, dil, groups):
    if x.ndim == 5:
        return _nd.conv_fwd(xp, x, w, stride, pad, dil, groups)
    one_d = x.ndim == 3
    x4, w4 = _as4(x), _as4(w)
    n, c = x4.shape[:2]
    o, cg, kh, kw = w4.shape
    v = _windows(xp, x4, kh, kw, stride, pad, dil)
    ho, wo = v.shape[2], v.shape[3]
    # im2col: one copy into (N, G, Cg*kh*kw, Ho*Wo); rows of width Wo stay contiguous
    cols = xp.ascontiguousarray(v.transpose(0, 1, 4, 5, 2, 3)).reshape(n, groups, cg * kh * kw, ho * wo)
    out = xp.matmul(w4.reshape(groups, o // groups, cg * kh * kw), cols)  # one GEMM: (N, G, Og, L)
    return out.reshape((n, o, wo) if one_d else (n, o, ho, wo))


def _conv_bias_fwd(xp, x, w, b, stride, pad, dil, groups):
    out = _conv_fwd(xp, x, w, stride, pad, dil, groups)
    if b.ndim:  # a 0-dim placeholder stands for "no bias" (torch's edge is then None)
        out += b.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


def _conv_input_grad_fwd(xp, g, w, input_shape, stride, pad, dil, groups):
    """The adjoint of the convolution in its input (a transposed convolution): GEMM, then col2im
    (at stride 1, with finite weights, the faster :func:`_col2im_flat`, bit for bit the same)."""
    if g.ndim == 5:
        return _nd.conv_input_grad_fwd(xp, g, w, input_shape, stride, pad, dil, groups)
    g4, w4 = _as4(g), _as4(w)
    n, o, ho, wo = g4.shape
    _, cg, kh, kw = w4.shape
    h_in, w_in = (1, input_shape[2]) if len(input_shape) == 3 else input_shape[2:]
    c = cg * groups
    (pt, pb), (pl, pr) = pad
    sh, sw = stride
    dh, dw = dil
    hp, wp = h_in + pt + pb, w_in + pl + pr
    if stride == (1, 1) and xp.isfinite(w4).all():
        dx = _col2im_flat(xp, w4, g4, groups, c, hp, wp, dh, dw)
    else:
        wt = w4.reshape(groups, o // groups, cg * kh * kw).transpose(0, 2, 1)
        cols = xp.matmul(wt, g4.reshape(n, groups, o // groups, ho * wo)).reshape(n, c, kh, kw, ho, wo)
        dx = xp.zeros((n, c, hp, wp), dtype=g.dtype)
        for i in range(kh):  # col2im: one strided add per kernel offset, never per pixel
            for j in range(kw):
                dx[:, :, i * dh:i * dh + sh * (ho - 1) + 1:sh, j * dw:j * dw + sw * (wo - 1) + 1:sw] += cols[:, :, i, j]
    if pt or pb or pl or pr:
        dx = xp.ascontiguousarray(dx[:, :, pt:pt + h_in, pl:pl + w_in])
    return dx.reshape(input_shape)


def _col2im_flat(xp, w4, g4, groups, c, hp, wp, dh, dw):
    """The input gradient of a stride-1 convolution as one GEMM and one contiguous add per kernel
    offset, where col2im's strided adds run over rows as short as the output's (2-3x slower).

    ``g`` is laid on the padded input's grid (zeros beyond its own rows and columns) and the
    (n, c) planes of the result are one flat array: a kernel offset (i, j) then shifts the whole
    of its GEMM's output by i*dh rows plus j*dw columns. What the zeros add (w @ 0 = 0, ``w``
    checked finite by the caller) lands outside the real positions or adds nothing, so every
    sum is the one col2im makes, in the same order, bit for bit."""
    n, o, ho, wo = g4.shape
    _, cg, kh, kw = w4.shape
    og = o // groups
    plane = hp * wp
    gp = xp.zeros((n, o, hp, wp), dtype=g4.dtype)
    gp[:, :, :ho, :wo] = g4
    gp = gp.reshape(n, groups, og, plane)
    wk = xp.ascontiguousarray(w4.reshape(groups, og, cg, kh, kw).transpose(3, 4, 0, 2, 1))  # (kh, kw, G, Cg, Og)
    size = n * c * plane
    flat = xp.zeros(size + (kh - 1) * dh * wp + (kw - 1) * dw, dtype=g4.dtype)  # (the shifts overhang)
    for i in range(kh):
        for j in range(kw):
            start = i * dh * wp + j * dw
            flat[start:start + size] += xp.matmul(wk[i, j], gp).reshape(size)  # (N, G, Cg, plane)
    return flat[:size].reshape(n, c, hp, wp)


def _conv_weight_grad_fwd(xp, x, g, weight_shape, stride, pad, dil, groups):
    """The convolution's gradient in its weight: one GEMM over (batch x output pixels)."""
    if x.ndim == 5:
        return _nd.conv_weight_grad_fwd(xp, x, g, weight_shape, stride, pad, dil, groups)
    x4, g4 = _as4(x), _as4(g)
    n, c = x4.shape[:2]
    o = weight_shape[0]
    cg, kh, kw = (weight_shape[1], 1, weight_shape[2]) if len(weight_shape) == 3 else weight_shape[1:]
    v = _windows(xp, x4, kh, kw, stride, pad, dil)
    ho, wo = v.shape[2], v.shape[3]
    cols = xp.ascontiguousarray(v.transpose(1, 4, 5, 0, 2, 3)).reshape(groups, cg * kh * kw, n * ho * wo)
    gt = xp.ascontiguousarray(g4.reshape(n, o, ho * wo).transpose(1, 0, 2)).reshape(groups, o // groups, n * ho * wo)
    return xp.matmul(gt, cols.transpose(0, 2, 1)).reshape(weight_shape)


def _conv_x_grad(xp, g, self, weight, stride, pad, dil, groups, *_):
    return xp.apply(CONV_INPUT_GRAD, g, weight, params=(tuple(self.shape), stride, pad, dil, groups))


def _conv_w_grad(xp, g, self, weight, stride, pad, dil, groups, *_):
    return xp.apply(CONV_WEIGHT_GRAD, self, g, params=(tuple(weight.shape), stride, pad, dil, groups))


def _bias_grad(xp, g, *_):
    return xp.sum(g, axis=(0,) + tuple(range(2, g.ndim)))


_CONV_SAVED = ("self", "input1", "stride", "pad", "dil", "groups", "input0_sizes")
# CONV (no bias) is what the double-backward formulas call; the public path is CONV_BIAS, whose
# third input is the bias or a 0-dim placeholder, so its node has torch's three edges
CONV = defop("ConvolutionBackward0", _conv_fwd, (_conv_x_grad, _conv_w_grad), saved=_CONV_SAVED, n_in=2)
CONV_BIAS = defop("ConvolutionBackward0", _conv_bias_fwd, (_conv_x_grad, _conv_w_grad, _bias_grad),
                  saved=_CONV_SAVED + ("input2_sizes",), n_in=3)
show_conv_saved(CONV, ("input", "weight", "stride", "pad", "dilation", "groups", "input_sizes"))
show_conv_saved(CONV_BIAS, ("input", "weight", "stride", "pad", "dilation", "groups", "input_sizes", "bias_sizes"))

# dx = Ct(g, w) and dw = Cw(x, g) are bilinear; their adjoints are the convolution itself:
#   <h, Ct(g, w)> = <conv(h, w), g>   and   <k, Cw(x, g)> = <conv(x, k), g>
CONV_INPUT_GRAD = defop(
    "ConvolutionBackwardBackward0", _conv_input_grad_fwd,
    (lambda xp, h, g, weight, stride, pad, dil, groups: xp.apply(CONV, h, weight, params=(stride, pad, dil, groups)),
     lambda xp, h, g, weight, stride, pad, dil, groups: xp.apply(
         CONV_WEIGHT_GRAD, h, g, params=(tuple(weight.shape), stride, pad, dil, groups))),
    saved=("self", "input1", "stride", "pad", "dil", "groups"), n_in=2)
CONV_WEIGHT_GRAD = defop(
    "ConvolutionBackwardBackward0", _conv_weight_grad_fwd,
    (lambda xp, k, x, g, input_shape, stride, pad, dil, groups: xp.apply(
        CONV_INPUT_GRAD, g, k, params=(input_shape, stride, pad, dil, groups)),
     lambda xp, k, x, g, input_shape, stride, pad, dil, groups: xp.apply(CONV, x, k, params=(stride, pad, dil, groups))),
    saved=("self", "input1", "input0_sizes", "stride", "pad", "dil", "groups"), n_in=2)


def conv(input: Tensor, weight: Tensor, bias: Tensor | None, stride, pad, dil, groups: int) -> Tensor:
    """Convolution of a batched 3-d (1-d conv), 4-d (2-d conv) or 5-d (3-d conv) input; geometry already
    normalised."""
    if bias is None:
        bias = _make(backend_for_array(input._data).xp.zeros((), dtype=input._data.dtype))
    return apply(CONV_BIAS, (input, weight, bias), (stride, pad, dil, groups))


# =============================================================================== pooling
def pool_out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """torch's pooling output size, including the ceil-mode rule that a window must start inside."""
    eff = d * (k - 1) + 1
    num = size + 2 * p - eff + ((s - 1) if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_pads(h, w, ho, wo, k, s, p, d):
    """(top, bottom), (left, right): the right padding grows so every ceil-mode window fits."""
    pads = []
    for size, out, kk, ss, pp, dd in ((h, ho, k[0], s[0], p[0], d[0]), (w, wo, k[1], s[1], p[1], d[1])):
        need = (out - 1) * ss + dd * (kk - 1) + 1
        pads.append((pp, max(need - size - pp, 0)))
    return tuple(pads)


def _max_pool_fwd(xp, x, kernel, stride, padding, dilation, ceil_mode, out_hw):
    """Running max over the kh*kw kernel offsets, each one strided view of the input (a reshape
    when kernel == stride, else a sliding-window view): no window is ever copied. The index of the
    first maximum is tracked as torch's scan finds it."""
    three = x.ndim == 3
    x4 = x[None] if three else x
    n, c, h, w = x4.shape
    kh, kw = kernel
    sh, sw = stride
    dh, dw = dilation
    ho, wo = out_hw
    if padding == (0, 0) and dilation == (1, 1) and kernel == stride and ho * kh <= h and wo * kw <= w:
        # the fast path: non-overlapping windows are a reshape of the input
        r = x4[:, :, :ho * kh, :wo * kw].reshape(n, c, ho, kh, wo, kw)
        views = [r[:, :, :, i, :, j] for i in range(kh) for j in range(kw)]
    else:
        (pt, pb), (pl, pr) = _pool_pads(h, w, ho, wo, kernel, stride, padding, dilation)
        if pt or pb or pl or pr:
            fill = -xp.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
            x4 = xp.pad(x4, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=fill)
        win = _windows(xp, x4, kh, kw, stride, ((0, 0), (0, 0)), dilation)[:, :, :ho, :wo]
        views = [win[:, :, :, :, i, j] for i in range(kh) for j in range(kw)]
    # flat index (into the unpadded H*W plane) of each window's top-left input, and each offset's shift
    base = (xp.arange(ho)[:, None] * sh - padding[0]) * w + (xp.arange(wo)[None, :] * sw - padding[1])
    shifts = [i * dh * w + j * dw for i in range(kh) for j in range(kw)]
    out, idx = max_and_index(xp, views, base, shifts)
    if three:
        return out[0], idx[0]
    return out, idx


def max_and_index(xp, views, base, shifts):
    """The running max over the kernel offsets' strided views, and the flat index of each window's
    maximum (``base`` + the offset's shift) as torch's scan finds it: the first maximum, or the
    last NaN."""
    out = views[0].copy() if len(views) == 1 else xp.maximum(views[0], views[1])
    for v in views[2:]:
        xp.maximum(out, v, out=out)  # NaN propagates, as torch's
    idx = xp.empty(out.shape, dtype=np.int64)
    idx[...] = base + shifts[-1]
    for k in range(len(views) - 2, -1, -1):  # backwards, so the first offset holding the max wins
        xp.copyto(idx, base + shifts[k], where=views[k] == out)
    if out.dtype.kind in "fV" and xp.isnan(out).any():  # torch's scan keeps the last NaN it meets
        for k in range(len(views)):
            xp.copyto(idx, base + shifts[k], where=xp.isnan(views[k]))
    return out, idx


def _max_unpool_fwd(xp, g, indices, input_shape, overlapping):
    """Scatter the pooled gradient back to the input position of each window's maximum."""
    hw = input_shape[-1] * input_shape[-2]
    planes = math.prod(input_shape[:-2])
    gi = g.reshape(planes, -1)
    ii = _array(indices).reshape(planes, -1)
    if not overlapping:  # disjoint windows: each input receives at most one gradient
        out = xp.zeros((planes, hw), dtype=g.dtype)
        out[xp.arange(planes)[:, None], ii] = gi
    else:
        flat = (ii + xp.arange(planes)[:, None] * hw).reshape(-1)
        out = xp.bincount(flat, weights=gi.reshape(-1), minlength=planes * hw).astype(g.dtype, copy=False)
    return out.reshape(input_shape)


def _gather_pooled(xp, gg, indices):
    """The pooled positions of ``gg`` (input-shaped): the adjoint of un-pooling (torch's gather)."""
    lead = tuple(gg.shape[:-2])
    idx = indices.reshape(lead + (-1,))
    return xp.take_along_axis(gg.reshape(lead + (-1,)), idx, axis=len(lead)).reshape(tuple(indices.shape))


def _max_pool_grad(xp, grads, self_sym_sizes, result1, kernel, stride, dilation):
    g = grads[0]
    if g is None:
        return None
    overlapping = stride[0] < dilation[0] * (kernel[0] - 1) + 1 or stride[1] < dilation[1] * (kernel[1] - 1) + 1
    return xp.apply(MAX_UNPOOL, g, params=(result1, tuple(self_sym_sizes), overlapping))


MAX_POOL2D = defop("MaxPool2DWithIndicesBackward0", _max_pool_fwd, _max_pool_grad,
                   saved=("self_sym_sizes", "result1", "kernel", "stride", "dilation"), n_out=2,
                   diff_outputs=(True, False))
MAX_UNPOOL = defop("MaxPool2DWithIndicesBackwardBackward0", _max_unpool_fwd,
                   _gather_pooled, saved=("indices",))


def max_pool2d(input: Tensor, kernel, stride, padding, dilation, ceil_mode, out_hw):
    return apply(MAX_POOL2D, (input,), (kernel, stride, padding, dilation, ceil_mode, out_hw))


def _avg_divisor(xp, h, w, ho, wo, kernel, stride, padding, count_include_pad, divisor_override, dtype):
    if divisor_override is not None:
        return xp.asarray(divisor_override, dtype=dtype)
    counts = []
    for size, out, k, s, p in ((h, ho, kernel[0], stride[0], padding[0]), (w, wo, kernel[1], stride[1], padding[1])):
        start = xp.arange(out) * s - p
        end = xp.minimum(start + k, size + p)
        n_pad = end - start  # the window clipped to the padded input
        n_in = xp.minimum(end, size) - xp.maximum(start, 0)
        counts.append(n_pad if count_include_pad else n_in)
    return xp.outer(counts[0], counts[1]).astype(dtype)


def _avg_pool_fwd(xp, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, out_hw):
    three = x.ndim == 3
    x4 = x[None] if three else x
    n, c, h, w = x4.shape
    kh, kw = kernel
    ho, wo = out_hw
    if padding == (0, 0) and kernel == stride and ho * kh <= h and wo * kw <= w:
        s = x4[:, :, :ho * kh, :wo * kw].reshape(n, c, ho, kh, wo, kw).sum(axis=(3, 5))
    else:  # one strided view of the zero-padded input per kernel offset, summed
        (pt, pb), (pl, pr) = _pool_pads(h, w, ho, wo, kernel, stride, padding, (1, 1))
        xpd = xp.pad(x4, ((0, 0), (0, 0), (pt, pb), (pl, pr))) if pt or pb or pl or pr else x4
        sh, sw = stride
        s = None
        for i in range(kh):
            for j in range(kw):
                v = xpd[:, :, i:i + sh * (ho - 1) + 1:sh, j:j + sw * (wo - 1) + 1:sw]
                s = v.copy() if s is None else xp.add(s, v, out=s)
    out = s / _avg_divisor(xp, h, w, ho, wo, kernel, stride, padding, count_include_pad, divisor_override, x.dtype)
    return (out[0] if three else out).astype(x.dtype, copy=False)


def _avg_unpool_fwd(xp, g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """The adjoint of average pooling: spread each window's gradient evenly over it."""
    three = len(input_shape) == 3
    g4 = g[None] if three else g
    n, c, ho, wo = g4.shape
    h, w = input_shape[-2:]
    kh, kw = kernel
    sh, sw = stride
    gd = g4 / _avg_divisor(xp, h, w, ho, wo, kernel, stride, padding, count_include_pad, divisor_override, g.dtype)
    gd = gd.astype(g.dtype, copy=False)
    if padding == (0, 0) and kernel == stride and ho * kh <= h and wo * kw <= w:
        dx = xp.zeros((n, c, h, w), dtype=g.dtype)
        dx[:, :, :ho * kh, :wo * kw] = xp.broadcast_to(gd[:, :, :, None, :, None],
                                                       (n, c, ho, kh, wo, kw)).reshape(n, c, ho * kh, wo * kw)
    else:
        (pt, pb), (pl, pr) = _pool_pads(h, w, ho, wo, kernel, stride, padding, (1, 1))
        dx = xp.zeros((n, c, h + pt + pb, w + pl + pr), dtype=g.dtype)
        for i in range(kh):
            for j in range(kw):
                dx[:, :, i:i + sh * (ho - 1) + 1:sh, j:j + sw * (wo - 1) + 1:sw] += gd
        dx = xp.ascontiguousarray(dx[:, :, pt:pt + h, pl:pl + w])
    return dx.reshape(input_shape)


_AVG_PARAMS = ("kernel", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
AVG_POOL2D = defop("AvgPool2DBackward0", _avg_pool_fwd,
                   lambda xp, g, self_sym_sizes, *p: xp.apply(AVG_UNPOOL, g, params=(tuple(self_sym_sizes),) + p),
                   saved=("self_sym_sizes",) + _AVG_PARAMS)
AVG_UNPOOL = defop("AvgPool2DBackwardBackward0", _avg_unpool_fwd,
                   lambda xp, gg, self_sym_sizes, *p: xp.apply(AVG_POOL2D, gg,
                                                               params=p + (tuple(self_sym_sizes[-2:]),)),
                   saved=("self_sym_sizes",) + _AVG_PARAMS)
# AVG_UNPOOL's "self" is the pooled gradient: its formula needs the pooled shape, saved as self_sym_sizes


def avg_pool2d(input: Tensor, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, out_hw):
    return apply(AVG_POOL2D, (input,), (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override,
                                        out_hw))


def _adaptive_matrix(xp, size: int, out: int, dtype):
    """(out, size) averaging matrix: row i averages input[floor(i*size/out) : ceil((i+1)*size/out)]."""
    i = xp.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    cols = xp.arange(size)
    m = ((cols >= start[:, None]) & (cols < end[:, None])) / (end - start)[:, None]
    return m.astype(dtype)


def _adaptive_fwd(xp, x, out_hw):
    h, w = x.shape[-2:]
    ph = _adaptive_matrix(xp, h, out_hw[0], x.dtype)
    pw = _adaptive_matrix(xp, w, out_hw[1], x.dtype)
    return xp.matmul(xp.matmul(ph, x), pw.T)  # separable: rows, then columns


def _adaptive_back_fwd(xp, g, in_hw):
    ph = _adaptive_matrix(xp, in_hw[0], g.shape[-2], g.dtype)
    pw = _adaptive_matrix(xp, in_hw[1], g.shape[-1], g.dtype)
    return xp.matmul(xp.matmul(ph.T, g), pw)


ADAPTIVE_AVG = defop("AdaptiveAvgPool2DBackward0", _adaptive_fwd,
                     lambda xp, g, self_sym_sizes: xp.apply(ADAPTIVE_AVG_BACK, g, params=(tuple(self_sym_sizes[-2:]),)),
                     saved=("self_sym_sizes",))
ADAPTIVE_AVG_BACK = defop("AdaptiveAvgPool2DBackwardBackward0", _adaptive_back_fwd,
                          lambda xp, gg, self_sym_sizes: xp.apply(ADAPTIVE_AVG, gg, params=(tuple(self_sym_sizes[-2:]),)),
                          saved=("self_sym_sizes",))


def adaptive_avg_pool2d(input: Tensor, out_hw) -> Tensor:
    return apply(ADAPTIVE_AVG, (input,), (tuple(out_hw),))


# =============================================================================== embedding
# A small table's gradient is one matmul of the rows' one-hot matrix with the output grads: ~7x faster than
# np.add.at (an unbuffered scalar loop) for a language model's 65-row table over 400-500 lookups. Only for
# finite grads (0 * inf would spread NaN to other rows) and a one-hot matrix of at most ~1M entries.
_ONE_HOT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_ONE_HOT_MAX = 1 << 20


def _one_hot_rows(idx, num_weights: int, gi):
    """``out[r] = sum of gi[k] over the k with idx[k] == r``, as ``one_hot(idx).T @ gi``."""
    hot = np.zeros((num_weights, idx.shape[0]), dtype=gi.dtype)
    hot[idx, np.arange(idx.shape[0])] = 1.0
    return hot @ gi


def _embedding_back_fwd(xp, g, indices, num_weights, padding_idx, scale_grad_by_freq):
    idx = _array(indices).reshape(-1)
    gi = g.reshape(idx.shape[0], -1)
    if scale_grad_by_freq:
        counts = xp.bincount(idx, minlength=num_weights)
        gi = gi / counts[idx][:, None].astype(g.dtype)
    if (g.__class__ is np.ndarray and g.dtype in _ONE_HOT_DTYPES and num_weights * idx.shape[0] <= _ONE_HOT_MAX
            and np.isfinite(gi).all()):
        out = _one_hot_rows(idx, num_weights, gi)
    else:
        out = xp.zeros((num_weights, gi.shape[1]), dtype=g.dtype)
        xp.add.at(out, idx, gi)
    if padding_idx is not None:
        out[padding_idx] = 0
    return out


def _embedding_back_grad(xp, gg, indices, num_weights, padding_idx, scale_grad_by_freq):
    out = xp.apply(EMBEDDING, gg, params=(indices, padding_idx, num_weights, scale_grad_by_freq))
    scale = _embedding_row_scale(indices, num_weights, padding_idx, scale_grad_by_freq, xp.dtype_of(gg))
    return out if scale is None else out * xp.asarray(scale)


def _embedding_row_scale(indices, num_weights, padding_idx, scale_grad_by_freq, dtype):
    """Each looked-up row's factor in the backward (1 / its count, 0 at padding_idx), as an array."""
    if padding_idx is None and not scale_grad_by_freq:
        return None
    idx = _array(indices)
    xp = backend_for_array(idx).xp
    s = xp.ones(idx.shape, dtype=dtype)
    if scale_grad_by_freq:
        s = s / xp.bincount(idx.reshape(-1), minlength=num_weights)[idx]
    if padding_idx is not None:
        s = xp.where(idx == padding_idx, 0, s)
    return s.astype(dtype)[..., None]


def _embedding_grad(xp, g, indices, num_weights, padding_idx, sgf, sparse):
    if sparse and sgf:  # (torch refuses at backward time; leafgrad's sparse=True gradient is dense)
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients; pass "
                           "sparse=False to scale by frequency.")
    return xp.apply(EMBEDDING_BACK, g, params=(indices, num_weights, padding_idx, sgf))


# (``sparse``: torch's gradient is then a sparse COO tensor; leafgrad's is dense either way, see nn/_sparse_grad.py)
EMBEDDING = defop("EmbeddingBackward0", lambda xp, w, indices, padding_idx, num_weights, sgf, sparse=False: xp.take(
    w, _array(indices), axis=0), _embedding_grad,
                  saved=("indices", "num_weights", "padding_idx", "sgf", "sparse"))
EMBEDDING.node_cls._saved_names = ("indices", "weight_sym_argsize_0", "padding_idx", "scale_grad_by_freq",
                                   "sparse")  # (torch's names)
show_saved_as(EMBEDDING, "padding_idx", lambda v: unsigned_int64(-1 if v is None else v))  # (torch's -1: none)
EMBEDDING_BACK = defop("EmbeddingBackwardBackward0", _embedding_back_fwd, _embedding_back_grad,
                       saved=("indices", "num_weights", "padding_idx", "scale_grad_by_freq"))


def embedding(indices: Tensor, weight: Tensor, padding_idx, scale_grad_by_freq: bool, sparse: bool = False) -> Tensor:
    return apply(EMBEDDING, (weight,), (indices, padding_idx, weight._data.shape[0], scale_grad_by_freq, sparse))


# =============================================================================== normalisation
def _bshape(x_ndim: int, axis: int = 1) -> tuple:
    return tuple(-1 if i == axis else 1 for i in range(x_ndim))


def _bn_fwd(xp, x, w, b, running_mean, running_var, training, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = _bshape(x.ndim)
    if training:
        mean = x.mean(axis=axes)
        var = x.var(axis=axes)
    else:
        mean, var = running_mean._data, running_var._data
    scale = (w / xp.sqrt(var + eps)).astype(x.dtype, copy=False)
    out = (x - mean.reshape(shape).astype(x.dtype, copy=False)) * scale.reshape(shape) + b.reshape(shape)
    return out, mean, var


def _norm_stats(xp, x, axes, eps, saved_mean, saved_var, shape):
    """x - mean and 1/std as broadcastable values: recomputed with ops when the backward is
    recorded (so a second derivative sees their dependence on x), the forward's saved values otherwise."""
    if xp.tensors and _STATE.grad:
        xmu = x - xp.mean(x, axis=axes, keepdims=True)
        invstd = xp.apply(RSQRT, xp.mean(xmu * xmu, axis=axes, keepdims=True) + eps)
        return xmu, invstd
    dtype = xp.dtype_of(x)
    mean = xp.astype(saved_mean.reshape(shape), dtype)
    invstd = xp.astype((1.0 / xp.sqrt(saved_var + eps)).reshape(shape), dtype)
    return x - mean, invstd


def _bn_axes(x) -> tuple:
    return (0,) + tuple(range(2, x.ndim))


def _bn_xhat(xp, x, running_mean, running_var, training, eps, result1, result2):
    shape = _bshape(x.ndim)
    if training:
        xmu, invstd = _norm_stats(xp, x, _bn_axes(x), eps, result1, result2, shape)
    else:
        xmu = x - running_mean.reshape(shape)
        invstd = xp.apply(RSQRT, running_var.reshape(shape) + eps)
    return xmu, invstd


def _bn_grad_input(xp, grads, self, weight, running_mean, running_var, training, eps, result1, result2):
    g = grads[0]
    if g is None:
        return None
    shape = _bshape(self.ndim)
    w = weight.reshape(shape)
    if not training:
        return g * (w * xp.apply(RSQRT, running_var.reshape(shape) + eps))
    axes = _bn_axes(self)
    xmu, invstd = _bn_xhat(xp, self, running_mean, running_var, training, eps, result1, result2)
    xhat = xmu * invstd
    gw = g * w
    return (gw - xp.mean(gw, axis=axes, keepdims=True)
            - xhat * xp.mean(gw * xhat, axis=axes, keepdims=True)) * invstd


def _bn_grad_weight(xp, grads, self, weight, running_mean, running_var, training, eps, result1, result2):
    g = grads[0]
    if g is None:
        return None
    xmu, invstd = _bn_xhat(xp, self, running_mean, running_var, training, eps, result1, result2)
    return xp.sum(g * xmu * invstd, axis=_bn_axes(self))


def _bn_grad_bias(xp, grads, self, weight, *_):
    g = grads[0]
    return None if g is None else xp.sum(g, axis=_bn_axes(g))


_BN_SAVED = ("self", "input1", "running_mean", "running_var", "training", "eps", "result1", "result2")
BATCH_NORM = defop("NativeBatchNormBackward0", _bn_fwd, (_bn_grad_input, _bn_grad_weight, _bn_grad_bias),
                   saved=_BN_SAVED, n_in=3, n_out=3, diff_outputs=(True, False, False))
BATCH_NORM.node_cls._saved_names = ("input", "weight", "running_mean", "running_var", "training", "eps",
                                    "result1", "result2")


def batch_norm(input: Tensor, weight: Tensor, bias: Tensor, running_mean, running_var, training: bool, eps: float):
    """Returns (output, batch mean, biased batch variance); weight/bias are never None here."""
    return apply(BATCH_NORM, (input, weight, bias), (running_mean, running_var, training, eps))


def _ln_fwd(xp, x, w, b, n_norm, eps, normalized_shape=None, weight_shown=None, bias_shown=None):
    # (the last three are kept for grad_fn._saved_<name> alone: torch's values, its None for "not given")
    if _rows.fits(x, w, b):
        return _rows.ln_forward(x, w, b, n_norm, eps)  # (the same steps, as rows: see norm_rows.py)
    if not x.flags.c_contiguous:  # (torch's kernel reads its input as contiguous: so is the output)
        x = x.copy()  # (a method: keeps a 16-bit array's class, as np.ascontiguousarray would not)
    axes = tuple(range(x.ndim - n_norm, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    xmu = x - mean
    var = (xmu * xmu).mean(axis=axes, keepdims=True)
    out = xmu * (1 / xp.sqrt(var + eps)).astype(x.dtype, copy=False) * w + b
    # (a float16/bfloat16 variance stays float32: torch saves 1/std rounded once, and the backward
    # rounds 1/sqrt(var + eps) from it; a rounded variance would round twice)
    return out, mean, unrounded(var)


def _ln_parts(xp, x, n_norm, eps, result1, result2):
    nd = x.ndim
    axes = tuple(range(nd - n_norm, nd))
    xmu, invstd = _norm_stats(xp, x, axes, eps, result1, result2, tuple(result1.shape))
    return axes, xmu * invstd, invstd


# (torch's native_layer_norm_backward is one kernel: a float16 backward computes each gradient in
# float32 and rounds it once, from the forward's float16 mean and 1/std; see xp.kernel)
def _ln_grad_input(xp, grads, self, weight, n_norm, eps, result1, result2, *_):
    g = grads[0]
    if g is None:
        return None
    return xp.kernel(_ln_dx, g, self, weight, n_norm, eps, result1, result2)


def _ln_dx(xp, g, self, weight, n_norm, eps, result1, result2):
    if _rows.fits(self, g, weight, result1, result2):
        return _rows.ln_dx(g, self, weight, n_norm, eps, result1, result2)
    axes, xhat, invstd = _ln_parts(xp, self, n_norm, eps, result1, result2)
    gw = g * weight
    return (gw - xp.mean(gw, axis=axes, keepdims=True)
            - xhat * xp.mean(gw * xhat, axis=axes, keepdims=True)) * invstd


def _ln_grad_weight(xp, grads, self, weight, n_norm, eps, result1, result2, *_):
    g = grads[0]
    if g is None:
        return None
    return xp.kernel(_ln_dw, g, self, n_norm, eps, result1, result2)


def _ln_dw(xp, g, self, n_norm, eps, result1, result2):
    if _rows.fits(self, g, result1, result2):
        return _rows.ln_dw(g, self, n_norm, eps, result1, result2)
    _, xhat, _ = _ln_parts(xp, self, n_norm, eps, result1, result2)
    lead = tuple(range(self.ndim - n_norm))
    return xp.sum(g * xhat, axis=lead) if lead else g * xhat


def _ln_grad_bias(xp, grads, self, weight, n_norm, *_):
    g = grads[0]
    if g is None:
        return None
    if _rows.fits(g):
        return _rows.ln_db(g, n_norm)
    lead = tuple(range(g.ndim - n_norm))
    return xp.sum(g, axis=lead) if lead else g


LAYER_NORM = defop("NativeLayerNormBackward0", _ln_fwd, (_ln_grad_input, _ln_grad_weight, _ln_grad_bias),
                   saved=("self", "input1", "n_norm", "eps", "result1", "result2", "normalized_shape",
                          "weight_shown", "bias_shown"), n_in=3, n_out=3, diff_outputs=(True, False, False))
# torch's: result1 the mean, result2 the inverse std (leafgrad's formulas keep the variance), weight and
# bias None when not given (the formulas get ones / zeros), normalized_shape the dims' sizes; no eps
show_saved(LAYER_NORM, ("input", "weight_used", "n_norm", "eps", "result1", "var", "normalized_shape", "weight",
                        "bias"), hide=("weight_used", "n_norm", "eps", "var"),
           shown={"result2": lambda v: (v("var") + v("eps")).rsqrt().to(v("input").dtype)})


def layer_norm(input: Tensor, weight: Tensor, bias: Tensor, n_norm: int, eps: float, normalized_shape: tuple = None,
               weight_shown: Tensor | None = None, bias_shown: Tensor | None = None) -> Tensor:
    """``weight`` and ``bias`` are what the formulas use (ones / zeros when not given); the ``_shown``
    ones and ``normalized_shape`` are the node's saved values as torch shows them."""
    return apply(LAYER_NORM, (input, weight, bias), (n_norm, eps, normalized_shape, weight_shown, bias_shown))[0]


# =============================================================================== activations
# (a formula's operand computed from a 0-d array is a NumPy scalar, which the forwards that pick a
# kernel by array type (_sigmoid, _erf) cannot take: such operands of xp.apply go through xp.asarray)
def _gelu_fwd(xp, x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1 + xp.tanh(_SQRT_2_PI * (x + 0.044715 * (x * x * x))))  # (torch's order)
    # (asarray: for a 0-d x the product is a NumPy scalar, which _erf cannot dispatch on; only then,
    # since a bfloat16 backend's asarray rounds, where torch's kernel does not)
    t = x * _SQRT1_2
    return (0.5 * x * (1 + _erf(xp, xp.asarray(t) if isinstance(t, np.generic) else t))).astype(x.dtype, copy=False)


def _gelu_grad(xp, g, self, approximate):
    return xp.kernel(_gelu_dx, g, self, approximate)  # (torch's gelu_backward: one kernel)


def _gelu_dx(xp, g, self, approximate):
    x = self
    if approximate == "tanh":
        x2 = x * x
        t = xp.tanh(_SQRT_2_PI * (x + 0.044715 * x2 * x))
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * (_SQRT_2_PI * (1 + 3 * 0.044715 * x2)))
    cdf = 0.5 * (1 + xp.apply(ERF, xp.asarray(x * _SQRT1_2)))  # (asarray: see _gelu_fwd)
    pdf = xp.exp(x * x * -0.5) * _INV_SQRT_2PI
    return g * (cdf + x * pdf)


GELU = defop("GeluBackward0", _gelu_fwd, _gelu_grad, saved=("self", "approximate"))


# Exact GELU keeps the normal CDF it computed (a hidden, non-differentiable second output): its
# backward then needs no second erf, which costs more than the rest of the formula (see erf_f32.py).
# Under create_graph the formula recomputes the CDF from ``self`` with differentiable ops.
def _gelu_exact_fwd(xp, x, approximate):
    if x.__class__ is np.ndarray and x.dtype == np.float32:
        return gelu_float32(x)  # (the same passes, block by block in cache: see erf_f32.py)
    t = x * _SQRT1_2
    cdf = _erf(xp, xp.asarray(t) if isinstance(t, np.generic) else t)  # (asarray: see _gelu_fwd)
    cdf += 1.0
    cdf *= 0.5
    return (x * cdf).astype(x.dtype, copy=False), cdf


def _gelu_exact_grad(xp, g, self, approximate, result1):
    if xp.tensors:
        return _gelu_grad(xp, g[0], self, approximate)
    if g[0].__class__ is self.__class__ is result1.__class__ is np.ndarray and g[0].shape == self.shape and \
            g[0].dtype == self.dtype == np.float32:
        return gelu_backward_float32(g[0], self, result1)
    pdf = xp.exp(self * self * -0.5)
    pdf *= _INV_SQRT_2PI
    pdf *= self
    pdf += result1
    return g[0] * pdf


GELU_EXACT = defop("GeluBackward0", _gelu_exact_fwd, _gelu_exact_grad, saved=("self", "approximate", "result1"),
                   n_out=2, diff_outputs=(True, False))
show_saved(GELU_EXACT, ("self", "approximate", "result1"), hide=("result1",))


def _silu_grad(xp, g, self):
    return xp.kernel(_silu_dx, g, self)  # (torch's silu_backward: one kernel)


def _silu_dx(xp, g, self):
    s = xp.apply(SIGMOID, self)
    return g * (s * (1 + self * (1 - s)))


SILU = defop("SiluBackward0", lambda xp, x: x * _sigmoid(xp, x), _silu_grad, saved=("self",))
LEAKY_RELU = defop("LeakyReluBackward0",
                   lambda xp, x, negative_slope: xp.where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False),
                   lambda xp, g, self, negative_slope: xp.where(self > 0, g, g * negative_slope),
                   saved=("self", "negative_slope"))
# (elu lives with selu and celu, which share its kernel: nn_activations.py)


def _softplus_fwd(xp, x, beta, threshold):
    bx = x * beta
    soft = (xp.maximum(bx, 0) + xp.log1p(xp.exp(-xp.abs(bx)))) / beta
    return xp.where(bx > threshold, x, soft).astype(x.dtype, copy=False)


def _softplus_dx(xp, g, self, beta, threshold):  # (torch's softplus_backward: one kernel)
    return xp.where(self * beta > threshold, g, g * xp.apply(SIGMOID, xp.asarray(self * beta)))


SOFTPLUS = defop("SoftplusBackward0", _softplus_fwd,
                 lambda xp, g, self, beta, threshold: xp.kernel(_softplus_dx, g, self, beta, threshold),
                 saved=("self", "beta", "threshold"))
HARDTANH = defop("HardtanhBackward0",
                 lambda xp, x, min_val, max_val: xp.clip(x, min_val, max_val).astype(x.dtype, copy=False),
                 lambda xp, g, self, min_val, max_val: g * xp.logical_and(self > min_val, self < max_val),
                 saved=("self", "min_val", "max_val"))


def _log_sigmoid_dx(xp, g, self):
    # torch's log_sigmoid_backward, one kernel: dy * (max_deriv - sign * z / (1 + z)), z = exp(-|x|)
    # (z stored in the input's dtype, as torch's float16 kernel does; round_like: a no-op otherwise)
    z = round_like(xp.exp(-xp.abs(self)), self)
    q = z / (1 + z)
    return g * xp.where(self < 0, 1 - q, q)


LOG_SIGMOID = defop("LogSigmoidBackward0",
                    lambda xp, x: xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x))),  # (torch's: +0.0 for large x)
                    lambda xp, g, self: xp.kernel(_log_sigmoid_dx, g, self), saved=("self",))


def log_sigmoid(x: Tensor) -> Tensor:
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for any x (+0.0 for a large x, as torch)."""
    return apply(LOG_SIGMOID, (x,))


# =============================================================================== losses
_REDUCTIONS = ("none", "mean", "sum")


def _reduce_fwd(xp, loss, reduction):
    if reduction == "mean":
        return loss.mean() if loss.size else xp.asarray(xp.nan, dtype=loss.dtype)
    if reduction == "sum":
        return loss.sum()
    return loss


def _grad_scale(g, reduction: str, numel: int):
    """The upstream gradient as seen by every element of an elementwise loss."""
    return g / numel if reduction == "mean" else g


def _mse_grad(xp, g, self, target, reduction):
    return _grad_scale(g, reduction, xp.numel(self)) * (2 * (self - target))


MSE_LOSS = defop("MseLossBackward0", lambda xp, a, b, reduction: _reduce_fwd(xp, (a - b) * (a - b), reduction),
                 (_mse_grad, lambda xp, g, self, target, reduction: -_mse_grad(xp, g, self, target, reduction)),
                 saved=("self", "input1", "reduction"), n_in=2)
MSE_LOSS.node_cls._saved_names = ("self", "target", "reduction")


def _smooth_l1_fwd(xp, a, b, reduction, beta):
    d = xp.abs(a - b)
    loss = xp.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta).astype(a.dtype, copy=False)
    return _reduce_fwd(xp, loss, reduction)


def _smooth_l1_grad(xp, g, self, target, reduction, beta):
    x = self - target
    return _grad_scale(g, reduction, xp.numel(self)) * xp.where(xp.abs(x) < beta, x / beta, xp.apply(SIGN, xp.asarray(x)))


SMOOTH_L1_LOSS = defop("SmoothL1LossBackward0", _smooth_l1_fwd,
                       (_smooth_l1_grad, lambda xp, g, self, target, reduction, beta: -_smooth_l1_grad(
                           xp, g, self, target, reduction, beta)),
                       saved=("self", "input1", "reduction", "beta"), n_in=2)
SMOOTH_L1_LOSS.node_cls._saved_names = ("self", "target", "reduction", "beta")


def _huber_fwd(xp, a, b, reduction, delta):
    d = xp.abs(a - b)
    loss = xp.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)).astype(a.dtype, copy=False)
    return _reduce_fwd(xp, loss, reduction)


def _huber_grad(xp, g, self, target, reduction, delta):
    x = self - target
    return _grad_scale(g, reduction, xp.numel(self)) * xp.apply(CLAMP, xp.asarray(x), params=(-delta, delta))


HUBER_LOSS = defop("HuberLossBackward0", _huber_fwd,
                   (_huber_grad, lambda xp, g, self, target, reduction, delta: -_huber_grad(
                       xp, g, self, target, reduction, delta)),
                   saved=("self", "input1", "reduction", "delta"), n_in=2)

_BCE_EPS = 1e-12


def _bce_fwd(xp, x, t, weight, reduction):
    log_x = xp.maximum(xp.log(x), -100)
    log_1mx = xp.maximum(xp.log1p(-x), -100)
    loss = -(t * log_x + (1 - t) * log_1mx)
    if weight is not None:
        loss = loss * _array(weight)
    return _reduce_fwd(xp, loss.astype(x.dtype, copy=False), reduction)


def _bce_grad_input(xp, g, self, target, weight, reduction):
    gi = _grad_scale(g, reduction, xp.numel(self)) * (self - target) / xp.apply(
        CLAMP, xp.asarray((1 - self) * self), params=(_BCE_EPS, None))
    return gi if weight is None else gi * weight


def _bce_grad_target(xp, g, self, target, weight, reduction):
    gt = _grad_scale(g, reduction, xp.numel(self)) * (xp.log1p(-self) - xp.log(self))
    return gt if weight is None else gt * weight


BCE = defop("BinaryCrossEntropyBackward0", _bce_fwd, (_bce_grad_input, _bce_grad_target),
            saved=("self", "input1", "weight", "reduction"), n_in=2)
BCE.node_cls._saved_names = ("self", "target", "weight", "reduction")


def _bce_logits_fwd(xp, x, t, weight, pos_weight, reduction):
    softplus_neg = xp.maximum(-x, 0) + xp.log1p(xp.exp(-xp.abs(x)))  # log(1 + exp(-x)), stable
    if pos_weight is not None:
        loss = (1 - t) * x + ((_array(pos_weight) - 1) * t + 1) * softplus_neg
    else:
        loss = (1 - t) * x + softplus_neg
    if weight is not None:
        loss = loss * _array(weight)
    return _reduce_fwd(xp, loss.astype(x.dtype, copy=False), reduction)


def _bce_logits_grad_input(xp, g, self, target, weight, pos_weight, reduction):
    s = xp.apply(SIGMOID, self)
    if pos_weight is not None:
        pt = pos_weight * target
        gi = (pt + 1 - target) * s - pt
    else:
        gi = s - target
    gi = _grad_scale(g, reduction, xp.numel(self)) * gi
    return gi if weight is None else gi * weight


def _bce_logits_grad_target(xp, g, self, target, weight, pos_weight, reduction):
    if pos_weight is not None:
        gt = xp.apply(LOG_SIGMOID, xp.asarray(-self)) - xp.apply(LOG_SIGMOID, self) * pos_weight
    else:
        gt = -self
    gt = _grad_scale(g, reduction, xp.numel(self)) * gt
    return gt if weight is None else gt * weight


BCE_LOGITS = defop("BinaryCrossEntropyWithLogitsBackward0", _bce_logits_fwd,
                   (_bce_logits_grad_input, _bce_logits_grad_target),
                   saved=("self", "input1", "weight", "pos_weight", "reduction"), n_in=2)
BCE_LOGITS.node_cls._saved_names = ("self", "target", "weight", "pos_weight", "reduction")


# -- negative log likelihood: input (N, C, d1, ...) or (C,), target class indices
# nn/functional.py has checked the targets: each one is ignore_index or a class in [0, C).
def _nll_pick(xp, target, weight, ignore_index, n_classes, x_dtype, nothing_ignored):
    """(valid targets, weights, keep): ignored targets set to class 0, weight 0 there.

    When no target is ignored (the usual case, told by one reduction: every target is a
    class or ignore_index) it is the target itself, keep is None, and the weights are
    None when unweighted (all ones: no arrays of ones, no masks). ``nothing_ignored``:
    the caller has already told this (nn.functional checks every target is a class), so
    neither the forward nor the backward reduces the targets again."""
    t = _array(target)
    if not nothing_ignored and t.size:
        if ignore_index < 0:
            nothing_ignored = t.min() >= 0
        elif ignore_index >= n_classes:
            nothing_ignored = t.max() < n_classes
        else:
            nothing_ignored = not (t == ignore_index).any()
    if nothing_ignored:
        return t, None if weight is None else _array(weight)[t].astype(x_dtype, copy=False), None
    keep = t != ignore_index
    tc = xp.where(keep, t, 0)
    if weight is None:
        return tc, keep.astype(x_dtype), keep  # (the same 1.0 / 0.0 as ones * keep, one array op fewer)
    return tc, (_array(weight)[tc] * keep).astype(x_dtype, copy=False), keep


def _nll_fwd(xp, x, target, weight, reduction, ignore_index, nothing_ignored):
    x2 = x[None] if x.ndim == 1 else x
    tc, w, keep = _nll_pick(xp, target, weight, ignore_index, x2.shape[1], x.dtype, nothing_ignored)
    tc2 = tc[None] if x.ndim == 1 else tc
    if x2.ndim == 2:  # (N, C): one class per row, picked by plain indexing (take_along_axis is slow Python)
        picked = x2[xp.arange(x2.shape[0]), tc2]
    else:
        picked = xp.take_along_axis(x2, tc2[:, None], axis=1)[:, 0]
    if x.ndim == 1:
        picked = picked.reshape(tc.shape)
    if reduction != "none" and x.ndim <= 2 and isinstance(x, LowpArray):  # (torch sums in 16 bits: _lowp.py)
        return nll_cascade(picked, None if weight is None else w, keep, reduction)
    if w is None:  # every weight 1 and nothing ignored: the same sums without the weights
        if reduction == "none":
            return -picked
        total = -xp.add.reduce(picked, None)  # (picked.sum() without NumPy's Python wrapper)
        return total if reduction == "sum" else total / tc.size
    loss = -picked * w
    if keep is not None:  # an ignored target adds 0, as torch (not -x * 0, nan for an infinite x)
        loss = xp.where(keep, loss, 0)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return (loss.sum() / w.sum()).astype(x.dtype, copy=False)  # 0/0 = nan, as torch


def _nll_back_fwd(xp, g, x, target, weight, reduction, ignore_index, nothing_ignored):
    dtype = g.dtype
    input_shape = x.shape
    one = len(input_shape) == 1
    tc, w, keep = _nll_pick(xp, target, weight, ignore_index, input_shape[0 if one else 1], dtype, nothing_ignored)
    if w is None:  # every weight 1, nothing ignored
        coef = -g if reduction != "mean" else g / -tc.size  # (g / -n is -(g / n) exactly)
    elif reduction == "mean":  # torch's: w * -(g / total_weight), g a scalar here
        if weight is not None and isinstance(x, LowpArray):  # (its 16-bit weight sum: _lowp.cascade_sums)
            total = cascade_sums(None, w, keep, x.__class__)[1]
        else:
            total = w.sum()
        with np.errstate(invalid="ignore", divide="ignore"):  # (every target ignored or weighted 0: 0/0 = nan)
            coef = w * round_like(-(g / total), x)
    else:
        coef = -w * g  # g broadcasts: a scalar for sum, per element for none
    if w is not None and keep is not None:  # torch writes nothing for an ignored target (not -0, or nan when 0/0)
        coef = xp.where(keep, coef, 0)
    out = xp.zeros(input_shape, dtype=dtype)
    if one:
        out[tc] = coef
        return out
    if len(input_shape) == 2:  # (N, C): one class per row, written by plain indexing (coef broadcasts)
        out[xp.arange(input_shape[0]), tc] = coef
        return out
    if coef.shape != tc.shape:  # (it has the target's shape already unless g or w broadcast)
        coef = xp.broadcast_to(coef, tc.shape)
    coef = coef.astype(dtype, copy=False)
    xp.put_along_axis(out, tc[:, None], coef[:, None], axis=1)
    return out


def _nll_back(op_back):
    """The formula of nll_loss's input: its backward op, which takes the gradient and the input
    (torch's nll_loss_backward has both as inputs, so a double backward reaches the input too)."""
    def grad(xp, g, self, target, weight, reduction, ignore_index, nothing_ignored):
        return xp.apply(op_back, g, self, params=(target, weight, reduction, ignore_index, nothing_ignored))
    return grad


def _nll_loss_of(op):
    """The gradient formula of nll_loss_backward's gradient input: the loss itself (it is linear in g)."""
    def grad(xp, gg, target, weight, reduction, ignore_index, nothing_ignored):
        return xp.apply(op, gg, params=(target, weight, reduction, ignore_index, nothing_ignored))
    return grad


def _nll_backward_self_grad(xp, gg, target, weight, reduction, ignore_index, nothing_ignored):
    return xp.zeros_like(gg)  # (the backward does not depend on the input's values: torch's zeros_like)


def _nll_total_weight(node) -> Tensor:
    """``grad_fn._saved_total_weight``: torch's second output of the nll forward, the sum of the
    weights of the targets not ignored (their count when unweighted; 0 for reduction='none')."""
    x_shape, x_dtype = node._in_meta[0]
    target, weight, reduction = node._saved_target, node._saved_weight, node._saved[3]  # (raise once freed)
    xp = backend_for_array(target._data).xp
    if reduction == "none":
        return _make(xp.zeros((), dtype=x_dtype))
    c = x_shape[0 if len(x_shape) == 1 else 1]
    _, w, _ = _nll_pick(xp, target, weight, node._saved[4], c, x_dtype, node._saved[5])
    return _make(xp.asarray(w.sum() if w is not None else target._data.size, dtype=x_dtype))


# (``nothing_ignored`` is saved last and left out of ``_saved_names``: torch's nodes show the first five,
# and ``total_weight``, read from the others)
_NLL_SAVED = ("self", "target", "weight", "reduction", "ignore_index", "nothing_ignored")
_NLL_BACK_SAVED = ("target", "weight", "reduction", "ignore_index", "nothing_ignored")
NLL_LOSS_BACK = defop("NllLossBackwardBackward0", _nll_back_fwd, None, saved=_NLL_BACK_SAVED, n_in=2)
NLL_LOSS2D_BACK = defop("NllLoss2DBackwardBackward0", _nll_back_fwd, None, saved=_NLL_BACK_SAVED, n_in=2)
NLL_LOSS = defop("NllLossBackward0", _nll_fwd, _nll_back(NLL_LOSS_BACK), saved=_NLL_SAVED)
NLL_LOSS2D = defop("NllLoss2DBackward0", _nll_fwd, _nll_back(NLL_LOSS2D_BACK), saved=_NLL_SAVED)
for _op, _back in ((NLL_LOSS, NLL_LOSS_BACK), (NLL_LOSS2D, NLL_LOSS2D_BACK)):
    set_formulas(_back, (_nll_loss_of(_op), _nll_backward_self_grad))  # (defined after the loss it returns to)
    _back.node_cls._saved_names = _NLL_BACK_SAVED[:-1]
    _op.node_cls._saved_names = _NLL_SAVED[:-1]
    _op.node_cls._saved_total_weight = property(_nll_total_weight)


def nll_loss(input: Tensor, target: Tensor, weight, reduction: str, ignore_index: int, two_d: bool,
             nothing_ignored: bool = False) -> Tensor:
    """``nothing_ignored``: the caller has checked that every target is a class and none is
    ``ignore_index`` (False: the op finds out itself)."""
    return apply(NLL_LOSS2D if two_d else NLL_LOSS, (input,), (target, weight, reduction, ignore_index,
                                                               nothing_ignored))


# -- scalar arithmetic recorded under the names torch's C++ composites produce
MUL_SCALAR = defop("MulBackward1", lambda xp, a, scalar: a * scalar, lambda xp, g, scalar: g * scalar,
                   saved=("scalar",))
DIV_SCALAR = defop("DivBackward1", lambda xp, a, scalar: a / scalar, lambda xp, g, scalar: g / scalar,
                   saved=("scalar",))
MUL_SCALAR.node_cls._saved_names = DIV_SCALAR.node_cls._saved_names = ("other",)  # torch's attribute name
ADD_SCALAR = defop("AddBackward1", lambda xp, a, scalar: a + scalar, lambda xp, g: g)
SUB_SCALAR = defop("SubBackward1", lambda xp, a, scalar: a - scalar, lambda xp, g: g)


def mul_scalar(t: Tensor, s: float) -> Tensor:
    return apply(MUL_SCALAR, (t,), (s,))


def div_scalar(t: Tensor, s: float) -> Tensor:
    return apply(DIV_SCALAR, (t,), (s,))


def add_scalar(t: Tensor, s: float) -> Tensor:
    return apply(ADD_SCALAR, (_number_operand(t, s),), (s,))


def sub_scalar(t: Tensor, s: float) -> Tensor:
    return apply(SUB_SCALAR, (_number_operand(t, s),), (s,))


def _number_operand(t: Tensor, s) -> Tensor:
    """An integer or bool tensor with a float number gives the default float dtype, as in torch
    (NumPy would give float64)."""
    if t.dtype._kind <= 1 and isinstance(s, float):
        return t.to(D.get_default_dtype())
    return t


# =============================================================================== padding
def _pad_fwd(xp, x, pad_width, value):
    # a negative width crops (torch narrows the input first, then pads what is positive)
    if any(lo < 0 or hi < 0 for lo, hi in pad_width):
        x = x[tuple(slice(-min(lo, 0), n + min(hi, 0)) for (lo, hi), n in zip(pad_width, x.shape))]
        pad_width = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pad_width)
    return xp.pad(x, pad_width, constant_values=value)


def _pad_grad(xp, g, pad_width):
    # as torch: the gradient is the same op with the widths negated (what was padded is cropped,
    # what was cropped is padded with zeros), so a second backward records ConstantPadNdBackward0 too
    return xp.apply(CONSTANT_PAD, g, params=(tuple((-lo, -hi) for lo, hi in pad_width), 0))


CONSTANT_PAD = defop("ConstantPadNdBackward0", _pad_fwd, _pad_grad, saved=("pad_width",))


def constant_pad(input: Tensor, pad_width, value) -> Tensor:
    return apply(CONSTANT_PAD, (input,), (tuple(pad_width), value))


# torch's NN kernels keep a channels-last input's layout (conv: the input's or the weight's) and give
# every other input a contiguous result (see _ops/layout.py)
from .layout import input_format_output as _input_format_output  # noqa: E402

_input_format_output(CONV, CONV_BIAS, operands=2)
_input_format_output(MAX_POOL2D, AVG_POOL2D, ADAPTIVE_AVG, BATCH_NORM, CONSTANT_PAD)
