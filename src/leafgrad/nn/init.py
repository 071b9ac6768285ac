"""``leafgrad.nn.init``: fill a tensor in place with a starting distribution, outside autograd.

Why the scales are what they are: a layer sums ``fan_in`` products, so the variance of
its output is about ``fan_in * Var(w) * Var(x)`` (and, going backwards, ``fan_out *
Var(w)`` for the gradient). Choosing ``Var(w)`` from the fans keeps activations and
gradients at a steady size through a deep network:

* Xavier / Glorot: ``Var(w) = gain^2 * 2 / (fan_in + fan_out)``, a compromise between both directions;
* Kaiming / He: ``Var(w) = gain^2 / fan`` with the activation's gain (sqrt(2) for ReLU, which
  zeroes half of its inputs).

A uniform distribution on ``[-b, b]`` has variance ``b^2 / 3``, hence the ``sqrt(3)`` in
the uniform variants. Every function works under ``no_grad`` (initialising a parameter
is not part of any graph) and returns the tensor it filled. The random stream is
leafgrad's generator (NumPy's PCG64), so the numbers differ from torch's for the same
seed; the distributions do not.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._creation import _rng
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_"]

# how much each nonlinearity shrinks the standard deviation it is given, inverted (leaky_relu is computed)
_GAINS = {
    **dict.fromkeys(["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                     "conv_transpose3d", "sigmoid"], 1),
    "tanh": 5.0 / 3,
    "relu": math.sqrt(2.0),
    "selu": 3.0 / 4,
}


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The gain to multiply a unit-variance initialisation by, for layers followed by ``nonlinearity``."""
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {param} not a valid number: pass the LeakyReLU slope as a float")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity not in _GAINS:
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}; known: {', '.join([*_GAINS, 'leaky_relu'])}")
    return _GAINS[nonlinearity]


def _fill(tensor: Tensor, values) -> Tensor:
    """Copy ``values`` (array-like) into ``tensor`` without recording it, cast to the tensor's dtype."""
    with no_grad():
        tensor.copy_(Tensor._make(np.asarray(values).astype(tensor._data.dtype, copy=False)))
    return tensor


