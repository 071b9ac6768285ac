"""nn ops beyond the core set: fused CPU attention and transposed convolution.

* ``SDPA_FLASH`` is torch's CPU attention kernel for 4-d inputs
  (``ScaledDotProductFlashAttentionForCpuBackward0``): one node with edges to query, key
  and value, saving the output and the row log-sum-exp. torch has no derivative of that
  kernel's backward, so under ``create_graph`` the gradients it gives hang off
  ``torch::autograd::NotImplemented`` nodes whose own backward raises, as torch's do.
* ``CONV_T`` is a transposed convolution, which is the input-gradient of a convolution
  (``nn_ops.CONV_INPUT_GRAD``) run forward; its gradients are a convolution of the output
  gradient (for the input) and a convolution's weight gradient (for the weight).
"""
from __future__ import annotations

import math

from .._backend import backend_for_array
from .._tensor import Tensor
from .nn_ops import CONV, CONV_INPUT_GRAD, CONV_WEIGHT_GRAD, MAX_UNPOOL, _bias_grad, _gather_pooled, _max_unpool_fwd
from .pointwise import RSQRT
from .registry import apply, defop
from .saved_display import show_conv_saved

__all__ = ["sdpa_flash", "conv_transpose", "group_norm", "pixel_shuffle", "pixel_unshuffle", "adaptive_max_pool2d",
           "max_unpool2d"]


def _array(t):
    return getattr(t, "_data", t)


# =============================================================================== attention
def _scores(xp, q, k, mask, scale, is_causal):
    """q k^T * scale plus the float mask (and the causal mask): the pre-softmax scores.

    ``scale`` is the caller's (None: 1/sqrt(head size)), saved as given, as torch shows it."""
    s = xp.matmul(q, xp.swapaxes(k, -1, -2)) * _scale_of(q, scale)
    if mask is not None:
        s = s + mask
    if is_causal:
        lq, lk = s.shape[-2], s.shape[-1]
        keep = xp.tril(xp.ones((lq, lk), dtype=bool))
        s = xp.where(keep, s, -float("inf"))
    return s


def _scale_of(q, scale) -> float:
    return 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)


def _probs(xp, s, lse):
    """exp(s - lse): the softmax rows (zero on rows with nothing to attend to, whose lse is 0)."""
    return xp.exp(s - lse[..., None])


def _flash_fwd(xp, q, k, v, attn_mask, dropout_p, is_causal, scale):
    mask = None if attn_mask is None else _array(attn_mask)
    s = _scores(xp, q, k, mask, scale, is_causal)
    m = xp.max(s, axis=-1, keepdims=True)
    dead = xp.isneginf(m)  # a row with every score masked: torch's kernel gives lse 0 and output 0
    m = xp.where(dead, 0.0, m)
    total = xp.sum(xp.exp(s - m), axis=-1, keepdims=True)
    lse = xp.where(dead, 0.0, xp.log(xp.where(dead, 1.0, total)) + m)[..., 0]
    out = xp.matmul(_probs(xp, s, lse), v)
    return out.astype(q.dtype, copy=False), lse.astype(q.dtype, copy=False)


def _flash_grads(xp, q, k, v, g, output, logsumexp, attn_mask, is_causal, scale):
    """(dq, dk, dv) of the fused attention, computed on raw arrays."""
    out, lse = _array(output), _array(logsumexp)
    mask = None if attn_mask is None else _array(attn_mask)
    p = _probs(xp, _scores(xp, q, k, mask, scale, is_causal), lse)
    dv = xp.matmul(xp.swapaxes(p, -1, -2), g)
    dp = xp.matmul(g, xp.swapaxes(v, -1, -2))
    ds = p * (dp - xp.sum(g * out, axis=-1, keepdims=True))
    dq = xp.matmul(ds, k) * _scale_of(q, scale)
    dk = xp.matmul(xp.swapaxes(ds, -1, -2), q) * _scale_of(q, scale)
    return [_sum_to(xp, d, x.shape).astype(q.dtype, copy=False) for d, x in ((dq, q), (dk, k), (dv, v))]


