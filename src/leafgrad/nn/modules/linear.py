"""Identity, Linear and Bilinear: the affine layers.

Weights are created empty and filled by ``reset_parameters()`` with torch's default
initialisation, so a model built here starts from the same distribution as the same
model built with torch (the random numbers themselves differ).
"""
from __future__ import annotations

import math

from .. import functional as F
from .. import init
from ..parameter import _uninitialized
from .module import Module, _settings, parameter_of
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["Identity", "Linear", "Bilinear"]


def _reset_fan_in_uniform(weight, bias) -> None:
    """The default for Linear and Conv: uniform weights and bias within +-1/sqrt(fan_in).

    For the weight that bound comes out of ``kaiming_uniform_`` with ``a=sqrt(5)``
    (gain sqrt(2 / 6), times sqrt(3) for a uniform distribution's std).
    """
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in = init._calculate_fan_in_and_fan_out(weight)[0]
        bound = 1 / math.sqrt(fan_in) if fan_in else 0  # no inputs: nothing to scale by
        init.uniform_(bias, -bound, bound)


def _weight_and_bias(module: Module, weight_shape: tuple, bias: bool, device, dtype) -> None:
    """Create ``module.weight`` and ``module.bias`` (registered as None when ``bias=False``)."""
    module.weight = _uninitialized(weight_shape, device, dtype)
    if bias:
        module.bias = _uninitialized((weight_shape[0],), device, dtype)
    else:
        module.register_parameter("bias", None)


class Identity(Module):
    """Returns its input unchanged; accepts any constructor arguments so it can stand in for another layer."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``, with ``weight`` of shape (out_features, in_features)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        _weight_and_bias(self, (out_features, in_features), bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias uniformly in +-1/sqrt(in_features), torch's default (kaiming_uniform with a=sqrt(5))."""
        _reset_fan_in_uniform(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        """Apply ``input @ weight.T + bias`` to ``(*, in_features)`` input, giving ``(*, out_features)``.

        This is ``F.linear`` with the module's parameters: a matrix input records ``AddmmBackward0``
        (``MmBackward0`` with ``bias=False``); 1-d and 3-d-or-more inputs are flattened to a matrix and viewed
        back, so their root is ``ViewBackward0``. Gradients reach the input, the weight and the bias.
        """
        return F.linear(input, parameter_of(self, "weight"), parameter_of(self, "bias"))  # (see parameter_of)

    def extra_repr(self) -> str:
        return _settings(in_features=self.in_features, out_features=self.out_features, bias=self.bias is not None)


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under another name: the class of MultiheadAttention's ``out_proj``, so its repr matches torch's."""


class Bilinear(Module):
    """``y[k] = x1 @ weight[k] @ x2 + bias[k]``, with ``weight`` of shape (out, in1, in2)."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        _weight_and_bias(self, (out_features, in1_features, in2_features), bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias uniformly in +-1/sqrt(in1_features), torch's default."""
        bound = 1 / math.sqrt(self.in1_features)  # torch scales by the first input's size only
        for p in (self.weight, self.bias):
            if p is not None:
                init.uniform_(p, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return _settings(in1_features=self.in1_features, in2_features=self.in2_features,
                         out_features=self.out_features, bias=self.bias is not None)
