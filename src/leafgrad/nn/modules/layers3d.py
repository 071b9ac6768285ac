"""The 3-d layers (volumes: (N, C, D, H, W) or unbatched (C, D, H, W)) and the sliding-window
layers Fold / Unfold.

Each one is its 1-d/2-d sibling with three spatial dims: the shared base classes hold the
settings, checks and repr (torch's), only the functional op changes.
"""
from __future__ import annotations

from .. import functional as F
from .conv import _ConvNd
from .conv_transpose import _ConvTransposeNd
from .dropout import _Dropout
from .module import Module, _settings
from .normalization import _BatchNorm
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .pooling_extra import AdaptiveMaxPool2d, LPPool2d, MaxUnpool2d

__all__ = ["Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
           "LPPool3d", "MaxUnpool3d", "BatchNorm3d", "Dropout3d", "Fold", "Unfold"]


class Conv3d(_ConvNd):
    """Filters over the last three dims of (N, C_in, D, H, W) or unbatched (C_in, D, H, W) inputs."""

    _spatial_dims = 3
    _function = staticmethod(F.conv3d)


class ConvTranspose3d(_ConvTransposeNd):
    """The adjoint of Conv3d (weight (C_in, C_out // groups, kD, kH, kW)): learned upsampling of volumes."""

    _spatial_dims = 3
    _function = staticmethod(F.conv_transpose3d)


class MaxPool3d(MaxPool2d):
    """The max of each (kD, kH, kW) window; ``return_indices=True`` also gives the flat D*H*W index of each max."""

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(AvgPool2d):
    """The mean of each (kD, kH, kW) window (``count_include_pad``, ``divisor_override`` as AvgPool2d)."""

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """Average-pool the last three dims to a fixed ``output_size`` (``None`` keeps that dim's size)."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """Max-pool the last three dims to a fixed ``output_size``; optionally with indices."""

    _function = staticmethod(F.adaptive_max_pool3d)


class LPPool3d(LPPool2d):
    """The p-norm of each (kD, kH, kW) window."""

    _function = staticmethod(F.lp_pool3d)


class MaxUnpool3d(MaxUnpool2d):
    """The partial inverse of MaxPool3d: each value goes back to where its max came from, zeros elsewhere."""

    _n_dims = 3
    _function = staticmethod(F.max_unpool3d)


class BatchNorm3d(_BatchNorm):
    """Per-channel batch normalisation of (N, C, D, H, W) inputs."""

    _input_dims = (5,)


class Dropout3d(_Dropout):
    """Zeroes whole (D, H, W) channels of (N, C, D, H, W) or (C, D, H, W) inputs."""

    _function = staticmethod(F.dropout3d)


class Fold(Module):
    """col2im: sums ``(N, C * prod(kernel_size), L)`` columns into an ``(N, C, *output_size)`` image (overlaps add)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return _settings(output_size=self.output_size, kernel_size=self.kernel_size, dilation=self.dilation,
                         padding=self.padding, stride=self.stride)


class Unfold(Module):
    """im2col: every sliding block of an (N, C, H, W) input as a column of (N, C * prod(kernel_size), L)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return _settings(kernel_size=self.kernel_size, dilation=self.dilation, padding=self.padding,
                         stride=self.stride)