def _sum_to(xp, d, shape):
    lead = d.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and d.shape[lead + i] != 1)
    return xp.sum(d, axis=axes, keepdims=True).reshape(shape) if axes else d


def _not_implemented(xp, g):
    raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not "
                       "implemented: torch's fused CPU attention has no second derivative; for higher-order "
                       "gradients pass 3-d inputs or compose the attention from matmul and softmax")


def _grad_op(which: int):
    fwd = (lambda xp, q, k, v, g, output, logsumexp, attn_mask, is_causal, scale:
           _flash_grads(xp, q, k, v, g, output, logsumexp, attn_mask, is_causal, scale)[which])
    return defop("torch::autograd::NotImplemented", fwd, (_not_implemented,) * 4, n_in=4)


_FLASH_GRADS = tuple(_grad_op(i) for i in range(3))


def _flash_formula(which: int):
    def grad(xp, grads, self, input1, input2, attn_mask, dropout_p, is_causal, scale, result0, result1):
        g = grads[0]
        if g is None:
            return None
        return xp.apply(_FLASH_GRADS[which], self, input1, input2, g,
                        params=(result0, result1, attn_mask, is_causal, scale))
    return grad


_FLASH_SAVED = ("self", "input1", "input2", "attn_mask", "dropout_p", "is_causal", "scale", "result0", "result1")
SDPA_FLASH = defop("ScaledDotProductFlashAttentionForCpuBackward0", _flash_fwd,
                   tuple(_flash_formula(i) for i in range(3)), saved=_FLASH_SAVED, n_in=3, n_out=2,
                   diff_outputs=(True, False))
SDPA_FLASH.node_cls._saved_names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale",
                                    "output", "logsumexp")


def sdpa_flash(query: Tensor, key: Tensor, value: Tensor, float_mask, is_causal: bool, scale) -> Tensor:
    """The fused attention's output (its log-sum-exp stays saved on the node)."""
    out, _ = apply(SDPA_FLASH, (query, key, value), (float_mask, 0.0, bool(is_causal), scale))
    return out


# =============================================================================== transposed convolution
def _conv_t_fwd(xp, x, w, b, output_shape, stride, pad, dil, groups):
    out = _conv_t_nobias(xp, x, w, output_shape, stride, pad, dil, groups)
    if b.ndim:  # a 0-dim placeholder stands for "no bias"
        out = out + b.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


def _conv_t_nobias(xp, x, w, output_shape, stride, pad, dil, groups):
    return CONV_INPUT_GRAD.forward(xp, x, w, output_shape, stride, pad, dil, groups)


def _fit(xp, g, self, weight, stride, pad, dil):
    """``g`` and the padding that make a convolution of ``g`` land exactly on ``self``'s size.

    With ``output_padding`` at stride 1 (allowed when the dilation is larger) the output has
    cells beyond the last window that reaches the input: cut them, or the spare end padding."""
    nsp = g.ndim - 2
    pads = list(pad)
    for a in range(nsp):
        k = len(pad) - nsp + a  # this spatial dim's index into stride / pad / dil
        top, bottom = pad[k]
        span = (self.shape[2 + a] - 1) * stride[k] + dil[k] * (weight.shape[2 + a] - 1) + 1 - top
        if span < g.shape[2 + a]:
            key = (slice(None),) * (2 + a) + (slice(0, span),)
            g = g[key]
            bottom = 0
        else:
            bottom = span - g.shape[2 + a]
        pads[k] = (top, bottom)
    return g, tuple(pads)


def _conv_t_x_grad(xp, g, self, weight, output_shape, stride, pad, dil, groups, *_):
    g, pad = _fit(xp, g, self, weight, stride, pad, dil)
    return xp.apply(CONV, g, weight, params=(stride, pad, dil, groups))


