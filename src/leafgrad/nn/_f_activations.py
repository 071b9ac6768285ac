"""The activations of ``nn.functional`` that share torch's ELU kernel (elu, selu, celu) or
have a kernel of their own (mish, hardsigmoid, hardswish, softshrink, hardshrink,
threshold, glu), and the two that torch writes as compositions (softsign, tanhshrink).

Each checks its arguments in torch's order and with torch's messages, then applies its
op from ``leafgrad/_ops/nn_activations.py`` or, with ``inplace=True``, writes it into the
input through leafgrad's in-place path (version bump, leaf checks, and the node torch's
in-place variant records: ``EluBackward1`` saves the output, ``ThresholdBackward1`` a copy
of the input). ``functional.py`` re-exports them all.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._ops import nn_activations as A
from .._ops.inplace import inplace as _inplace
from .._ops.registry import apply
from .._tensor import Tensor, _wrap_dim

__all__ = ["elu", "elu_", "selu", "selu_", "celu", "celu_", "mish", "hardsigmoid", "hardswish", "softshrink",
           "hardshrink", "threshold", "threshold_", "glu", "softsign", "tanhshrink"]


def _act(op, input: Tensor, params: tuple, inplace: bool, name: str, inplace_op=None) -> Tensor:
    """Apply ``op``, or with ``inplace`` write it into ``input`` (``inplace_op``: torch's other
    node for the in-place form, where it has one)."""
    if inplace:
        return _inplace(op if inplace_op is None else inplace_op, input, (), params, name)
    return apply(op, (input,), params)


def _require_floating(input: Tensor, kernel: str) -> None:
    """torch's activation kernels exist for floating dtypes only (NotImplementedError, naming the kernel)."""
    if input.dtype._kind != 2:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{D.scalar_type_name(input.dtype)}\': this '
                                  "activation needs a floating point tensor; convert first, e.g. x.float().")


# =============================================================================== the ELU family
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    _require_floating(input, "elu_cpu")
    return _act(A.ELU, input, (alpha, 1, 1), inplace, "elu_", A.ELU_INPLACE)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants: torch records it as an ELU."""
    _require_floating(input, "elu_cpu")
    return _act(A.ELU, input, (A.SELU_ALPHA, A.SELU_SCALE, 1), inplace, "selu_", A.ELU_INPLACE)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``: torch's ELU kernel with input_scale 1/alpha."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _require_floating(input, "elu_cpu")
    return _act(A.CELU, input, (alpha,), inplace, "celu_", A.CELU_INPLACE)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


# =============================================================================== smooth and hard gates
def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``."""
    _require_floating(input, "mish_cpu")
    return _act(A.MISH, input, (), inplace, "mish_")


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``clamp(x + 3, 0, 6) / 6``: piecewise linear; torch gives it no second derivative."""
    _require_floating(input, "hardsigmoid_cpu")
    return _act(A.HARDSIGMOID, input, (), inplace, "hardsigmoid_")


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * hardsigmoid(x)``."""
    _require_floating(input, "hardswish_cpu")
    return _act(A.HARDSWISH, input, (), inplace, "hardswish_")


# =============================================================================== shrinks and threshold
def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above lambd, ``x + lambd`` below -lambd, 0 between."""
    _require_floating(input, "softshrink_check")
    top = float(np.finfo(input._data.dtype).max)
    if not 0 <= lambd <= top:  # (NaN fails too)
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {D.scalar_type_name(input.dtype)}, "
                           f"but found {lambd:g}")
    return apply(A.SOFTSHRINK, (input,), (lambd,))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` outside [-lambd, lambd], 0 inside."""
    _require_floating(input, "hardshrink_cpu")
    return apply(A.HARDSHRINK, (input,), (lambd,))


# the C type names torch's overflow message uses for a number that does not fit a tensor's dtype
_C_TYPE = {"float16": "c10::Half", "float32": "float", "float64": "double", "uint8": "uint8_t", "int8": "int8_t",
           "int16": "int16_t", "int32": "int", "int64": "int64_t"}


def _check_fits(value, input: Tensor) -> None:
    if isinstance(value, int) and not -(1 << 63) <= value < (1 << 63):
        raise OverflowError("int too big to convert")
    dt = input._data.dtype
    info = np.finfo(dt) if dt.kind == "f" else np.iinfo(dt)
    if not math.isinf(value) and (value > info.max or value < info.min):
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE.get(dt.name, dt.name)} without overflow")


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``value`` where ``x <= threshold``, ``x`` elsewhere (integer tensors too)."""
    return _threshold(input, threshold, value, inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _threshold(input, threshold, value, True)


def _threshold(input: Tensor, limit, value, inplace: bool) -> Tensor:
    if input.dtype._kind == 0:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    for number in (limit, value):
        _check_fits(number, input)
    return _act(A.THRESHOLD, input, (limit, value), inplace, "threshold_", A.THRESHOLD_INPLACE)


# =============================================================================== glu
def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The first half of ``input`` along ``dim`` gated by the sigmoid of the second."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    wrapped = _wrap_dim(dim, nd)
    size = input._data.shape[wrapped]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {wrapped} is size {size}")
    _require_floating(input, "glu_cpu")
    return A.glu(input, dim, wrapped)


# =============================================================================== compositions
def softsign(input: Tensor) -> Tensor:
    """``x / (|x| + 1)``, recorded as torch's Python writes it (Div, Add, Abs)."""
    with np.errstate(invalid="ignore", over="ignore"):  # (inf / inf is nan, silently, as torch)
        return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``, recorded as torch's Python writes it (Sub, Tanh)."""
    return input - input.tanh()
