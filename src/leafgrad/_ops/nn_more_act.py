"""Ops of their own behind a few more ``nn.functional`` names, each the node torch records:
``prelu`` (PreluKernelBackward0, differentiable twice), ``rrelu`` (RreluWithNoiseBackward0, the
slopes drawn by the caller), ``channel_shuffle`` (ChannelShuffleBackward0, whose backward is the
inverse shuffle) and ``pdist`` (PdistBackward0; its backward, as torch's, has no derivative).
``leafgrad/nn/_f_more.py`` checks the arguments and calls these.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .lazy import bind
from .registry import apply, defop
from .statistics import _cdist_back_fwd


def _arr(x):
    return x._data if isinstance(x, Tensor) else x


# =============================================================================== prelu
def _channel_view(xp, w, ndim: int):
    """The weight as (C, 1, ..., 1) against an input's channel dim (dim 1, or dim 0 of a vector);
    a single weight as a scalar."""
    size = int(np.prod(w.shape))
    if size == 1:
        return w.reshape(())
    return w.reshape((size,) + (1,) * max(ndim - 2, 0))


def _prelu_fwd(xp, x, w):
    wv = _channel_view(xp, w, x.ndim)
    return xp.where(x > 0, x, wv * x).astype(x.dtype, copy=False)


def _prelu_grad_x(xp, g, self, input1):
    wv = _channel_view(xp, input1, self.ndim)
    return xp.where(self > 0, g, wv * g)


def _prelu_grad_w(xp, g, self, input1):
    contrib = xp.where(self > 0, xp.zeros_like(g), self * g)
    wv_shape = _channel_view(xp, input1, self.ndim).shape
    return xp.sum_to(contrib, wv_shape).reshape(input1.shape)


PRELU = defop("PreluKernelBackward0", _prelu_fwd, (_prelu_grad_x, _prelu_grad_w), saved=("self", "input1"),
              n_in=2)
PRELU.node_cls._saved_names = ("self", "weight")  # (torch's names)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``max(0, x) + weight * min(0, x)``, one slope per channel (dim 1) or one for all (torch.prelu,
    Tensor.prelu and F.prelu)."""
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    n = weight.numel()
    if n != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if n != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{n} and channel size = {channels}.")
    if input.dtype != weight.dtype:
        from .. import _dtype as D
        raise RuntimeError(f"prelu: Type promoting not supported. Got {D.scalar_type_name(input.dtype)} and "
                           f"{D.scalar_type_name(weight.dtype)}: convert one, e.g. weight.to(input.dtype)")
    if input.dim() != weight.dim():  # torch views the weight as (1, C, 1, ...) against the input
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = n
        weight = weight.reshape(shape)
    return apply(PRELU, (input, weight))


def _bind_methods() -> None:
    bind("nn_more_act", {"prelu": prelu})


_bind_methods()


# =============================================================================== rrelu
def _rrelu_fwd(xp, x, noise):
    return (x * _arr(noise)).astype(x.dtype, copy=False)


def _rrelu_back_fwd(xp, g, x, noise):
    return (g * _arr(noise)).astype(g.dtype, copy=False)


# (torch's backward reads self, so the gradient it returns depends on self, with a zero derivative)
RRELU_BACK = defop("RreluWithNoiseBackwardBackward0", _rrelu_back_fwd,
                   (lambda xp, gg, noise, input1: xp.apply(RRELU_BACK, gg, input1, params=(noise,)),
                    lambda xp, gg, noise, input1: xp.zeros_like(input1)),
                   saved=("noise", "input1"), n_in=2)
RRELU = defop("RreluWithNoiseBackward0", _rrelu_fwd,
              lambda xp, g, self, noise: xp.apply(RRELU_BACK, g, self, params=(noise,)), saved=("self", "noise"))


# rrelu_ (in place): torch's other node, which reads the result in place of the lost input
RRELU_INPLACE = defop("RreluWithNoiseBackward1", _rrelu_fwd,
                      lambda xp, g, result, noise: xp.apply(RRELU_BACK, g, result, params=(noise,)),
                      saved=("result", "noise"))


