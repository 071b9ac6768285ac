"""More pooling layers: the 1-d forms, adaptive max pooling, Lp pooling and max un-pooling.

The 1-d layers keep the 2-d ones' settings and repr (torch's, including AvgPool1d's and
MaxUnpool's one-element tuples); their functional forms run the 2-d pool over a height of 1.
"""
from __future__ import annotations

from .. import functional as F
from .module import Module, _settings
from .pooling import AdaptiveAvgPool2d, MaxPool2d
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d",
           "LPPool2d", "MaxUnpool1d", "MaxUnpool2d"]


def _n(value, n: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class MaxPool1d(MaxPool2d):
    """The max of each window along the last dim of (N, C, L) or (C, L) inputs."""

    def forward(self, input: Tensor):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """The mean of each window along the last dim; padding counts unless ``count_include_pad=False``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _n(kernel_size, 1)
        self.stride = _n(kernel_size if stride is None else stride, 1)
        self.padding = _n(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return _settings(kernel_size=self.kernel_size, stride=self.stride, padding=self.padding)


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """Average-pool the last dim to a fixed ``output_size``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Module):
    """Max-pool the last two dims to a fixed ``output_size`` (``None`` keeps a dim); optionally with indices."""

    _function = staticmethod(F.adaptive_max_pool2d)

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor):
        return self._function(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return _settings(output_size=self.output_size)


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """Max-pool the last dim to a fixed ``output_size``."""

    _function = staticmethod(F.adaptive_max_pool1d)


class LPPool2d(Module):
    """The p-norm of each window: ``(sum x**p) ** (1/p)`` (p = inf is max pooling, p = 1 sum pooling)."""

    _function = staticmethod(F.lp_pool2d)

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return self._function(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return _settings(norm_type=self.norm_type, kernel_size=self.kernel_size, stride=self.stride,
                         ceil_mode=self.ceil_mode)


class LPPool1d(LPPool2d):
    """The p-norm of each window along the last dim."""

    _function = staticmethod(F.lp_pool1d)


class MaxUnpool2d(Module):
    """The partial inverse of MaxPool2d: each value goes back to where its max came from, zeros elsewhere."""

    _n_dims = 2
    _function = staticmethod(F.max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        n = self._n_dims
        self.kernel_size = _n(kernel_size, n)
        self.stride = _n(kernel_size if stride is None else stride, n)
        self.padding = _n(padding, n)

    def forward(self, input, indices, output_size=None):
        return self._function(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return _settings(kernel_size=self.kernel_size, stride=self.stride, padding=self.padding)


class MaxUnpool1d(MaxUnpool2d):
    """The partial inverse of MaxPool1d."""

    _n_dims = 1
    _function = staticmethod(F.max_unpool1d)