def _conv_t_w_grad(xp, g, self, weight, output_shape, stride, pad, dil, groups, *_):
    g, pad = _fit(xp, g, self, weight, stride, pad, dil)
    return xp.apply(CONV_WEIGHT_GRAD, g, self, params=(tuple(weight.shape), stride, pad, dil, groups))


CONV_T = defop("ConvolutionBackward0", _conv_t_fwd, (_conv_t_x_grad, _conv_t_w_grad, _bias_grad),
               saved=("self", "input1", "output_shape", "stride", "pad", "dil", "groups", "input0_sizes", "input1_sizes",
                      "input2_sizes"), n_in=3)
show_conv_saved(CONV_T, ("input", "weight", "output_shape", "stride", "pad", "dilation", "groups", "input_sizes",
                         "weight_sizes", "bias_sizes"), transposed=True)


def conv_transpose(input: Tensor, weight: Tensor, bias, output_shape: tuple, stride, pad, dil, groups: int) -> Tensor:
    """Transposed convolution of a batched 3-d or 4-d input to ``output_shape``; geometry normalised."""
    if bias is None:
        bias = Tensor._make(backend_for_array(input._data).xp.zeros((), dtype=input._data.dtype))
    return apply(CONV_T, (input, weight, bias), (tuple(output_shape), stride, pad, dil, groups))


