"""More activations, norms, dropouts and small helpers of ``nn.functional``: prelu, rrelu(_),
hardtanh_, leaky_relu_, rms_norm, alpha_dropout, feature_alpha_dropout, channel_shuffle,
native_channel_shuffle, gumbel_softmax, pdist, and torch's ``__torch_function__`` helper names
(``has_torch_function`` and friends, ``handle_torch_function``, ``boolean_dispatch``,
``assert_int_or_pair``, ``Optional``), which leafgrad keeps because code written for torch imports
them. ``functional.py`` re-exports them all.

prelu, rrelu, channel_shuffle and pdist are ops (``leafgrad/_ops/nn_more_act.py``); the others
are compositions, as torch's C++ or Python composes them, so their graphs show torch's nodes.
"""
from __future__ import annotations

import math
import warnings
from typing import Callable, Optional  # noqa: F401  (Optional: torch.nn.functional exports the typing name)

import numpy as np

from .. import _dtype as D
from .._creation import _rng
from .._ops import nn_more_act as K
from .._tensor import Tensor

__all__ = ["prelu", "rrelu", "rrelu_", "hardtanh_", "leaky_relu_", "rms_norm", "alpha_dropout",
           "feature_alpha_dropout", "channel_shuffle", "native_channel_shuffle", "gumbel_softmax", "pdist", "conv_tbc",
           "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "boolean_dispatch", "assert_int_or_pair", "Optional"]

_make = Tensor._make


# =============================================================================== activations
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``max(0, x) + weight * min(0, x)``, one learnable slope per channel (dim 1) or one for all."""
    return K.prelu(input, weight)


def _rrelu_noise(input: Tensor, lower: float, upper: float, training: bool) -> np.ndarray:
    x = input._data
    if training:
        slopes = _rng(None).uniform(lower, upper, x.shape)
    else:
        slopes = np.full(x.shape, (lower + upper) / 2)
    return np.where(x > 0, 1.0, slopes).astype(x.dtype)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element while training, and is
    their mean in eval."""
    if inplace:
        return rrelu_(input, lower, upper, training)
    if lower > upper:
        raise RuntimeError(f"Lower bound should be less than or equal to the upper bound: got lower={lower}, "
                           f"upper={upper}")
    return K.rrelu(input, _rrelu_noise(input, lower, upper, training))


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """rrelu written into ``input`` (torch's in-place node, RreluWithNoiseBackward1; the in-place rules)."""
    from .._ops.inplace import inplace
    if lower > upper:
        raise RuntimeError(f"Lower bound should be less than or equal to the upper bound: got lower={lower}, "
                           f"upper={upper}")
    return inplace(K.RRELU_INPLACE, input, (), (_rrelu_noise(input, lower, upper, training),), "rrelu_")


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``hardtanh(input, min_val, max_val, inplace=True)``: clamps ``input`` into [min_val, max_val] in place
    and returns it. Autograd: records ``HardtanhBackward0`` on the written tensor; the in-place rules apply
    (refused on a leaf that requires grad, bumps the version counter).

    Example::

        >>> F.hardtanh_(leafgrad.tensor([-2.0, 0.5, 3.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    from .functional import hardtanh
    return hardtanh(input, min_val, max_val, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``leaky_relu(input, negative_slope, inplace=True)``: multiplies the negative entries of ``input`` by
    ``negative_slope`` in place and returns it. Autograd: records torch's in-place node
    ``LeakyReluBackward1`` (which saves the result), as in
    torch: with a negative slope its backward raises, since the input cannot be told from the result.

    Example::

        >>> F.leaky_relu_(leafgrad.tensor([-2.0, 3.0]), 0.5)
        tensor([-1.,  3.])
    """
    from .functional import leaky_relu
    return leaky_relu(input, negative_slope, inplace=True)


# =============================================================================== norms
def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """``x / sqrt(mean(x**2 over normalized_shape) + eps) * weight``; eps None means the machine epsilon
    of input's dtype (``torch.finfo(dtype).eps``)."""
    shape = (int(normalized_shape),) if isinstance(normalized_shape, int) else tuple(int(s) for s in normalized_shape)
    n = len(shape)
    if n == 0 or input.dim() < n or tuple(input.shape[-n:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*"
                           f"{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {list(shape)}")
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    dims = tuple(range(-n, 0))
    from .._ops import nn_ops as O
    rms = O.add_scalar(input.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    out = input * rms
    return out * weight if weight is not None else out


# =============================================================================== alpha dropout
_ALPHA = 1.7580993408473766  # SELU's -scale * alpha: where a dropped SELU activation sits


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    dt = input._data.dtype
    if p == 1:
        zero = _make(np.zeros((), dtype=dt))
        return input.mul_(zero) if inplace else input * zero
    shape = input._data.shape
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (len(shape) - 2)
    keep = (_rng(None).random(shape) >= p).astype(dt)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = _make(((keep - 1) * (_ALPHA * a) + _ALPHA * a * p).astype(dt))
    noise = _make((keep * a).astype(dt))
    return (input.mul_(noise) if inplace else input * noise).add_(b)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped units take SELU's saturation value and the result is rescaled
    so that mean and variance stay those of the input."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """alpha_dropout of whole channels (one draw per sample and channel)."""
    return _alpha_dropout(input, p, training, inplace, feature=True)


# =============================================================================== shuffles, distances
def _check_shuffle(input: Tensor, groups: int) -> None:
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``(N, C, *)`` with the C channels split into ``groups`` and interleaved: ``(g, C/g)`` read as ``(C/g, g)``."""
    _check_shuffle(input, groups)
    return K.channel_shuffle(input, int(groups))


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """channel_shuffle's kernel called directly: torch records no derivative for it."""
    _check_shuffle(input, groups)
    return K.native_channel_shuffle(input, int(groups))


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distance of every pair of rows i < j of an (N, M) input, as a vector of N(N-1)/2."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"pdist only supports floating-point dtypes, got {D.scalar_type_name(input.dtype)}")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return K.pdist(input, p)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-d convolution of a (time, batch, channels) input (weight: kernel, in, out), ConvTbcBackward0."""
    return K.conv_tbc(input, weight, bias, pad)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A softmax of ``(logits + Gumbel noise) / tau``: a differentiable sample of a categorical; with
    ``hard`` the one-hot of its argmax, whose gradient is the soft sample's (straight through)."""
    from .. import empty_like, zeros_like
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# =============================================================================== __torch_function__ helpers
def has_torch_function(relevant_args) -> bool:
    """torch's test for arguments that override functions through ``__torch_function__``. leafgrad
    tensors and plain values never do, so this is True only for an argument whose type defines it
    (a user class), as in torch."""
    return any(type(a) is not Tensor and hasattr(type(a), "__torch_function__") for a in relevant_args)


def has_torch_function_unary(arg) -> bool:
    """``has_torch_function`` for one argument (torch's fast form for unary functions)."""
    return has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    """``has_torch_function`` for the arguments themselves, passed as separate arguments."""
    return has_torch_function(args)


def handle_torch_function(public_api: Callable, relevant_args, *args, **kwargs):
    """Call the ``__torch_function__`` of the overriding arguments' types in turn, as torch does;
    the first result that is not ``NotImplemented`` wins."""
    types = tuple(dict.fromkeys(type(a) for a in relevant_args if hasattr(type(a), "__torch_function__")))
    for t in types:
        result = t.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{getattr(public_api, '__module__', '')}."
                    f"{getattr(public_api, '__name__', public_api)}' on types that implement __torch_function__: "
                    f"{[t for t in types]}")


def boolean_dispatch(arg_name: str, arg_index: int, default: bool, if_true: Callable, if_false: Callable,
                     module_name: str | None = None, func_name: str | None = None) -> Callable:
    """A function that calls ``if_true`` or ``if_false`` by the boolean argument ``arg_name`` (by keyword,
    or positionally at ``arg_index``), ``default`` when it is not given (how torch builds
    ``F.max_pool2d`` with and without ``return_indices``)."""
    def fn(*args, **kwargs):
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    doc = if_true.__doc__ or if_false.__doc__
    fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn


def assert_int_or_pair(arg, arg_name: str, message: str) -> None:
    """Assert (``AssertionError``, formatted ``message``) that ``arg`` is an int or a pair."""
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)