def rrelu(input: Tensor, noise: np.ndarray) -> Tensor:
    """``input * noise``: noise is 1 where input > 0 and the negative slope elsewhere."""
    return apply(RRELU, (input,), (noise,))


# =============================================================================== channel shuffle
def _shuffle_fwd(xp, x, groups):
    n, c = x.shape[0], x.shape[1]
    rest = x.shape[2:]
    y = x.reshape((n, groups, c // groups) + rest).swapaxes(1, 2)
    return xp.ascontiguousarray(y).reshape(x.shape)


CHANNEL_SHUFFLE = defop("ChannelShuffleBackward0", _shuffle_fwd,
                        lambda xp, g, self_sym_sizes, groups: xp.apply(
                            CHANNEL_SHUFFLE, g, params=(self_sym_sizes[1] // groups,)),
                        saved=("self_sym_sizes", "groups"))


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return apply(CHANNEL_SHUFFLE, (input,), (groups,))


def _no_derivative(name: str):
    def formula(xp, g, *rest):
        raise RuntimeError(f"derivative for {name} is not implemented")
    return formula


NATIVE_CHANNEL_SHUFFLE = defop("torch::autograd::NotImplemented", _shuffle_fwd,
                               _no_derivative("aten::native_channel_shuffle"))


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return apply(NATIVE_CHANNEL_SHUFFLE, (input,), (groups,))


# =============================================================================== pdist
def _pair_index(n: int):
    return np.triu_indices(n, 1)


def _pdist_fwd(xp, x, p):
    i, j = _pair_index(x.shape[0])
    diff = np.abs(x[i] - x[j])
    if p == 0:
        out = (diff != 0).sum(-1)
    elif p == float("inf"):
        out = diff.max(-1) if diff.shape[-1] else np.zeros(len(i))
    elif p == 1:
        out = diff.sum(-1)
    elif p == 2:
        out = np.sqrt((diff * diff).sum(-1))
    else:
        out = (diff ** p).sum(-1) ** (1.0 / p)
    return np.asarray(out, dtype=x.dtype)


def _pdist_back_fwd(xp, g, x, result, p):
    n = x.shape[0]
    i, j = _pair_index(n)
    gm = np.zeros((n, n), dtype=x.dtype)
    dm = np.zeros((n, n), dtype=x.dtype)
    gm[i, j] = gm[j, i] = g
    dm[i, j] = dm[j, i] = result
    return _cdist_back_fwd(np, gm, x, x, dm, p)


def _pdist_no_double(xp, gg, *rest):
    raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


PDIST_BACK = defop("PdistBackwardBackward0", _pdist_back_fwd, (_pdist_no_double,) * 3, n_in=3)
PDIST = defop("PdistBackward0", _pdist_fwd,
              lambda xp, g, self, p, result: xp.apply(PDIST_BACK, g, self, result, params=(p,)),
              saved=("self", "p", "result"))


def pdist(input: Tensor, p: float) -> Tensor:
    return apply(PDIST, (input,), (float(p),))


# =============================================================================== leaky_relu_
def _leaky_inplace_grad(xp, g, result, negative_slope):
    """torch's LeakyReluBackward1 reads the output, which can tell the sign only for a slope >= 0."""
    if negative_slope < 0:
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead. File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
                           "backward calculation with negative slope (in leafgrad: use F.leaky_relu(x, slope) "
                           "without inplace)")
    return xp.where(result > 0, g, g * negative_slope)


LEAKY_RELU_INPLACE = defop("LeakyReluBackward1",
                           lambda xp, x, negative_slope: xp.where(x > 0, x, x * negative_slope).astype(
                               x.dtype, copy=False),
                           _leaky_inplace_grad, saved=("result", "negative_slope"))


# =============================================================================== CrossMapLRN2d (legacy)
def _lrn_window(channels: int, size: int) -> np.ndarray:
    """Which channels' squares each channel's scale sums (channels, channels): the running window of
    torch's legacy forward, with its quirk of dropping channel c - pre_pad only once c > pre_pad."""
    pre_pad = int((size - 1) / 2 + 1)
    m = np.zeros((channels, channels))
    m[0, :min(pre_pad, channels)] = 1
    for c in range(1, channels):
        m[c] = m[c - 1]
        if c < channels - pre_pad + 1:
            m[c, c + pre_pad - 1] += 1
        if c > pre_pad:
            m[c, c - pre_pad] -= 1
    return m


def _lrn_scale(x, size, alpha, k):
    sums = np.einsum("cd,ndhw->nchw", _lrn_window(x.shape[1], size), x * x)
    return (sums * (alpha / size) + k).astype(x.dtype, copy=False)


def _lrn_fwd(xp, x, size, alpha, beta, k):
    return (_lrn_scale(x, size, alpha, k) ** -beta * x).astype(x.dtype, copy=False)


def _lrn_back_fwd(xp, g, x, result, size, alpha, beta, k):
    """torch's hand-written backward (not the exact gradient of its forward's window): the ratios
    g * out / scale summed over the channels [c - ipp, c + size - 1 - ipp], ipp = size - (size - 1) / 2."""
    scale = _lrn_scale(x, size, alpha, k)
    ipp = int(size - (size - 1) / 2)
    c = x.shape[1]
    idx = np.arange(c)
    band = ((idx[None, :] >= idx[:, None] - ipp) & (idx[None, :] <= idx[:, None] + size - 1 - ipp)).astype(x.dtype)
    accum = np.einsum("cd,ndhw->nchw", band, g * result / scale)
    return (scale ** -beta * g - (2 * alpha * beta / size) * x * accum).astype(x.dtype, copy=False)


LRN_BACK = defop("CrossMapLRN2dBackwardBackward", _lrn_back_fwd, (_no_derivative("CrossMapLRN2dBackward"),) * 3,
                 n_in=3)
LRN = defop("CrossMapLRN2dBackward", _lrn_fwd,
            lambda xp, g, self, result, size, alpha, beta, k: xp.apply(LRN_BACK, g, self, result,
                                                                       params=(size, alpha, beta, k)),
            saved=("self", "result", "size", "alpha", "beta", "k"))


def cross_map_lrn2d(input: Tensor, size: int, alpha: float, beta: float, k: float) -> Tensor:
    return apply(LRN, (input,), (int(size), float(alpha), float(beta), float(k)))


# =============================================================================== conv_tbc
def _tbc_windows(x, k: int, pad: int):
    """(T_out, K, B, C_in): the K time steps each output step sees, of the zero-padded input."""
    xp_ = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
    t_out = xp_.shape[0] - k + 1
    return np.stack([xp_[j:j + t_out] for j in range(k)], axis=1), xp_.shape


def _tbc_fwd(xp, x, w, b, pad):
    win, _ = _tbc_windows(x, w.shape[0], pad)
    return (np.einsum("tkbc,kco->tbo", win, w) + b).astype(x.dtype, copy=False)


def _tbc_back_fwd(xp, g, x, w, b, pad, which):
    k = w.shape[0]
    if which == 2:
        return g.sum((0, 1)).astype(b.dtype, copy=False)
    win, padded_shape = _tbc_windows(x, k, pad)
    if which == 1:
        return np.einsum("tkbc,tbo->kco", win, g).astype(w.dtype, copy=False)
    gpad = np.zeros(padded_shape, dtype=x.dtype)
    t_out = g.shape[0]
    for j in range(k):
        gpad[j:j + t_out] += g @ w[j].T
    return gpad[pad:pad + x.shape[0]]


TBC_BACK = defop("ConvTbcBackwardBackward0", _tbc_back_fwd, (_no_derivative("aten::conv_tbc_backward"),) * 4,
                 n_in=4)


def _tbc_grad(which: int):
    return lambda xp, g, self, input1, input2, pad: xp.apply(TBC_BACK, g, self, input1, input2,
                                                           params=(pad, which))


TBC = defop("ConvTbcBackward0", _tbc_fwd, (_tbc_grad(0), _tbc_grad(1), _tbc_grad(2)),
            saved=("self", "input1", "input2", "pad"), n_in=3)
TBC.node_cls._saved_names = ("self", "weight", "bias", "pad")


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-d convolution over time of a (time, batch, channels) input; weight (K, C_in, C_out)."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    return apply(TBC, (input, weight, bias), (int(pad),))

TOP_LEVEL: dict = {}  # (torch.prelu is nn.functional's: leafgrad.__getattr__ finds it there)
