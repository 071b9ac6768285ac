"""Pooling layers: summarise each window of a (N, C, H, W) or (C, H, W) input by its max or mean.

They hold only their window geometry; ``stride`` defaults to the window size, so by
default windows do not overlap.
"""
from __future__ import annotations

from .. import functional as F
from .module import Module, _settings
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]


class MaxPool2d(Module):
    """The max of each window; ``return_indices=True`` also returns where each max came from (flat H*W index)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.padding, self.dilation = kernel_size, padding, dilation
        self.stride = kernel_size if stride is None else stride
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return _settings(kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                         dilation=self.dilation, ceil_mode=self.ceil_mode)


class AvgPool2d(Module):
    """The mean of each window. Padding cells count towards the mean unless ``count_include_pad=False``;
    ``divisor_override`` divides every window sum by one fixed number instead."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size, self.padding = kernel_size, padding
        self.stride = kernel_size if stride is None else stride
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return _settings(kernel_size=self.kernel_size, stride=self.stride, padding=self.padding)


class AdaptiveAvgPool2d(Module):
    """Average-pool to a fixed ``output_size`` whatever the input size (``None`` keeps that dim's size).

    Useful in front of a Linear head, so the network accepts images of any size.
    """

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return _settings(output_size=self.output_size)