# =============================================================================== group normalisation
# Inside the formulas x is viewed as (N, G, C // G, HxW) and the statistics are over the last two dims.
def _gn_view(x, N, C, HxW, group):
    return x.reshape((N, group, C // group, HxW))


def _gn_fwd(xp, x, w, b, N, C, HxW, group, eps):
    v = _gn_view(x, N, C, HxW, group)
    mean = v.mean(axis=(2, 3), keepdims=True)
    xmu = v - mean
    rstd = (1.0 / xp.sqrt((xmu * xmu).mean(axis=(2, 3), keepdims=True) + eps)).astype(x.dtype, copy=False)
    out = (xmu * rstd).reshape(x.shape)
    lay = (1, C) + (1,) * (x.ndim - 2)
    out = out * w.reshape(lay) + b.reshape(lay)
    return out, mean.reshape((N, group)), rstd.reshape((N, group))


def _gn_parts(xp, x, N, C, HxW, group, eps, result1, result2):
    """x - mean and rstd on the grouped view: recomputed with ops when the backward is recorded
    (a second derivative then sees their dependence on x), the saved ones otherwise."""
    v = _gn_view(x, N, C, HxW, group)
    if xp.tensors:
        xmu = v - xp.mean(v, axis=(2, 3), keepdims=True)
        return xmu, xp.apply(RSQRT, xp.mean(xmu * xmu, axis=(2, 3), keepdims=True) + eps)
    return v - result1.reshape((N, group, 1, 1)), result2.reshape((N, group, 1, 1))


def _gn_grad_input(xp, grads, self, weight, N, C, HxW, group, eps, result1, result2):
    g = grads[0]
    if g is None:
        return None
    xmu, rstd = _gn_parts(xp, self, N, C, HxW, group, eps, result1, result2)
    xhat = xmu * rstd
    gw = _gn_view(g, N, C, HxW, group) * weight.reshape((1, group, C // group, 1))
    dx = (gw - xp.mean(gw, axis=(2, 3), keepdims=True) - xhat * xp.mean(gw * xhat, axis=(2, 3), keepdims=True)) * rstd
    return dx.reshape(self.shape)


def _gn_grad_weight(xp, grads, self, weight, N, C, HxW, group, eps, result1, result2):
    g = grads[0]
    if g is None:
        return None
    xmu, rstd = _gn_parts(xp, self, N, C, HxW, group, eps, result1, result2)
    return xp.sum(_gn_view(g, N, C, HxW, group) * xmu * rstd, axis=(0, 3)).reshape((C,))


def _gn_grad_bias(xp, grads, self, weight, N, C, HxW, *_):
    g = grads[0]
    return None if g is None else xp.sum(g.reshape((N, C, HxW)), axis=(0, 2))


GROUP_NORM = defop("NativeGroupNormBackward0", _gn_fwd, (_gn_grad_input, _gn_grad_weight, _gn_grad_bias),
                   saved=("self", "input1", "N", "C", "HxW", "group", "eps", "result1", "result2"), n_in=3,
                   n_out=3, diff_outputs=(True, False, False))
GROUP_NORM.node_cls._saved_names = ("input", "weight", "N", "C", "HxW", "group", "eps", "result1", "result2")


def group_norm(input: Tensor, weight: Tensor, bias: Tensor, group: int, eps: float) -> Tensor:
    """Group normalisation of a (N, C, *) input; weight and bias are never None here."""
    n, c = input.shape[0], input.shape[1]
    hxw = 1
    for s in input.shape[2:]:
        hxw *= s
    return apply(GROUP_NORM, (input, weight, bias), (n, c, hxw, int(group), float(eps)))[0]


# =============================================================================== pixel shuffle
def _shuffle(xp, x, r):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    *lead, c, h, w = x.shape
    n = len(lead)
    y = x.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    y = xp.transpose(y, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return y.reshape(tuple(lead) + (c // (r * r), h * r, w * r))


def _unshuffle(xp, x, r):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    *lead, c, h, w = x.shape
    n = len(lead)
    y = x.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    y = xp.transpose(y, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return y.reshape(tuple(lead) + (c * r * r, h // r, w // r))


PIXEL_SHUFFLE = defop("PixelShuffleBackward0", lambda xp, x, upscale_factor: _shuffle(xp, x, upscale_factor),
                      lambda xp, g, upscale_factor: xp.apply(PIXEL_UNSHUFFLE, g, params=(upscale_factor,)),
                      saved=("upscale_factor",))
PIXEL_UNSHUFFLE = defop("PixelUnshuffleBackward0",
                        lambda xp, x, downscale_factor: _unshuffle(xp, x, downscale_factor),
                        lambda xp, g, downscale_factor: xp.apply(PIXEL_SHUFFLE, g, params=(downscale_factor,)),
                        saved=("downscale_factor",))


def pixel_shuffle(input: Tensor, r: int) -> Tensor:
    return apply(PIXEL_SHUFFLE, (input,), (int(r),))


def pixel_unshuffle(input: Tensor, r: int) -> Tensor:
    return apply(PIXEL_UNSHUFFLE, (input,), (int(r),))


# =============================================================================== adaptive max pooling, unpooling
def _adaptive_bounds(size: int, out: int) -> list:
    """torch's adaptive windows: output i covers [floor(i*size/out), ceil((i+1)*size/out))."""
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_max_fwd(xp, x, out_hw):
    h, w = x.shape[-2:]
    lead = x.shape[:-2]
    out = xp.empty(lead + tuple(out_hw), dtype=x.dtype)
    idx = xp.empty(lead + tuple(out_hw), dtype=xp.int64)
    for i, (r0, r1) in enumerate(_adaptive_bounds(h, out_hw[0])):
        for j, (c0, c1) in enumerate(_adaptive_bounds(w, out_hw[1])):
            win = x[..., r0:r1, c0:c1].reshape(lead + (-1,))
            # the first maximum, and NaN wins (torch propagates it)
            k = xp.argmax(xp.where(xp.isnan(win), xp.inf, win), axis=-1)
            out[..., i, j] = xp.take_along_axis(win, k[..., None], axis=-1)[..., 0]
            idx[..., i, j] = (r0 + k // (c1 - c0)) * w + c0 + k % (c1 - c0)
    return out, idx


def _adaptive_max_grad(xp, grads, self, result1):
    g = grads[0]
    if g is None:
        return None
    return xp.apply(MAX_UNPOOL, g, params=(result1, tuple(self.shape), True))


ADAPTIVE_MAX_POOL2D = defop("AdaptiveMaxPool2DBackward0", _adaptive_max_fwd, _adaptive_max_grad,
                            saved=("self", "result1"), n_out=2, diff_outputs=(True, False))
# un-pooling: each input value lands at its index of an (output_size) plane of zeros; the adjoint gathers
MAX_UNPOOL2D = defop("MaxUnpool2DBackward0", _max_unpool_fwd, _gather_pooled, saved=("indices",))


def adaptive_max_pool2d(input: Tensor, out_hw) -> tuple:
    return apply(ADAPTIVE_MAX_POOL2D, (input,), (tuple(out_hw),))


def max_unpool2d(input: Tensor, indices: Tensor, output_shape: tuple) -> Tensor:
    return apply(MAX_UNPOOL2D, (input,), (indices, tuple(output_shape), False))


# =============================================================================== reflection / replication padding
# Both pick, for each padded dim, which input cell every output cell copies: the forward is a
# gather along each of those dims, the backward the adjoint scatter-add, whose own derivative
# is the gather again.
def pad_indices(n: int, lo: int, hi: int, mode: str) -> list:
    """The input cell (0..n-1) that each of the lo + n + hi output cells copies."""
    if mode == "reflect":
        return list(range(lo, 0, -1)) + list(range(n)) + list(range(n - 2, n - 2 - hi, -1))
    return [0] * lo + list(range(n)) + [n - 1] * hi


def _pad_maps(shape, padding, mode):
    """(axis, index array) per padded dim; ``padding`` is torch's (last dim first, (lo, hi) pairs)."""
    import numpy as np
    maps = []
    for i in range(len(padding) // 2):
        axis = len(shape) - 1 - i
        lo, hi = padding[2 * i], padding[2 * i + 1]
        maps.append((axis, np.asarray(pad_indices(shape[axis], lo, hi, mode), dtype=np.int64)))
    return maps


def _gather_pad(xp, x, padding, mode):
    for axis, idx in _pad_maps(x.shape, padding, mode):
        x = xp.take(x, idx, axis=axis)
    return x


def _scatter_pad(xp, g, input_shape, padding, mode):
    out = g
    for axis, idx in reversed(_pad_maps(tuple(input_shape), padding, mode)):
        moved = xp.moveaxis(out, axis, 0)
        acc = xp.zeros((input_shape[axis],) + moved.shape[1:], dtype=g.dtype)
        xp.add.at(acc, idx, moved)
        out = xp.moveaxis(acc, 0, axis)
    return out


def _pad_ops(kind: str, mode: str, nd: int):
    back = defop(f"{kind}Pad{nd}DBackwardBackward0",
                 lambda xp, g, input_shape, padding: _scatter_pad(xp, g, input_shape, padding, mode),
                 lambda xp, gg, padding: xp.apply(fwd, gg, params=(padding,)), saved=("padding",))
    fwd = defop(f"{kind}Pad{nd}DBackward0", lambda xp, x, padding: _gather_pad(xp, x, padding, mode),
                lambda xp, g, self, padding: xp.apply(back, g, params=(tuple(self.shape), padding)),
                saved=("self", "padding"))
    return fwd


_PAD_OPS = {(mode, nd): _pad_ops(kind, mode, nd) for mode, kind in (("reflect", "Reflection"),
                                                                    ("replicate", "Replication"))
            for nd in (1, 2, 3)}


def index_pad(input: Tensor, padding: tuple, mode: str) -> Tensor:
    """Reflection or replication padding of the last len(padding) // 2 dims (sizes already checked)."""
    return apply(_PAD_OPS[mode, len(padding) // 2], (input,), (tuple(int(p) for p in padding),))


# torch's kernels keep a channels-last input's layout, and give any other a contiguous result (_ops/layout.py)
from .layout import input_format_output as _input_format_output  # noqa: E402

_input_format_output(CONV_T, operands=2)
_input_format_output(GROUP_NORM, ADAPTIVE_MAX_POOL2D, PIXEL_SHUFFLE, PIXEL_UNSHUFFLE, *_PAD_OPS.values())