def _require_dims(tensor: Tensor, allowed, wording: str) -> None:
    if tensor.dim() not in allowed:
        raise ValueError(f"Only tensors with {wording} dimensions are supported (got a {tensor.dim()}-d tensor of "
                         f"shape {tuple(tensor.shape)})")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Normal(mean, std) restricted to ``[a, b]``: values drawn outside are drawn again."""
    if not a - 2 * std <= mean <= b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    rng = _rng(generator)
    values = rng.normal(mean, std, tensor._data.shape)
    for _ in range(1000):
        outside = (values < a) | (values > b)
        if not outside.any():
            break
        values[outside] = rng.normal(mean, std, int(outside.sum()))
    else:  # a window far out in a tail: sample the rest through the inverse CDF
        from scipy.special import ndtr, ndtri
        outside = (values < a) | (values > b)
        lo, hi = ndtr((a - mean) / std), ndtr((b - mean) / std)
        values[outside] = mean + std * ndtri(rng.uniform(lo, hi, int(outside.sum())))
        values = np.clip(values, a, b)
    return _fill(tensor, values)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (a 2-d tensor), so a linear layer starts by passing its input through."""
    _require_dims(tensor, (2,), "2")
    return _fill(tensor, np.eye(*tensor._data.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """A conv weight that copies input channel i to output channel i (per group): an identity convolution."""
    _require_dims(tensor, (3, 4, 5), "3, 4, or 5")
    out_channels, in_channels, *kernel = tensor._data.shape
    if out_channels % groups:
        raise ValueError(f"dim 0 must be divisible by groups ({out_channels} output channels, groups={groups})")
    per_group = out_channels // groups
    values = np.zeros(tensor._data.shape)
    centre = tuple(k // 2 for k in kernel)
    for g in range(groups):
        for c in range(min(per_group, in_channels)):
            values[(g * per_group + c, c, *centre)] = 1
    return _fill(tensor, values)


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(inputs, outputs) per unit of a weight shaped (out, in, *kernel): each counts the kernel's cells too."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions (a bias "
                         "or other 1-d tensor has no fans: initialise it with uniform_ / zeros_ instead)")
    out_channels, in_channels, *kernel = tensor._data.shape
    cells = math.prod(kernel)
    return in_channels * cells, out_channels * cells


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    """``fan_in`` keeps the forward activations steady, ``fan_out`` the backward gradients."""
    modes = ["fan_in", "fan_out"]
    mode = mode.lower()
    if mode not in modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {modes}")
    return _calculate_fan_in_and_fan_out(tensor)[modes.index(mode)]


def _xavier_std(tensor: Tensor, gain: float) -> float:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return gain * math.sqrt(2.0 / (fan_in + fan_out))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    bound = math.sqrt(3.0) * _xavier_std(tensor, gain)
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    return normal_(tensor, 0.0, _xavier_std(tensor, gain), generator)


def _kaiming(tensor: Tensor, a, mode: str, nonlinearity: str, draw) -> Tensor:
    """Shared by the two Kaiming initialisers: ``draw(gain, fan)`` fills the tensor."""
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return tensor
    return draw(calculate_gain(nonlinearity, a), _calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    def draw(gain, fan):
        bound = math.sqrt(3.0) * gain / math.sqrt(fan)
        return uniform_(tensor, -bound, bound, generator)
    return _kaiming(tensor, a, mode, nonlinearity, draw)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    return _kaiming(tensor, a, mode, nonlinearity,
                    lambda gain, fan: normal_(tensor, 0, gain / math.sqrt(fan), generator))


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix, for the tensor flattened to (rows, rest): keeps every direction's length."""
    if tensor.dim() < 2:
        raise ValueError(f"Only tensors with 2 or more dimensions are supported (got shape {tuple(tensor.shape)})")
    if tensor.numel() == 0:
        return tensor
    rows = tensor._data.shape[0]
    cols = tensor.numel() // rows
    tall = rows >= cols  # QR needs at least as many rows as columns: work on the transpose otherwise
    sample = _rng(generator).normal(0.0, 1.0, (rows, cols))
    q, r = np.linalg.qr(sample if tall else sample.T)
    q = q * np.sign(np.diag(r))  # fix the signs so Q is uniformly (Haar) distributed
    return _fill(tensor, (gain * (q if tall else q.T)).reshape(tensor._data.shape))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """A 2-d weight drawn from Normal(0, std) with ``ceil(sparsity * rows)`` zeros in each column, at rows
    chosen independently per column (Martens' sparse initialisation for deep nets)."""
    if tensor.dim() != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported (got a {tensor.dim()}-d tensor of shape "
                         f"{tuple(tensor.shape)})")
    rows, cols = tensor._data.shape
    num_zeros = int(math.ceil(sparsity * rows))
    rng = _rng(generator)
    values = rng.normal(0.0, std, (rows, cols))
    for col in range(cols):
        values[rng.permutation(rows)[:num_zeros], col] = 0.0
    return _fill(tensor, values)


def _deprecated_alias(fn):
    """The old name without the trailing underscore: still works, with a FutureWarning."""
    old = fn.__name__[:-1]

    def alias(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{fn.__name__}`.", FutureWarning,
                      stacklevel=2)
        return fn(*args, **kwargs)
    alias.__name__ = old
    return alias


uniform, normal, constant, xavier_uniform, xavier_normal, kaiming_uniform, kaiming_normal, orthogonal = map(
    _deprecated_alias, (uniform_, normal_, constant_, xavier_uniform_, xavier_normal_, kaiming_uniform_,
                        kaiming_normal_, orthogonal_))
sparse, eye, dirac = map(_deprecated_alias, (sparse_, eye_, dirac_))
