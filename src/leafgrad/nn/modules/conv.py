"""Conv1d and Conv2d: learned filters slid over the last one or two dims of (N, C, ...) inputs.

Both share one implementation; only the number of spatial dims and the functional op
differ. ``padding`` may be a number, a tuple, ``'valid'`` (none) or ``'same'`` (output
as large as the input, stride 1 only). ``padding_mode`` other than ``'zeros'`` pads the
input explicitly with ``F.pad`` first, then convolves without padding.
"""
from __future__ import annotations

from .. import functional as F
from .linear import _reset_fan_in_uniform, _weight_and_bias
from .module import Module, _changed, _settings, parameter_of
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (annotations only: they are strings at run time)
    from ..._tensor import Tensor

__all__ = ["Conv1d", "Conv2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _explicit_padding(padding, kernel_size: tuple, dilation: tuple) -> list[int]:
    """``padding`` as F.pad wants it: (before, after) pairs, last spatial dim first.

    For 'same', the ``dilation * (kernel - 1)`` cells of padding are split with the odd
    one after, which is where torch puts it.
    """
    pads = []
    for i in reversed(range(len(kernel_size))):
        if padding == "valid":
            before = after = 0
        elif padding == "same":
            total = dilation[i] * (kernel_size[i] - 1)
            before, after = total // 2, total - total // 2
        else:
            before = after = padding[i]
        pads += [before, after]
    return pads


class _ConvNd(Module):
    """The shared implementation; a subclass sets the number of spatial dims and the functional op."""

    _spatial_dims = 2
    _function = None  # F.conv1d / F.conv2d, set by each subclass

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        n = self._spatial_dims
        name = type(self).__name__
        if groups <= 0:
            raise ValueError(f"groups must be a positive integer (got groups={groups} in {name})")
        for label, channels in (("in_channels", in_channels), ("out_channels", out_channels)):
            if channels % groups:
                raise ValueError(f"{label} must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}; "
                                 "or give the padding as a number or a tuple")
        else:
            padding = F._tuple(padding, n, "padding")
        stride = F._tuple(stride, n, "stride")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = F._tuple(kernel_size, n, "kernel_size")
        self.stride = stride
        self.padding = padding
        self.dilation = F._tuple(dilation, n, "dilation")
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        self._explicit_padding = _explicit_padding(padding, self.kernel_size, self.dilation)
        _weight_and_bias(self, (out_channels, in_channels // groups, *self.kernel_size), bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias uniformly in +-1/sqrt(fan_in) (fan_in = in_channels/groups * kernel size), torch's default."""
        _reset_fan_in_uniform(self.weight, self.bias)

    def extra_repr(self) -> str:
        n = self._spatial_dims
        # after the four always shown, only what differs from the default, in torch's order
        optional = _changed(self, padding=(0,) * n, dilation=(1,) * n, output_padding=(0,) * n, groups=1)
        if self.bias is None:
            optional["bias"] = False
        optional.update(_changed(self, padding_mode="zeros"))
        return _settings(self.in_channels, self.out_channels, kernel_size=self.kernel_size, stride=self.stride,
                         **optional)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode == "zeros":
            return self._function(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)
        padded = F.pad(input, self._explicit_padding, mode=self.padding_mode)
        return self._function(padded, weight, bias, self.stride, 0, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        """Convolve ``(N, C_in, *spatial)`` (or unbatched ``(C_in, *spatial)``) input with the module's filters,
        giving ``(N, C_out, *spatial_out)``, spatial being 1, 2 or 3 dims for Conv1d/2d/3d.

        This is the matching ``F.conv*d`` with the module's stride, padding, dilation and groups; a
        ``padding_mode`` other than ``'zeros'`` first pads with ``F.pad`` (reflect, replicate or circular) and
        then convolves unpadded. The result's node is ``ConvolutionBackward0`` (saving input and weight), with
        gradients for input, weight and bias.
        """
        return self._conv_forward(input, parameter_of(self, "weight"), parameter_of(self, "bias"))  # (see parameter_of)


class Conv1d(_ConvNd):
    """Filters over the last dim of (N, C_in, L) or unbatched (C_in, L) inputs."""

    _spatial_dims = 1
    _function = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """Filters over the last two dims of (N, C_in, H, W) or unbatched (C_in, H, W) inputs."""

    _spatial_dims = 2
    _function = staticmethod(F.conv2d)
